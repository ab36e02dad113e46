// Faults against doc1 § Dry run, one rule each; suites/dry-run must catch every one.
// (ignore-dry-run lives in doc1-core.ts.)
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
import { mapJson } from '../util.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A write with a valid dryRun (All, or bare): another value is refused, which is another rule. */
const isDryRun = (r: ProxiedRequest) =>
  WRITES.has(r.method) && ['All', ''].includes(r.url.searchParams.get('dryRun') ?? 'unset');

function withoutDryRun(r: ProxiedRequest): ProxiedRequest {
  const url = new URL(r.url);
  url.searchParams.delete('dryRun');
  return { ...r, url };
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'dry-run-persists',
    response: async (r, res, up) => {
      if (isDryRun(r) && res.status < 300) await up.send(withoutDryRun(r));
      return res;
    },
  },
  {
    name: 'bare-dry-run-ignored',
    request: (r) =>
      isDryRun(r) && r.url.searchParams.getAll('dryRun').every((v) => v === '') ? withoutDryRun(r) : r,
  },
  {
    name: 'dry-run-skips-validation',
    response: (r, res) => {
      if (!isDryRun(r) || r.method === 'DELETE' || (res.status !== 400 && res.status !== 422)) return res;
      return {
        status: r.method === 'POST' ? 201 : 200,
        headers: { 'content-type': 'application/json' },
        body: r.body.length ? r.body : Buffer.from('{}'),
      };
    },
  },
  {
    name: 'dry-run-create-200',
    response: (r, res) =>
      isDryRun(r) && r.method === 'POST' && res.status === 201 ? { ...res, status: 200 } : res,
  },
  {
    name: 'dry-run-no-final-object',
    response: (r, res) =>
      isDryRun(r) && r.method !== 'DELETE' && res.status < 300
        ? mapJson(res, () => ({
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Success',
            code: res.status,
          }))
        : res,
  },
];
