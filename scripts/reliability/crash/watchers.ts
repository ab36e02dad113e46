// The watchers of the crash measurement: each watches the namespace's ConfigMaps from a known
// resourceVersion and, whenever its watch ends (the server died, the stream broke), watches
// again from the last version it saw, as doc1's "Watch recovery" says; on 410 Gone it lists
// again and watches from the list's version. Every request and every event is recorded.
import { Agent, request } from 'undici';
import { call, type Target } from './client.ts';
import type { ObjectState, SeenEvent, WatcherLog, WatchSegment } from './verify.ts';

export interface WatcherOptions {
  count: number;
  namespace: string;
  /** The endpoints to watch on; a watch that fails moves on to the next one. */
  targets: () => Target[];
  start: string;
  /** Which objects count (the measured ones). */
  measured: (name: string) => boolean;
}

export interface Watchers {
  logs: WatcherLog[];
  /** Resolves when every watcher has a watch answered 200 (or after `timeoutMs`: false). */
  connected(timeoutMs: number): Promise<boolean>;
  /** Resolves when every watcher has seen version `rv` (or after `timeoutMs`: false). */
  caughtUp(rv: string, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

const ge = (a: string, b: string) => /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) >= BigInt(b);

/** Turns a list answer into measured objects. */
export function measuredObjects(json: any, measured: (name: string) => boolean): ObjectState[] {
  return ((json?.items ?? []) as any[])
    .filter((o) => measured(o.metadata?.name))
    .map((o) => ({ name: o.metadata.name, rv: o.metadata.resourceVersion, data: o.data ?? {} }));
}

export function startWatchers(o: WatcherOptions): Watchers {
  const ac = new AbortController();
  // the watches' own connections, destroyed at stop (an aborted body alone may leave its socket open)
  const agent = new Agent();
  const logs: WatcherLog[] = [];
  const last: string[] = [];
  const open: boolean[] = [];
  const path = `/api/v1/namespaces/${o.namespace}/configmaps`;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const run = async (id: number) => {
    const log: WatcherLog = { id, segments: [] };
    logs.push(log);
    last[id] = o.start;
    let relist: WatchSegment['relist'];
    let attempt = 0;
    while (!ac.signal.aborted) {
      const targets = o.targets();
      const t = targets[attempt++ % targets.length]!;
      const seg: WatchSegment = { from: last[id]!, outcome: 'ended', events: [], relist };
      relist = undefined;
      log.segments.push(seg);
      try {
        const r = await request(`${t.url}${path}?watch=1&resourceVersion=${seg.from}&timeoutSeconds=600`, {
          headers: { authorization: `Bearer ${t.token}` },
          signal: ac.signal,
          dispatcher: agent,
          headersTimeout: 30_000,
          bodyTimeout: 0,
        });
        seg.status = r.statusCode;
        if (r.statusCode !== 200) {
          const text = await r.body.text();
          seg.outcome = r.statusCode === 410 ? 'gone' : 'error';
          seg.message = text.slice(0, 200);
        } else {
          open[id] = true;
          let buf = '';
          for await (const chunk of r.body) {
            buf += chunk.toString();
            let nl = buf.indexOf('\n');
            while (nl >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              nl = buf.indexOf('\n');
              if (!line.trim()) continue;
              const ev = JSON.parse(line) as { type: string; object: any };
              if (ev.type === 'ERROR') {
                seg.outcome = ev.object?.code === 410 ? 'gone' : 'error';
                seg.message = `ERROR event: ${ev.object?.code} ${ev.object?.reason}: ${ev.object?.message}`;
                continue;
              }
              const name = ev.object?.metadata?.name;
              if (ev.type === 'BOOKMARK' || !o.measured(name)) continue;
              const e: SeenEvent = {
                type: ev.type as SeenEvent['type'],
                name,
                rv: ev.object.metadata.resourceVersion,
                seq: ev.object.data?.seq,
              };
              seg.events.push(e);
              last[id] = e.rv;
            }
          }
        }
      } catch (e) {
        if (ac.signal.aborted) break;
        if (seg.outcome === 'ended') seg.outcome = 'error';
        seg.message ??= (e as Error).message;
      }
      if (ac.signal.aborted) break;
      if (seg.outcome === 'gone') {
        // doc1: on 410 clear the cache, list again, watch from the list's version
        for (;;) {
          if (ac.signal.aborted) return;
          try {
            const a = await call(t, 'GET', path, undefined, 10_000);
            if (a.status === 200) {
              relist = { rv: a.json.metadata.resourceVersion, objects: measuredObjects(a.json, o.measured) };
              last[id] = relist.rv;
              break;
            }
          } catch {
            // the server is not back yet
          }
          await pause(100);
        }
      } else await pause(seg.outcome === 'ended' ? 10 : 100);
    }
  };
  const loops = Array.from({ length: o.count }, (_, i) => run(i));
  const until = async (done: () => boolean, timeoutMs: number) => {
    const end = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > end) return false;
      await pause(20);
    }
    return true;
  };
  return {
    logs,
    connected: (ms) => until(() => open.filter(Boolean).length === o.count, ms),
    caughtUp: (rv, ms) => until(() => last.length === o.count && last.every((l) => ge(l, rv)), ms),
    stop: async () => {
      ac.abort();
      await Promise.all(loops);
      await agent.destroy();
    },
  };
}
