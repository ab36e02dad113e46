// A watch stream reader: newline-delimited JSON event documents over a chunked response.
// Each `next()` has its own timeout, so a silent or broken stream fails the case clearly.
// A target with several endpoints opens each watch at the next one; its messages name it.
import { type Dispatcher, request } from 'undici';
import type { Client, RequestOptions } from './client.ts';

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

  private constructor(private readonly client: Client) {}

  static async open(client: Client, o: RequestOptions & { connectTimeoutMs?: number }): Promise<WatchStream> {
    const s = new WatchStream(client);
    const q = { ...(o.query ?? {}), watch: o.query?.watch ?? '1' };
    const headers = { ...(await client.authHeaders(o)), ...(o.headers ?? {}) };
    if (o.accept) headers.accept = client.d.w(o.accept);
    const timer = setTimeout(() => s.controller.abort(), o.connectTimeoutMs ?? 15_000);
    const use = client.endpoints.take(`watch ${o.path}`);
    if (client.endpoints.several) s.endpoint = use.url;
    let r: Dispatcher.ResponseData;
    try {
      r = await request(client.url(o.path, q, use.url), {
        method: 'GET',
        headers,
        dispatcher: client.dispatcher,
        signal: s.controller.signal,
        headersTimeout: o.connectTimeoutMs ?? 15_000,
        bodyTimeout: 0,
      });
    } catch (e) {
      use.answer = `no answer (${(e as Error).message})`;
      throw new Error(`watch ${o.path}: no answer${s.at()} (${(e as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
    use.answer = String(r.statusCode);
    s.status = r.statusCode;
    s.headers = r.headers;
    r.body.setEncoding('utf8');
    r.body.on('data', (chunk: string) => s.feed(chunk));
    r.body.on('end', () => s.finish());
    r.body.on('error', (e: Error) => {
      if (!s.controller.signal.aborted) s.error = e;
      s.finish();
    });
    return s;
  }

  /** ` at URL` when the target has several endpoints, for messages. */
  private at(): string {
    return this.endpoint ? ` at ${this.endpoint}` : '';
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
    try {
      this.events.push(this.client.d.in(JSON.parse(line)) as WatchEvent);
    } catch {
      this.error = new Error(`watch stream${this.at()}: not a JSON event document: ${line.slice(0, 120)}`);
      this.controller.abort();
    }
    this.wake();
  }

  private finish(): void {
    if (this.buffer.trim() && !this.error) this.error = new Error(`watch stream${this.at()} ended mid-document: ${this.buffer.slice(0, 120)}`);
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
      if (this.ended) throw new Error(`watch stream${this.at()} ended after ${this.events.length} events`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms (received ${this.events.length} so far${this.endpoint ? ` from ${this.endpoint}` : ''})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
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
      if (Date.now() > deadline) throw new Error(`watch stream${this.at()} still open after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.controller.abort();
    this.ended = true;
    this.wake();
  }
}
