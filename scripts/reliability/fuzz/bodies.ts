// Request bodies of every content type the API reads (JSON, YAML, Protobuf, the patch types,
// apply), and broken ones: truncated, random bytes, deep nesting (thousands of levels), huge
// values (megabytes, over the body limit too), gzip that is not, a gzip the server was not told of.
import { gzipSync } from 'node:zlib';
import { stringify as toYaml } from 'yaml';
import { encodeProtobuf } from '../../../reference/src/content/protobuf.ts';
import type { Prng } from './prng.ts';
import { jsonValue, mutate } from './values.ts';
import { CONTENT_ENCODINGS } from './vocabulary.ts';

export interface Body {
  bytes: Buffer;
  contentType: string;
  contentEncoding?: string;
}

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';
const PROTOBUF_TYPE = 'application/vnd.orch.protobuf';

const json = (v: unknown, contentType = JSON_TYPE): Body => ({
  bytes: Buffer.from(JSON.stringify(v) ?? 'null'),
  contentType,
});

function protobuf(obj: Record<string, unknown>): Body | undefined {
  try {
    return { bytes: encodeProtobuf(obj), contentType: PROTOBUF_TYPE };
  } catch {
    return undefined;
  }
}

/** A body for a create or an update (POST, PUT): the object in some encoding, maybe mutated. */
export function writeBody(rng: Prng, obj: Record<string, unknown>): Body {
  const doc = rng.chance(0.3) ? mutate(rng, obj) : obj;
  return rng.weighted<() => Body>([
    [6, () => json(doc)],
    [2, () => ({ bytes: Buffer.from(toYaml(doc)), contentType: YAML_TYPE })],
    [1, () => protobuf(obj) ?? json(doc)],
    [1, () => json(doc, 'application/json; charset=utf-8')],
  ])();
}

const JSON_PATCH_PATHS = [
  '/data/k',
  '/data',
  '/metadata/labels',
  '/metadata/labels/app',
  '/metadata/name',
  '/metadata/namespace',
  '/metadata/resourceVersion',
  '/metadata/finalizers/-',
  '/spec/replicas',
  '/spec',
  '/status',
  '/kind',
  '',
  '/',
  '/__proto__/x',
  '/data/-',
  '/a~2b',
  '/data/k/0/1',
];

/** A patch of any type, or an apply configuration, for `obj`. */
export function patchBody(rng: Prng, obj: Record<string, unknown>): Body {
  return rng.weighted<() => Body>([
    [
      3,
      () =>
        json(
          Array.from({ length: rng.int(0, 4) }, () => {
            const op: Record<string, unknown> = {
              op: rng.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']),
              path: rng.pick(JSON_PATCH_PATHS),
            };
            if (rng.chance(0.8)) op.value = jsonValue(rng, 2);
            if (rng.chance(0.3)) op.from = rng.pick(JSON_PATCH_PATHS);
            return op;
          }),
          'application/json-patch+json',
        ),
    ],
    [
      3,
      () =>
        json(
          rng.chance(0.5)
            ? { metadata: { labels: { app: jsonValue(rng, 1) } }, spec: jsonValue(rng, 2) }
            : jsonValue(rng, 3),
          'application/merge-patch+json',
        ),
    ],
    [
      2,
      () =>
        json(
          rng.chance(0.6) ? mutate(rng, obj) : jsonValue(rng, 3),
          'application/strategic-merge-patch+json',
        ),
    ],
    [
      3,
      () => ({
        bytes: Buffer.from(toYaml(rng.chance(0.7) ? obj : mutate(rng, obj))),
        contentType: 'application/apply-patch+yaml',
      }),
    ],
    [1, () => json(obj, 'application/apply-patch+yaml')],
    [1, () => json(obj, 'application/apply-patch+json')],
  ])();
}

const hugeCache = new Map<number, string>();
/** A string of `n` bytes (kept: the huge bodies reuse it). */
function huge(n: number): string {
  let s = hugeCache.get(n);
  if (!s) {
    s = 'x'.repeat(n);
    hugeCache.set(n, s);
  }
  return s;
}

const HUGE_SIZES = [64 << 10, 1 << 20, (3 << 20) - 4096, (3 << 20) + 4096, 8 << 20];

function nested(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** A broken or hostile body: the server must refuse it with a Status and go on. */
export function malformedBody(rng: Prng, obj: Record<string, unknown>): Body {
  const text = JSON.stringify(obj);
  const depth = rng.pick([1000, 5000, 20000, 100000]);
  return rng.weighted<() => Body>([
    [3, () => ({ bytes: Buffer.from(text.slice(0, rng.int(0, text.length - 1))), contentType: JSON_TYPE })],
    [1, () => ({ bytes: Buffer.from(toYaml(obj)).subarray(0, rng.int(0, 40)), contentType: YAML_TYPE })],
    [
      2,
      () => ({
        bytes: Buffer.from(Array.from({ length: rng.int(0, 200) }, () => rng.int(0, 255))),
        contentType: rng.pick([JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE, 'application/merge-patch+json']),
      }),
    ],
    [
      1,
      () => {
        const p = protobuf(obj);
        const bytes = p
          ? p.bytes.subarray(0, rng.int(0, p.bytes.length - 1))
          : Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0x01]);
        return { bytes, contentType: PROTOBUF_TYPE };
      },
    ],
    [
      2,
      () => ({
        bytes: Buffer.from(
          text.replace(
            /\}$/,
            `,"deep":${rng.chance(0.5) ? nested(depth, '[', ']') : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`}}`,
          ),
        ),
        contentType: rng.pick([
          JSON_TYPE,
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
        ]),
      }),
    ],
    [
      1,
      () => ({
        bytes: Buffer.from(
          `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fz-deep}\ndata: ${nested(depth, '[', ']')}\n`,
        ),
        contentType: rng.pick([YAML_TYPE, 'application/apply-patch+yaml']),
      }),
    ],
    [
      1,
      () => {
        const size = rng.pick(HUGE_SIZES);
        const where = rng.int(0, 2);
        const o = JSON.parse(text);
        if (where === 0) o.data = { k: huge(size) };
        else if (where === 1) o.metadata = { ...o.metadata, annotations: { a: huge(size) } };
        else o.metadata = { ...o.metadata, labels: { app: huge(Math.min(size, 1 << 20)) } };
        return { bytes: Buffer.from(JSON.stringify(o)), contentType: JSON_TYPE };
      },
    ],
    [
      1,
      () => {
        const o = JSON.parse(text);
        o.data = Object.fromEntries(
          Array.from({ length: rng.pick([1000, 50000]) }, (_, i) => [`k${i}`, 'v']),
        );
        return { bytes: Buffer.from(JSON.stringify(o)), contentType: JSON_TYPE };
      },
    ],
    [
      2,
      () => {
        // gzip: real (told or not), or said but not
        const real = rng.chance(0.5);
        const bytes = real ? gzipSync(text) : Buffer.from(text);
        const enc = rng.chance(0.7) ? rng.pick(CONTENT_ENCODINGS) : undefined;
        return {
          bytes: real && rng.chance(0.3) ? bytes.subarray(0, bytes.length >> 1) : bytes,
          contentType: JSON_TYPE,
          contentEncoding: enc,
        };
      },
    ],
    [
      1,
      () => ({
        bytes: Buffer.from(
          rng.pick([
            '',
            'null',
            '[]',
            '"x"',
            '42',
            '\uFEFF{}',
            '{"a":NaN}',
            '{"apiVersion":"v1","apiVersion":"v2"}',
            '{"metadata":{"name":"a\u0000b"}}',
            '{"__proto__":{"polluted":1}}',
            'a: &a [*a]',
            '--- !!binary AAAA',
            'key: !!js/function "x"',
          ]),
        ),
        contentType: rng.pick([
          JSON_TYPE,
          YAML_TYPE,
          'application/apply-patch+yaml',
          'application/merge-patch+json',
        ]),
      }),
    ],
  ])();
}
