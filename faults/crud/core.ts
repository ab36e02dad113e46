// Faults against doc1's core rules that suites/crud catches.
import type { FaultHooks } from '../proxy.ts';

export const HOOKS: FaultHooks[] = [
  {
    name: 'stale-update-accepted',
    request: async (r) => r,
    response: async (r, res, up) => {
      if (r.method !== 'PUT' || res.status !== 409) return res;
      const body = JSON.parse(r.body.toString('utf8'));
      const cur = await up.send({ ...r, method: 'GET', body: Buffer.alloc(0) });
      const rv = JSON.parse(cur.body.toString('utf8'))?.metadata?.resourceVersion;
      body.metadata = { ...body.metadata, resourceVersion: rv };
      return up.send({ ...r, body: Buffer.from(JSON.stringify(body)) });
    },
  },
];
