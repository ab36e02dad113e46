// watch: a chunked stream of JSON event documents (or length-prefixed Protobuf events).
import { PROTOBUF_TYPE } from '../content/negotiate.ts';
import { encodeProtobufWatchEvent } from '../content/protobuf.ts';
import type { StatusError } from '../errors/status.ts';
import type { WatchParams } from '../registry/store.ts';
import type { KObject } from '../storage/types.ts';
import { listParams } from './read.ts';
import { boolParam, type Handler, type Scope } from './scope.ts';

export const watchHandler: Handler = async (s: Scope) => {
  const p: WatchParams = listParams(s.query);
  p.allowWatchBookmarks = boolParam(s.query, 'allowWatchBookmarks');
  p.sendInitialEvents = boolParam(s.query, 'sendInitialEvents');
  const ts = s.query.get('timeoutSeconds');
  if (ts !== null && ts !== '') {
    if (!/^\d+$/.test(ts)) {
      const { errors } = await import('../errors/status.ts');
      throw errors.badRequest(`invalid value for timeoutSeconds: "${ts}"`);
    }
    p.timeoutSeconds = Number(ts);
  }
  if (s.name) p.name = s.name;
  const proto = s.out.format === 'protobuf';
  const apiVersion = s.def.group ? `${s.def.group}/${s.version}` : s.version;
  const res = s.res;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, {
      'Content-Type': proto ? `${PROTOBUF_TYPE};stream=watch` : 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
  };
  const write = (type: string, object: Record<string, unknown>) => {
    start();
    if (res.writableEnded) return;
    if (proto) res.write(encodeProtobufWatchEvent(type, object));
    else res.write(`{"type":"${type}","object":${JSON.stringify(object)}}\n`);
    // a client that does not read does not get unbounded memory
    if (res.writableLength > 64 * 1024 * 1024) stop();
  };
  let stop: () => void = () => {};
  const sink = {
    event: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject) => write(type, s.store.present(obj, s.version)),
    bookmark: (rv: string, initialEventsEnd: boolean) => {
      const metadata: Record<string, unknown> = { resourceVersion: rv };
      if (initialEventsEnd) metadata.annotations = { 'orch.io/initial-events-end': 'true' };
      write('BOOKMARK', { kind: s.def.kind, apiVersion, metadata });
    },
    error: (err: StatusError) => write('ERROR', err.toStatus() as unknown as Record<string, unknown>),
    end: () => {
      start();
      if (!res.writableEnded) res.end();
    },
  };
  stop = s.store.watch(s.namespace, p, sink);
  start();
  const cleanup = () => stop();
  res.on('close', cleanup);
  s.req.on('close', cleanup);
};
