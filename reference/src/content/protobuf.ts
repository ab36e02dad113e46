// The Protobuf representation: the 4-byte prefix, then an `Unknown` message wrapping the
// object encoded with Kubernetes' field numbers. Every built-in kind has an encoding, as in
// 1.28: the kinds of schema.ts's KIND_MESSAGES with its hand-written messages, the others with
// the generated messages of protobuf/kinds-1.28.json. Custom resources are JSON only.
//
// Watch streams (`;stream=watch`) follow Kubernetes: each frame is a 4-byte big-endian length
// then a `WatchEvent` message written without prefix or envelope (the stream serializer is the
// raw one); the event's `object.raw` holds the object in the full envelope (prefix + Unknown).
import { dataFileText } from '../util/data-file.ts';
import type { KObject } from '../util/kobject.ts';
import { decodeMessage, encodeMessage, ProtobufError, type RawCache } from './protobuf/codec.ts';
import { KIND_MESSAGES } from './protobuf/schema.ts';

export { ProtobufError } from './protobuf/codec.ts';

export const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

let generatedKinds: Record<string, string> | undefined;

/** `<apiVersion>/<kind>` -> generated message, read at the first question (a small file). */
function generatedKind(key: string): string | undefined {
  generatedKinds ??= JSON.parse(
    dataFileText(new URL('./protobuf/kinds-1.28.json', import.meta.url)),
  ) as Record<string, string>;
  return Object.hasOwn(generatedKinds, key) ? generatedKinds[key] : undefined;
}

/** The media types an envelope's `contentType` may name for its `raw` bytes (unset: Protobuf). */
const RAW_CONTENT_TYPES = new Set([
  '',
  'application/vnd.orch.protobuf',
  'application/vnd.kubernetes.protobuf',
]);

export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return messageFor(apiVersion, kind) !== undefined && kind !== 'DeleteOptions';
}

function messageFor(apiVersion: string, kind: string): string | undefined {
  const key = `${apiVersion}/${kind}`;
  const name = Object.hasOwn(KIND_MESSAGES, key) ? KIND_MESSAGES[key] : generatedKind(key);
  if (name) return name;
  // DeleteOptions travels in the version of whatever resource is being deleted
  if (kind === 'DeleteOptions' && apiVersion) return 'DeleteOptions';
  return undefined;
}

/** Stored objects never change: their encoded messages are reused (lists, watch fan-out). */
const rawCache: RawCache = new WeakMap();
const envelopeCache = new WeakMap<object, Buffer>();

function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const unknown = encodeMessage('runtime.Unknown', { typeMeta: { apiVersion, kind }, raw });
  return Buffer.concat([PREFIX, unknown]);
}

/** A JSON-form object (kind and apiVersion set) as the Protobuf envelope: prefix + Unknown. */
export function encodeProtobuf(obj: KObject | Record<string, unknown>): Buffer {
  const hit = envelopeCache.get(obj);
  if (hit) return hit;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const name = messageFor(apiVersion, kind);
  if (!name) throw new ProtobufError(`no Protobuf encoding for kind "${kind}" in version "${apiVersion}"`);
  const out = envelope(apiVersion, kind, encodeMessage(name, obj as Record<string, unknown>, rawCache));
  envelopeCache.set(obj, out);
  return out;
}

/** The envelope back to the JSON form; rejects bodies without the prefix and unknown kinds. */
export function decodeProtobuf(buf: Buffer): KObject {
  if (buf.length < PREFIX.length || !buf.subarray(0, PREFIX.length).equals(PREFIX))
    throw new ProtobufError(
      'the body is not a Protobuf envelope: it does not start with the 4-byte prefix 0x6b 0x38 0x73 0x00',
    );
  const unknown = decodeMessage('runtime.Unknown', buf.subarray(PREFIX.length));
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const apiVersion = typeMeta.apiVersion ?? '';
  const kind = typeMeta.kind ?? '';
  if (unknown.contentEncoding)
    throw new ProtobufError(`unsupported content encoding "${unknown.contentEncoding}"`);
  const contentType = String(unknown.contentType ?? '');
  if (!RAW_CONTENT_TYPES.has(contentType))
    throw new ProtobufError(`unsupported content type "${contentType}" inside the Protobuf envelope`);
  if (!kind) throw new ProtobufError('the Protobuf envelope does not name a kind');
  const name = messageFor(apiVersion, kind);
  if (!name) throw new ProtobufError(`no Protobuf decoding for kind "${kind}" in version "${apiVersion}"`);
  const body = decodeMessage(name, (unknown.raw as Buffer | undefined) ?? Buffer.alloc(0));
  const obj: Record<string, unknown> = { apiVersion, kind, ...body };
  if (kind.endsWith('List') && Array.isArray(obj.items)) {
    // list items carry no type information on the wire; the JSON form names it on every item
    const itemKind = kind.slice(0, -'List'.length);
    obj.items = (obj.items as Record<string, unknown>[]).map((it) => ({ apiVersion, kind: itemKind, ...it }));
  }
  if (kind !== 'Status' && kind !== 'DeleteOptions') obj.metadata ??= {};
  return obj as KObject;
}

/**
 * A watch event in the Protobuf stream form: a 4-byte big-endian length, then the WatchEvent
 * message (no prefix) whose object is an envelope-prefixed Unknown.
 */
export function encodeProtobufWatchEvent(type: string, obj: Record<string, unknown>): Buffer {
  let raw: Buffer;
  try {
    raw = encodeProtobuf(obj);
  } catch (e) {
    // never break the stream: the event becomes an ERROR carrying a Status
    type = 'ERROR';
    raw = encodeProtobuf({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `unable to encode watch object: ${(e as Error).message}`,
      reason: 'InternalError',
      code: 500,
    });
  }
  const event = encodeMessage('WatchEvent', { type, object: { raw } });
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  event.copy(frame, 4);
  return frame;
}

/** One frame's message (after the 4-byte length) back to `{type, object}` in JSON form. */
export function decodeProtobufWatchEvent(message: Buffer): { type: string; object: KObject } {
  const ev = decodeMessage('WatchEvent', message) as { type?: string; object?: { raw?: Buffer } };
  return { type: ev.type ?? '', object: decodeProtobuf(ev.object?.raw ?? Buffer.alloc(0)) };
}

/** Splits a Protobuf watch stream into frame messages; returns the unconsumed rest. */
export function splitWatchFrames(buf: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let off = 0;
  while (buf.length - off >= 4) {
    const len = buf.readUInt32BE(off);
    if (buf.length - off - 4 < len) break;
    frames.push(buf.subarray(off + 4, off + 4 + len));
    off += 4 + len;
  }
  return { frames, rest: buf.subarray(off) };
}
