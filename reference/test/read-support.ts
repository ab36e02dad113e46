// Test support for the read-path tests (resource versions, lists, selectors, watch): a
// watch client that hands events one by one (each line of the body must be one complete
// JSON document), and short ConfigMap helpers that fail loudly on an unexpected status.
import { Agent, request } from 'undici';
import { configMap, type Reply, type TestServer, uniqueName } from './helpers.ts';

export interface WatchEvent {
  type: string;
  object: any;
}

const agent = new Agent({ connect: { rejectUnauthorized: false }, pipelining: 0 });

export class WatchStream {
  readonly events: WatchEvent[] = [];
  /** Lines of the body that were not a JSON event document. */
  readonly badLines: string[] = [];
  ended = false;
  private pos = 0;
  private wake: (() => void) | undefined;
  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    private readonly abort: AbortController,
  ) {}

  push(line: string): void {
    if (line === '') return;
    try {
      const ev = JSON.parse(line) as WatchEvent;
      if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string' || !('object' in ev))
        throw new Error('shape');
      this.events.push(ev);
    } catch {
      this.badLines.push(line);
    }
    this.wake?.();
  }

  finish(): void {
    this.ended = true;
    this.wake?.();
  }

  /** The next event; rejects when the stream ends first or nothing comes within `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<WatchEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.pos >= this.events.length) {
      if (this.ended) throw new Error(`watch ended after ${this.events.length} events`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no watch event within ${timeoutMs} ms (after ${this.events.length} events)`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return this.events[this.pos++]!;
  }

  /** The next `n` events. */
  async take(n: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(timeoutMs));
    return out;
  }

  /** Events up to and including the first that satisfies `until`. */
  async upTo(until: (e: WatchEvent) => boolean, timeoutMs = 10_000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.next(timeoutMs);
      out.push(e);
      if (until(e)) return out;
    }
  }

  /** Resolves once the server has ended the stream; returns the events not taken yet. */
  async rest(timeoutMs = 15_000): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('watch did not end');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
    const out = this.events.slice(this.pos);
    this.pos = this.events.length;
    return out;
  }

  close(): void {
    this.abort.abort();
  }
}

/** Opens a watch (the path carries its own query); a non-200 answer is returned with its body parsed. */
export async function openWatch(ts: TestServer, path: string): Promise<WatchStream & { json?: any }> {
  const abort = new AbortController();
  const r = await request(ts.url + path, {
    method: 'GET',
    headers: { authorization: `Bearer ${ts.token}` },
    dispatcher: agent,
    signal: abort.signal,
    headersTimeout: 20_000,
    bodyTimeout: 0,
  });
  const w = new WatchStream(r.statusCode, r.headers, abort) as WatchStream & { json?: any };
  if (r.statusCode !== 200) {
    const text = await r.body.text();
    try {
      w.json = JSON.parse(text);
    } catch {
      w.json = undefined;
    }
    w.finish();
    return w;
  }
  void (async () => {
    let buf = '';
    try {
      for await (const chunk of r.body) {
        buf += (chunk as Buffer).toString('utf8');
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          w.push(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          nl = buf.indexOf('\n');
        }
      }
      if (buf.trim()) w.push(buf.trim());
    } catch {
      // aborted by close()
    }
    w.finish();
  })();
  return w;
}

function must(r: Reply, status: number, what: string): Reply {
  if (r.status !== status) throw new Error(`${what}: want ${status}, got ${r.status}: ${r.text}`);
  return r;
}

/** ConfigMap helpers bound to one server. */
export function cms(ts: TestServer) {
  const base = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
  return {
    base,
    /** Creates a fresh namespace; returns its name. */
    async ns(prefix = 'rv'): Promise<string> {
      const name = uniqueName(prefix);
      must(
        await ts.req('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name },
        }),
        201,
        'create namespace',
      );
      return name;
    },
    async create(
      ns: string,
      name: string,
      data: Record<string, string> = {},
      labels?: Record<string, string>,
    ): Promise<any> {
      const r = await ts.req('POST', base(ns), configMap(name, data, labels ? { metadata: { labels } } : {}));
      return must(r, 201, `create ${name}`).json;
    },
    /** Replaces data (and labels when given); unconditional. */
    async update(
      ns: string,
      name: string,
      data: Record<string, string>,
      labels?: Record<string, string>,
    ): Promise<any> {
      const r = await ts.req(
        'PUT',
        `${base(ns)}/${name}`,
        configMap(name, data, labels ? { metadata: { labels } } : {}),
      );
      return must(r, 200, `update ${name}`).json;
    },
    async del(ns: string, name: string): Promise<void> {
      must(await ts.req('DELETE', `${base(ns)}/${name}`), 200, `delete ${name}`);
    },
    async list(path: string): Promise<Reply> {
      return ts.req('GET', path);
    },
  };
}

/** Names of a list reply's items, in order. */
export function names(r: Reply): string[] {
  return (r.json.items as any[]).map((o) => o.metadata.name as string);
}
