// A watch stream reader: newline-delimited JSON event documents over a chunked response.
// Each `next()` has its own timeout, so a silent or broken stream fails the case clearly.
// A target with several endpoints opens each watch at the next one; its messages name it.
import { type Dispatcher, request } from 'undici';
import { type Client, type RequestOptions, requestTimeoutMs } from './client.ts';
import { describeNetworkError, type ExchangeState } from './network-error.ts';
import { type Recorded, recording } from './repro/tape.ts';

export interface WatchEvent {
  type: string;
  object: any;
}

export class WatchStream {
  readonly events: WatchEvent[] = [];
  status = 0;
  headers: Record<string, string | string[] | undefined> = {};
  ended = false;
  error?: Error;
  /** The endpoint the stream is open at (set when the target has several). */
  endpoint?: string;
  private buffer = '';
  private readIndex = 0;
  private waiters: (() => void)[] = [];
  private controller = new AbortController();
  private state?: ExchangeState;
  private bytes = 0;
  /** The watch as recorded for a reproducer (the run records): its event lines, how long it was open. */
  private rec?: Recorded;

  private constructor(private readonly client: Client) {}

  static async open(client: Client, o: RequestOptions & { connectTimeoutMs?: number }): Promise<WatchStream> {
    const s = new WatchStream(client);
    const q = { ...(o.query ?? {}), watch: o.query?.watch ?? '1' };
    const headers = { ...(await client.authHeaders(o)), ...(o.headers ?? {}) };
    if (o.accept) headers.accept = client.d.w(o.accept);
    const connectTimeout = requestTimeoutMs(o.connectTimeoutMs);
    const use = client.endpoints.take(`watch ${o.path}`);
    if (client.endpoints.several) s.endpoint = use.url;
    const url = client.url(o.path, q, use.url);
    const state: ExchangeState = {
      method: 'GET',
      url,
      timeoutMs: connectTimeout,
      startedAt: Date.now(),
      phase: 'head',
    };
    s.state = state;
    if (recording) {
      s.rec = client.record(use, o, 'GET', url, headers);
      s.rec.watch = true;
      s.rec.answer = '';
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      s.controller.abort();
    }, connectTimeout);
    let r: Dispatcher.ResponseData;
    try {
      r = await request(url, {
        method: 'GET',
        headers,
        dispatcher: client.dispatcherFor(o),
        signal: s.controller.signal,
        headersTimeout: connectTimeout,
        bodyTimeout: 0,
      });
    } catch (e) {
      const why = describeNetworkError(e, state, timedOut);
      use.answer = `no answer (${why})`;
      if (s.rec) {
        s.rec.note = why;
        s.rec.watchMs = performance.now() - s.rec.startedAt;
      }
      throw new Error(`watch ${o.path}: no answer${s.at()} (${why})`);
    } finally {
      clearTimeout(timer);
    }
    use.answer = String(r.statusCode);
    if (s.rec) {
      s.rec.status = r.statusCode;
      const ct = r.headers['content-type'];
      if (ct !== undefined) s.rec.answerType = String(ct);
    }
    state.phase = 'body';
    s.status = r.statusCode;
    s.headers = r.headers;
    r.body.on('data', (chunk: Buffer) => {
      s.bytes += chunk.length;
      s.feed(chunk.toString('utf8'));
    });
    r.body.on('end', () => s.finish());
    r.body.on('error', (e: Error) => {
      if (!s.controller.signal.aborted)
        s.error = new Error(
          `watch stream of ${s.where()} broke: ${describeNetworkError(e, { ...state, bodyBytes: s.bytes, events: s.events.length }, false)}`,
        );
      s.finish();
    });
    return s;
  }

  /** ` at URL` when the target has several endpoints, for messages. */
  private at(): string {
    return this.endpoint ? ` at ${this.endpoint}` : '';
  }

  /** The watch's request, for messages. */
  private where(): string {
    return this.state ? `GET ${this.state.url}` : 'the watch';
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let nl = this.buffer.indexOf('\n');
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line) this.pushLine(line);
      nl = this.buffer.indexOf('\n');
    }
    // a server may send documents without newlines: try the remainder as a whole
    const rest = this.buffer.trim();
    if (rest.endsWith('}')) {
      try {
        JSON.parse(rest);
        this.buffer = '';
        this.pushLine(rest);
      } catch {
        // incomplete document: wait for more
      }
    }
  }

  private pushLine(line: string): void {
    if (this.rec) {
      this.rec.answer += `${line}\n`;
      this.rec.lastEventMs = performance.now() - this.rec.startedAt;
    }
    try {
      this.events.push(this.client.d.in(JSON.parse(line)) as WatchEvent);
    } catch {
      this.error = new Error(
        `watch stream of ${this.where()}: the endpoint sent a line that is not a JSON event document (after ${this.events.length} events): ${JSON.stringify(line.slice(0, 120))}`,
      );
      this.controller.abort();
    }
    this.wake();
  }

  private finish(): void {
    if (this.rec && this.rec.watchMs === undefined && !this.controller.signal.aborted) this.rec.ended = true;
    this.noteEnd();
    if (this.buffer.trim() && !this.error)
      this.error = new Error(
        `watch stream of ${this.where()}: the endpoint ended the stream in the middle of an event document (after ${this.events.length} events): ${JSON.stringify(this.buffer.slice(0, 120))}`,
      );
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The next event not yet returned; rejects after timeoutMs or when the stream ends. */
  async next(timeoutMs = 10_000): Promise<WatchEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.readIndex < this.events.length) return this.events[this.readIndex++]!;
      if (this.error) throw this.error;
      if (this.ended)
        throw new Error(`watch stream of ${this.where()} ended after ${this.events.length} events`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(this.silence(timeoutMs));
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /**
   * Why no event came: a silent stream, or one trickling bytes that never make a document. Both
   * start "no watch event within" (suites/watch/support.ts's readFor takes that for a quiet end).
   */
  private silence(timeoutMs: number): string {
    const partial = this.buffer.trim();
    const head = `no watch event within ${timeoutMs} ms (received ${this.events.length} so far${this.endpoint ? ` from ${this.endpoint}` : ''}) on ${this.where()}`;
    return partial
      ? `${head}: the stream is open and ${Buffer.byteLength(this.buffer)} bytes of an unfinished event document arrived (the endpoint is sending too slowly or stalled mid-event): ${JSON.stringify(partial.slice(0, 80))}`
      : `${head}: the stream is open and silent (${this.bytes} bytes in all)`;
  }

  /** Reads events until `pred` holds for one (returned) or the timeout passes. */
  async until(pred: (e: WatchEvent) => boolean, timeoutMs = 10_000): Promise<WatchEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (pred(e)) return e;
    }
  }

  /** Reads n events (skipping BOOKMARKs unless keepBookmarks). */
  async take(n: number, timeoutMs = 10_000, keepBookmarks = false): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    while (out.length < n) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (keepBookmarks || e.type !== 'BOOKMARK') out.push(e);
    }
    return out;
  }

  /** Waits for the server to end the stream. */
  async waitEnd(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline)
        throw new Error(`watch stream of ${this.where()} still open after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Notes when the recorded stream ended (its first end: the server's, or the case's close). */
  private noteEnd(): void {
    if (this.rec && this.rec.watchMs === undefined) this.rec.watchMs = performance.now() - this.rec.startedAt;
  }

  close(): void {
    this.noteEnd();
    this.controller.abort();
    this.ended = true;
    this.wake();
  }
}
