// watch: a chunked stream of JSON event documents (or length-prefixed Protobuf events), one
// per change, in the order of the changes.

import { jsonBytes } from '../content/json.ts';
import { PROTOBUF_TYPE } from '../content/negotiate.ts';
import { asPartialMetadata } from '../content/partial-metadata.ts';
import { encodeProtobufWatchEvent } from '../content/protobuf.ts';
import { errors, type StatusError } from '../errors/status.ts';
import type { WatchParams } from '../registry/store.ts';
import type { KObject } from '../storage/types.ts';
import { listParams, queryBool } from './read.ts';
import type { Handler, Scope } from './scope.ts';

/** A client that does not read gets its watch closed rather than unbounded buffering. */
const MAX_BUFFERED = 64 * 1024 * 1024;

const EVENT_HEAD: Record<string, Buffer> = {};
const EVENT_TAIL = Buffer.from('}\n');

export const watchHandler: Handler = async (s: Scope) => {
  const p: WatchParams = listParams(s.query);
  p.allowWatchBookmarks = queryBool(s.query, 'allowWatchBookmarks') ?? false;
  const ts = s.query.get('timeoutSeconds');
  if (ts !== null && ts !== '') {
    if (!/^[-+]?\d+$/.test(ts))
      throw errors.badRequest(`invalid value for timeoutSeconds: "${ts}": must be an integer`);
    p.timeoutSeconds = Number(ts);
  }
  if (s.name) p.name = s.name;
  const proto = s.out.format === 'protobuf';
  const apiVersion = s.def.group ? `${s.def.group}/${s.version}` : s.version;
  const stream = s.res.stream(proto ? `${PROTOBUF_TYPE};stream=watch` : 'application/json');
  const start = () => stream.start();
  let stop: () => void = () => {};
  let closed = false;
  // The events of one turn of the event loop leave in one write: with many watchers, one
  // write per event per watcher would cost a system call each.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let flushing = false;
  const flush = () => {
    flushing = false;
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    if (closed || stream.closed) return;
    stream.write(chunk);
    if (stream.buffered > MAX_BUFFERED) {
      closed = true;
      stop();
      stream.destroy();
    }
  };
  const queue = (...parts: Buffer[]) => {
    for (const b of parts) {
      pending.push(b);
      pendingBytes += b.length;
    }
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
  const write = (type: string, object: Record<string, unknown>) => {
    start();
    if (closed || stream.closed) return;
    if (proto) queue(encodeProtobufWatchEvent(type, object));
    else {
      // stored objects are immutable: their bytes are serialized once for all watchers
      const head = (EVENT_HEAD[type] ??= Buffer.from(`{"type":"${type}","object":`));
      queue(head, jsonBytes(object), EVENT_TAIL);
    }
  };
  const partial = s.out.partial;
  const sink = {
    event: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject) => {
      const shown = s.store.present(obj, s.version);
      write(type, partial ? (asPartialMetadata(shown, partial) as Record<string, unknown>) : shown);
    },
    bookmark: (rv: string, initialEventsEnd: boolean) => {
      const metadata: Record<string, unknown> = { resourceVersion: rv };
      if (initialEventsEnd) metadata.annotations = { 'orch.io/initial-events-end': 'true' };
      const mark = { kind: s.def.kind, apiVersion, metadata };
      write('BOOKMARK', partial ? (asPartialMetadata(mark, partial) as Record<string, unknown>) : mark);
    },
    error: (err: StatusError) => write('ERROR', err.toStatus() as unknown as Record<string, unknown>),
    end: () => {
      start();
      flush();
      stream.end();
    },
  };
  stop = s.store.watch(s.namespace, p, sink);
  if (closed) stop();
  start();
  // the stream closes when the client goes away (or once it has ended)
  stream.onClose(() => stop());
};
