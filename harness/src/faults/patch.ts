// Faults against doc1's PATCH content types and update mechanisms, one rule each;
// suites/patch must catch every one.
import type { Fault, ProxiedRequest } from '../fault-proxy.ts';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const TABLE_TYPES = new Set([JSON_PATCH, MERGE_PATCH, STRATEGIC, 'application/apply-patch+yaml']);

const contentType = (r: ProxiedRequest) =>
  (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
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

export const PATCH_FAULTS: Fault[] = [
  {
    name: 'json-patch-test-ignored',
    breaks:
      'doc1 § Update mechanisms: a test operation gives conditional updates (the proxy removes test operations)',
    area: 'patch',
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
    breaks:
      'doc1 § Operations: JSON Patch (RFC 6902) is one patch (the operations before a failing one are applied one by one and stay)',
    area: 'patch',
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
    breaks: 'doc1 § Operations: JSON Merge Patch (RFC 7386), null deletes (the proxy rewrites null to "")',
    area: 'patch',
    request: (r) => {
      const body = isPatch(r, MERGE_PATCH) ? parse(r.body) : undefined;
      return body && typeof body === 'object' ? withBody(r, nullsToEmpty(body)) : r;
    },
  },
  {
    name: 'strategic-as-merge',
    breaks:
      'doc1 § Operations: Strategic Merge Patch, only for built-in APIs (treated as a JSON merge patch: lists replaced, custom resources accepted)',
    area: 'patch',
    request: (r) =>
      isPatch(r, STRATEGIC) ? { ...r, headers: { ...r.headers, 'content-type': MERGE_PATCH } } : r,
  },
  {
    name: 'unknown-patch-type-as-merge',
    breaks:
      'doc1 § Operations: PATCH content types are the four of the table (others are read as a merge patch)',
    area: 'patch',
    request: (r) =>
      r.method === 'PATCH' && r.body.length && !TABLE_TYPES.has(contentType(r))
        ? { ...r, headers: { ...r.headers, 'content-type': MERGE_PATCH } }
        : r,
  },
];
