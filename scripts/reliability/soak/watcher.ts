// One soak watcher: a chunked JSON watch of its scope with bookmarks, started at a known
// resourceVersion. When the server ends the watch (its timeoutSeconds) or the connection drops,
// it resumes from the last resourceVersion it saw (a BOOKMARK's included). A 410 Gone is counted,
// (a failure unless the version it resumed from was older than the server's history), and the
// watcher goes on from a fresh list's resourceVersion, the window in between recorded as
// a gap the check does not expect events in.
import http from 'node:http';
import type { SeenEvent, WatcherLog } from './check.ts';
import { type Scope, watchPath } from './scope.ts';

export interface WatcherOptions {
  url: string;
  token: string;
  scope: Scope;
  startRv: number;
  /** Each watch asks for a timeoutSeconds drawn from [min, max]. */
  timeoutSeconds: [number, number];
  random: () => number;
  /** The server's change history (a resume older than this may legitimately answer 410). */
  historySeconds: number;
  /** One string per key, so a long log does not hold a copy per event. */
  intern: (key: string) => string;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

export class Watcher {
  readonly log: WatcherLog;
  /** Watches the server ended (timeout) and the watcher resumed. */
  resumed = 0;
  /** 410 Gone answers to a resume within the server's history: a failure. */
  expired = 0;
  /** 410 Gone answers to a resume from a version older than the server's history. */
  expiredBeyond = 0;
  /** Connection errors, non-200 answers and ERROR events other than 410. */
  errors = 0;
  readonly errorTexts: string[] = [];
  lastRv: number;
  /** When the watcher learnt lastRv (ms, performance.now()). */
  private lastRvAt = performance.now();
  private req?: http.ClientRequest;
  private stopped = false;

  constructor(private readonly opts: WatcherOptions) {
    this.lastRv = opts.startRv;
    this.log = { scope: opts.scope, startRv: opts.startRv, events: [], gaps: [] };
  }

  /** Events received (BOOKMARKs left out). */
  get delivered(): number {
    return this.log.events.length - this.bookmarks;
  }
  bookmarks = 0;

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.req?.destroy();
  }

  private error(text: string): void {
    this.errors++;
    if (this.errorTexts.length < 10) this.errorTexts.push(text);
  }

  private again(delayMs: number): void {
    if (this.stopped) return;
    setTimeout(() => this.connect(), delayMs);
  }

  private async gone(): Promise<void> {
    if (performance.now() - this.lastRvAt > this.opts.historySeconds * 1000) this.expiredBeyond++;
    else this.expired++;
    const u = new URL(watchPath(this.opts.scope), this.opts.url);
    u.searchParams.set('limit', '1');
    try {
      const r = await fetch(u, { headers: { authorization: `Bearer ${this.opts.token}` } });
      const rv = Number((await r.json()).metadata?.resourceVersion);
      if (!Number.isSafeInteger(rv)) throw new Error(`list answered ${r.status} without a resourceVersion`);
      this.log.gaps.push([this.lastRv, rv]);
      this.lastRv = rv;
      this.lastRvAt = performance.now();
    } catch (e) {
      this.error(`list after 410: ${(e as Error).message}`);
    }
    this.again(0);
  }

  private connect(): void {
    if (this.stopped) return;
    const [lo, hi] = this.opts.timeoutSeconds;
    const timeout = lo + Math.floor(this.opts.random() * (hi - lo + 1));
    const path = watchPath(this.opts.scope);
    const q = `watch=1&allowWatchBookmarks=true&resourceVersion=${this.lastRv}&timeoutSeconds=${timeout}`;
    const u = new URL(this.opts.url);
    let ended = false;
    const finish = (fn: () => void) => {
      if (ended) return;
      ended = true;
      fn();
    };
    const req = http.get(
      {
        host: u.hostname,
        port: u.port,
        path: `${path}${path.includes('?') ? '&' : '?'}${q}`,
        agent,
        headers: { authorization: `Bearer ${this.opts.token}` },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (b: Buffer) => (body += b.toString()));
          res.on('end', () =>
            finish(() => {
              if (res.statusCode === 410) void this.gone();
              else {
                this.error(`watch answered ${res.statusCode}: ${body.slice(0, 200)}`);
                this.again(500);
              }
            }),
          );
          return;
        }
        let rest = '';
        let expiredHere = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const text = rest + chunk;
          let start = 0;
          let nl: number;
          while ((nl = text.indexOf('\n', start)) >= 0) {
            const line = text.slice(start, nl);
            start = nl + 1;
            if (line.trim() && this.line(line)) expiredHere = true;
          }
          rest = text.slice(start);
        });
        res.on('end', () =>
          finish(() => {
            if (expiredHere) void this.gone();
            else {
              this.resumed++;
              this.again(0);
            }
          }),
        );
        res.on('error', (e) =>
          finish(() => {
            if (!this.stopped) this.error(`watch stream: ${e.message}`);
            this.again(500);
          }),
        );
      },
    );
    req.on('error', (e) =>
      finish(() => {
        if (!this.stopped) this.error(`watch request: ${e.message}`);
        this.again(500);
      }),
    );
    this.req = req;
  }

  /** Records one watch event; true when it is a 410 Gone. */
  private line(line: string): boolean {
    let ev: {
      type?: string;
      object?: { code?: number; message?: string; metadata?: Record<string, string> };
    };
    try {
      ev = JSON.parse(line);
    } catch {
      this.error(`not JSON: ${line.slice(0, 200)}`);
      return false;
    }
    const type = ev.type;
    if (type === 'ERROR') {
      if (ev.object?.code === 410) return true;
      this.error(`ERROR event: ${ev.object?.code} ${ev.object?.message}`);
      return false;
    }
    const md = ev.object?.metadata ?? {};
    const rv = Number(md.resourceVersion);
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED' && type !== 'BOOKMARK') {
      this.error(`event of type ${type}`);
      return false;
    }
    if (!Number.isSafeInteger(rv)) {
      this.error(`${type} without a resourceVersion`);
      return false;
    }
    const e: SeenEvent = {
      type,
      key: type === 'BOOKMARK' ? '' : this.opts.intern(`${md.namespace}/${md.name}`),
      rv,
    };
    this.log.events.push(e);
    if (type === 'BOOKMARK') this.bookmarks++;
    if (rv > this.lastRv) this.lastRv = rv;
    this.lastRvAt = performance.now();
    return false;
  }
}
