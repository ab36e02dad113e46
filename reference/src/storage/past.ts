// A change as the history keeps it. Once a change is out and its objects are no longer the
// current state, they are kept as their JSON bytes (the bytes its watchers were sent, when
// any were: content/json.ts caches them on the object) and decoded again only when read: a
// watch replaying the history, a read at a past version. The history holds minutes of changes
// (5 by default); as objects, with their cached bytes beside them, they took about three times
// the memory, and a server on etcd grew by the whole window in a soak.
import { jsonBytes } from '../content/json.ts';
import type { ChangeEvent, KObject } from './types.ts';

/** An object as the history holds it: the object, or its JSON bytes. */
export type Kept = KObject | Buffer;

export interface PastChange extends Omit<ChangeEvent, 'obj' | 'prev'> {
  obj: Kept;
  prev?: Kept;
}

export const bytesOf = (o: Kept): Buffer => (Buffer.isBuffer(o) ? o : jsonBytes(o));

/** The object again (a fresh one each call when kept as bytes). */
export const objectOf = (o: Kept): KObject =>
  Buffer.isBuffer(o) ? (JSON.parse(o.toString('utf8')) as KObject) : o;

/** The change with its objects (the very change when it kept them). */
export function asChange(p: PastChange): ChangeEvent {
  if (!Buffer.isBuffer(p.obj) && (p.prev === undefined || !Buffer.isBuffer(p.prev))) return p as ChangeEvent;
  const c: ChangeEvent = {
    rv: p.rv,
    type: p.type,
    bucket: p.bucket,
    key: p.key,
    obj: objectOf(p.obj),
    time: p.time,
  };
  if (p.prev !== undefined) c.prev = objectOf(p.prev);
  return c;
}

/** The change with its previous object (and, for a deletion, its object) kept as bytes. */
export function pastOf(ev: PastChange): PastChange {
  const out: PastChange = { ...ev };
  if (ev.prev !== undefined) out.prev = bytesOf(ev.prev);
  if (ev.type === 'DELETED') out.obj = bytesOf(ev.obj);
  return out;
}

/** The change with both objects kept as bytes (its object is no longer the current state). */
export function supersededOf(p: PastChange): PastChange {
  const out: PastChange = { ...p, obj: bytesOf(p.obj) };
  if (p.prev !== undefined) out.prev = bytesOf(p.prev);
  return out;
}
