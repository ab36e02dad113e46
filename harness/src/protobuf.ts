// The suites' own Protobuf codec (doc1 § Resources and their fields, "Binary envelope"): the
// 4-byte prefix, then an `Unknown` message (typeMeta, raw, contentEncoding, contentType) whose
// `raw` is the object. Messages are described in ./proto/*.proto (written for the suite from
// doc1's table and Kubernetes' field numbers) and read with protobufjs. A body without the
// prefix is rejected: "A client that receives Protobuf content lacking the prefix must reject
// the response."
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

export const PROTOBUF_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
export const PROTOBUF_TYPE = 'application/vnd.orch.protobuf';

export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

const PROTO_FILES = ['runtime.proto', 'meta.proto', 'core.proto'];

let root: protobuf.Root | undefined;
function types(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  for (const f of PROTO_FILES) {
    const text = readFileSync(new URL(`./proto/${f}`, import.meta.url), 'utf8');
    protobuf.parse(text, r, { keepCase: true });
  }
  r.resolveAll();
  root = r;
  return r;
}

const type = (name: string) => types().lookupType(name);

/** The message of each `<apiVersion>/<kind>` the suite decodes. */
const KIND_MESSAGES: Record<string, string> = {
  'v1/ConfigMap': 'core.ConfigMap',
  'v1/ConfigMapList': 'core.ConfigMapList',
  'v1/Namespace': 'core.Namespace',
  'v1/NamespaceList': 'core.NamespaceList',
  'v1/Status': 'meta.Status',
};

export function hasMessage(apiVersion: string, kind: string): boolean {
  return `${apiVersion}/${kind}` in KIND_MESSAGES;
}

export interface Envelope {
  /** typeMeta.apiVersion and typeMeta.kind (undefined when unset). */
  apiVersion?: string;
  kind?: string;
  raw: Buffer;
  /** undefined when unset (no encoding). */
  contentEncoding?: string;
  /** undefined when unset (the Protobuf media type). */
  contentType?: string;
}

/** Reads the prefix and the `Unknown` envelope; throws when the prefix is missing. */
export function decodeEnvelope(body: Buffer): Envelope {
  if (body.length < PROTOBUF_PREFIX.length || !body.subarray(0, 4).equals(PROTOBUF_PREFIX))
    throw new ProtobufDecodeError(
      `Protobuf content lacks the prefix 6b 38 73 00 (starts with ${body.subarray(0, 4).toString('hex') || 'nothing'})`,
    );
  let m: any;
  try {
    m = type('runtime.Unknown').decode(body.subarray(4));
  } catch (e) {
    throw new ProtobufDecodeError(
      `the body after the prefix is not an Unknown message: ${(e as Error).message}`,
    );
  }
  const has = (k: string) => Object.hasOwn(m, k);
  const tm = has('typeMeta') ? m.typeMeta : undefined;
  return {
    apiVersion: tm && Object.hasOwn(tm, 'apiVersion') ? tm.apiVersion : undefined,
    kind: tm && Object.hasOwn(tm, 'kind') ? tm.kind : undefined,
    raw: has('raw') ? Buffer.from(m.raw) : Buffer.alloc(0),
    contentEncoding: has('contentEncoding') ? m.contentEncoding : undefined,
    contentType: has('contentType') ? m.contentType : undefined,
  };
}

/** Decodes the envelope and its object into the JSON form (kind and apiVersion set). */
export function decodeObject(body: Buffer): { envelope: Envelope; object: any } {
  const envelope = decodeEnvelope(body);
  const { apiVersion = '', kind = '' } = envelope;
  if (envelope.contentEncoding)
    throw new ProtobufDecodeError(`unsupported contentEncoding "${envelope.contentEncoding}"`);
  if (envelope.contentType && !/protobuf/.test(envelope.contentType))
    throw new ProtobufDecodeError(`raw holds "${envelope.contentType}", not Protobuf`);
  const name = KIND_MESSAGES[`${apiVersion}/${kind}`];
  if (!name) throw new ProtobufDecodeError(`the suite has no message for ${apiVersion}/${kind}`);
  let msg: protobuf.Message;
  try {
    msg = type(name).decode(envelope.raw);
  } catch (e) {
    throw new ProtobufDecodeError(`raw is not a ${name} message: ${(e as Error).message}`);
  }
  const plain = type(name).toObject(msg, {
    longs: Number,
    bytes: String,
    defaults: false,
    arrays: false,
    objects: false,
  });
  return { envelope, object: { apiVersion, kind, ...toJsonForm(plain) } };
}

/** Encodes a JSON-form object (kind and apiVersion set) as prefix + Unknown envelope. */
export function encodeObject(obj: { apiVersion: string; kind: string; [k: string]: unknown }): Buffer {
  const name = KIND_MESSAGES[`${obj.apiVersion}/${obj.kind}`];
  if (!name) throw new Error(`the suite has no message for ${obj.apiVersion}/${obj.kind}`);
  const { apiVersion, kind, ...rest } = obj;
  const t = type(name);
  const raw = t.encode(t.fromObject(fromJsonForm(rest) as Record<string, unknown>)).finish();
  const u = type('runtime.Unknown');
  const env = u.encode(u.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Buffer.concat([PROTOBUF_PREFIX, env]);
}

/** Encodes an `Unknown` envelope as given (for cases that build odd envelopes). */
export function encodeEnvelope(e: Partial<Envelope>, prefix = true): Buffer {
  const u = type('runtime.Unknown');
  const m: Record<string, unknown> = {};
  if (e.apiVersion !== undefined || e.kind !== undefined)
    m.typeMeta = { apiVersion: e.apiVersion, kind: e.kind };
  if (e.raw) m.raw = e.raw;
  if (e.contentEncoding !== undefined) m.contentEncoding = e.contentEncoding;
  if (e.contentType !== undefined) m.contentType = e.contentType;
  const env = Buffer.from(u.encode(u.fromObject(m)).finish());
  return prefix ? Buffer.concat([PROTOBUF_PREFIX, env]) : env;
}

const isTime = (v: unknown): v is { seconds?: number; nanos?: number } =>
  !!v &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.keys(v).every((k) => k === 'seconds' || k === 'nanos');

const TIME_FIELDS = new Set(['creationTimestamp', 'deletionTimestamp']);

/** Time messages become RFC 3339 strings (seconds precision, as the JSON form writes them). */
function toJsonForm(v: any, key = ''): any {
  if (TIME_FIELDS.has(key) && isTime(v)) {
    return new Date((v.seconds ?? 0) * 1000).toISOString().replace('.000Z', 'Z');
  }
  if (Array.isArray(v)) return v.map((x) => toJsonForm(x));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = toJsonForm(x, k);
    return o;
  }
  return v;
}

function fromJsonForm(v: any, key = ''): any {
  if (TIME_FIELDS.has(key) && typeof v === 'string') return { seconds: Math.floor(Date.parse(v) / 1000) };
  if (Array.isArray(v)) return v.map((x) => fromJsonForm(x));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = fromJsonForm(x, k);
    return o;
  }
  return v;
}
