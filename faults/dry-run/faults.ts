// Faults against doc1 § Dry run, one rule each; suites/dry-run must catch every one.
// (ignore-dry-run lives in doc1-core.ts.)
import type { Fault, ProxiedRequest } from '../proxy.ts';
import { DRY_RUN_WRITE_CASES, mapJson } from '../util.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A write with a valid dryRun (All, or bare): another value is refused, which is another rule. */
const isDryRun = (r: ProxiedRequest) =>
  WRITES.has(r.method) && ['All', ''].includes(r.url.searchParams.get('dryRun') ?? 'unset');

function withoutDryRun(r: ProxiedRequest): ProxiedRequest {
  const url = new URL(r.url);
  url.searchParams.delete('dryRun');
  return { ...r, url };
}

export const FAULTS: Fault[] = [
  {
    name: 'dry-run-persists',
    breaks: 'doc1 § Dry run: every stage runs except persisting (the proxy also sends the request for real)',
    area: 'dry-run',
    catchers: [...DRY_RUN_WRITE_CASES, 'dry-run/generate-name', 'dry-run/watch/no-events'],
    response: async (r, res, up) => {
      if (isDryRun(r) && res.status < 300) await up.send(withoutDryRun(r));
      return res;
    },
  },
  {
    name: 'bare-dry-run-ignored',
    breaks: 'doc1 § Dry run: a bare `dryRun` is also accepted (the proxy drops a dryRun without value)',
    area: 'dry-run',
    catchers: ['dry-run/post/bare', 'dry-run/put/bare', 'dry-run/patch/bare', 'dry-run/delete/bare'],
    request: (r) =>
      isDryRun(r) && r.url.searchParams.getAll('dryRun').every((v) => v === '') ? withoutDryRun(r) : r,
  },
  {
    name: 'dry-run-skips-validation',
    breaks:
      'doc1 § Dry run: validation runs under dry run (an invalid dry-run request is answered as a success echoing the body)',
    area: 'dry-run',
    catchers: ['dry-run/validation/'],
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
    breaks: 'doc1 § Dry run: the normal status code is returned (a dry-run create answers 200, not 201)',
    area: 'dry-run',
    catchers: ['dry-run/post/all', 'dry-run/post/bare', 'dry-run/generate-name'],
    response: (r, res) =>
      isDryRun(r) && r.method === 'POST' && res.status === 201 ? { ...res, status: 200 } : res,
  },
  {
    name: 'dry-run-no-final-object',
    breaks: 'doc1 § Dry run: the final object is returned (a dry-run write answers a bare success Status)',
    area: 'dry-run',
    catchers: [
      'dry-run/post/all',
      'dry-run/post/bare',
      'dry-run/put/all',
      'dry-run/put/bare',
      'dry-run/patch/all',
      'dry-run/patch/bare',
      'dry-run/generate-name',
    ],
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
