// Faults against doc1's PATCH content types and update mechanisms, one rule each;
// suites/patch must catch every one.
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
import { divert, failure, header, unlessDiverted } from '../util.ts';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const TABLE_TYPES = new Set([JSON_PATCH, MERGE_PATCH, STRATEGIC, 'application/apply-patch+yaml']);

const contentType = (r: ProxiedRequest) =>
  (header(r, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
const isPatch = (r: ProxiedRequest, ct: string) => r.method === 'PATCH' && contentType(r) === ct;

function parse(b: Buffer): any {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

const withBody = (r: ProxiedRequest, body: unknown): ProxiedRequest => ({
  ...r,
  body: Buffer.from(JSON.stringify(body)),
});

function nullsToEmpty(v: unknown): unknown {
  if (v === null) return '';
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, nullsToEmpty(x)]));
  return v;
}

/** A custom resource's path: a named group with a dot that is not a Kubernetes or orch group. */
const isCustom = (r: ProxiedRequest) => {
  const g = /^\/apis\/([^/]+)\//.exec(r.url.pathname)?.[1] ?? '';
  return g.includes('.') && !/(^|\.)(k8s|orch)\.io$/.test(g);
};

const hasArray = (v: unknown): boolean =>
  Array.isArray(v) || (!!v && typeof v === 'object' && Object.values(v).some(hasArray));

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386, except that an array merges into the stored one index by index. */
function mergeArraysToo(target: unknown, patch: unknown): unknown {
  if (Array.isArray(patch) && Array.isArray(target))
    return Array.from({ length: Math.max(target.length, patch.length) }, (_, i) =>
      i < patch.length ? mergeArraysToo(target[i], patch[i]) : target[i],
    );
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeArraysToo(out[k], v);
  }
  return out;
}

/** Merge patches with arrays, sent upstream as a read of the object (merged and written by the proxy). */
const arrayPatches = new WeakMap<ProxiedRequest, unknown>();

/** The version of each object as the proxy last answered it to a read, a create or a patch. */
const seenVersion = new Map<string, string>();

export const HOOKS: FaultHooks[] = [
  {
    name: 'merge-patch-arrays-merged',
    request: (r) => {
      const body = isPatch(r, MERGE_PATCH) && !r.url.search ? parse(r.body) : undefined;
      if (!isObject(body) || !hasArray(body)) return r;
      const read: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
      arrayPatches.set(read, body);
      return read;
    },
    response: async (r, res, up) => {
      const patch = arrayPatches.get(r);
      if (patch === undefined || res.status !== 200) return res;
      const merged = mergeArraysToo(parse(res.body), patch);
      return up.send({
        ...r,
        method: 'PUT',
        headers: { ...r.headers, 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(merged)),
      });
    },
  },
  {
    name: 'patch-checked-against-last-seen-version',
    request: (r) => {
      const body = isPatch(r, MERGE_PATCH) ? parse(r.body) : undefined;
      const rv = seenVersion.get(r.url.pathname);
      if (!isObject(body) || !rv || (isObject(body.metadata) && 'resourceVersion' in body.metadata)) return r;
      const metadata = { ...(isObject(body.metadata) ? body.metadata : {}), resourceVersion: rv };
      return withBody(r, { ...body, metadata });
    },
    response: (r, res) => {
      if (r.method === 'PUT' || res.status >= 300) return res;
      const j = parse(res.body);
      const name = j?.metadata?.name;
      const rv = j?.metadata?.resourceVersion;
      if (typeof name !== 'string' || typeof rv !== 'string') return res;
      const path = r.method === 'POST' ? `${r.url.pathname.replace(/\/$/, '')}/${name}` : r.url.pathname;
      if (r.method === 'POST' || r.method === 'GET' || r.method === 'PATCH') seenVersion.set(path, rv);
      return res;
    },
  },
  {
    name: 'json-patch-test-ignored',
    request: (r) => {
      const ops = isPatch(r, JSON_PATCH) ? parse(r.body) : undefined;
      return Array.isArray(ops)
        ? withBody(
            r,
            ops.filter((o) => o?.op !== 'test'),
          )
        : r;
    },
  },
  {
    name: 'json-patch-not-atomic',
    response: async (r, res, up) => {
      const ops = isPatch(r, JSON_PATCH) && res.status >= 400 ? parse(r.body) : undefined;
      if (!Array.isArray(ops)) return res;
      for (const op of ops) {
        const one = await up.send(withBody(r, [op]));
        if (one.status >= 400) break;
      }
      return res;
    },
  },
  {
    name: 'merge-patch-null-kept',
    request: (r) => {
      const body = isPatch(r, MERGE_PATCH) ? parse(r.body) : undefined;
      return body && typeof body === 'object' ? withBody(r, nullsToEmpty(body)) : r;
    },
  },
  // split: strategic-as-merge broke two rules at once (lists replaced on built-in kinds, custom
  // resources accepted); each half is a fault of its own
  {
    name: 'strategic-lists-replaced',
    request: (r) =>
      isPatch(r, STRATEGIC) && !isCustom(r)
        ? { ...r, headers: { ...r.headers, 'content-type': MERGE_PATCH } }
        : r,
  },
  {
    name: 'strategic-custom-resource-accepted',
    request: (r) =>
      isPatch(r, STRATEGIC) && isCustom(r)
        ? { ...r, headers: { ...r.headers, 'content-type': MERGE_PATCH } }
        : r,
  },
  {
    name: 'unknown-patch-type-as-merge',
    request: (r) =>
      r.method === 'PATCH' && r.body.length && !TABLE_TYPES.has(contentType(r))
        ? { ...r, headers: { ...r.headers, 'content-type': MERGE_PATCH } }
        : r,
  },
  {
    name: 'json-patch-move-as-copy',
    request: (r) => {
      const b = isPatch(r, JSON_PATCH) ? parse(r.body) : undefined;
      if (!Array.isArray(b) || !b.some((op) => op?.op === 'move')) return r;
      return withBody(
        r,
        b.map((op) => (op?.op === 'move' ? { ...op, op: 'copy' } : op)),
      );
    },
  },
  {
    name: 'json-patch-pointer-not-unescaped',
    request: (r) => {
      const b = isPatch(r, JSON_PATCH) ? parse(r.body) : undefined;
      if (!Array.isArray(b) || !b.some((op) => String(op?.path ?? '').includes('~1'))) return r;
      return withBody(
        r,
        b.map((op) => (typeof op?.path === 'string' ? { ...op, path: op.path.replaceAll('~1', '~01') } : op)),
      );
    },
  },
  {
    name: 'apply-patch-type-refused',
    request: (r) =>
      r.method === 'PATCH' && contentType(r) === 'application/apply-patch+yaml'
        ? divert(r, () =>
            failure(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format'),
          )
        : r,
    response: unlessDiverted,
  },
  {
    name: 'strategic-refused-on-builtin',
    request: (r) =>
      isPatch(r, STRATEGIC) && !isCustom(r)
        ? divert(r, () =>
            failure(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format'),
          )
        : r,
    response: unlessDiverted,
  },
  {
    name: 'json-patch-operations-reversed',
    request: (r) => {
      const b = isPatch(r, JSON_PATCH) ? parse(r.body) : undefined;
      return Array.isArray(b) && b.length > 1 && !b.some((op) => op?.op === 'test')
        ? withBody(r, [...b].reverse())
        : r;
    },
  },
  {
    name: 'json-patch-test-always-fails',
    request: (r) => {
      const b = isPatch(r, JSON_PATCH) ? parse(r.body) : undefined;
      return Array.isArray(b) && b.some((op) => op?.op === 'test')
        ? divert(r, () => failure(422, 'Invalid', 'the test operation failed'))
        : r;
    },
    response: unlessDiverted,
  },
];
