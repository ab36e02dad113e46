// GET and CREATE against a real kube-apiserver (kube.ts), both sides over HTTPS: the reference
// (durable store, fdatasync before every answer) beside kube-apiserver 1.28 on etcd 3.4, the same
// requests from the same load generator in alternating rounds (measure.ts); the ratio is the
// reference's requests per second over kube-apiserver's.
import { call, cmPath, configMapBody, ensureNamespace, must } from './http.ts';
import { type CompareOpts, type Comparison, compare } from './measure.ts';
import type { ServerProc } from './process.ts';

export async function benchVersusKube(
  orch: ServerProc,
  kube: ServerProc,
  getOpts: CompareOpts,
  createOpts: CompareOpts,
): Promise<{ get: Comparison; create: Comparison }> {
  let bytes = 0;
  for (const s of [orch, kube]) {
    await ensureNamespace(s, 'bench');
    await ensureNamespace(s, 'create');
    await must(call(s, 'POST', cmPath('bench'), configMapBody('one', 1)), 201, 409);
    const r = await must(call(s, 'GET', `${cmPath('bench')}/one`), 200);
    if (s === orch) bytes = r.body.length;
  }
  const path = `${cmPath('bench')}/one`;
  const get = await compare('GET one object, HTTPS', orch, kube, getOpts, bytes, (s) => ({
    url: s.url,
    connections: getOpts.connections,
    requests: [{ method: 'GET', path, headers: { authorization: `Bearer ${s.token}` } }],
  }));
  let n = 0;
  const run = Date.now().toString(36);
  const created = await must(call(orch, 'POST', cmPath('create'), configMapBody(`probe-${run}`, 0)), 201);
  const create = await compare('CREATE, HTTPS', orch, kube, createOpts, created.body.length, (s) => ({
    url: s.url,
    connections: createOpts.connections,
    requests: [
      {
        method: 'POST',
        path: cmPath('create'),
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        setupRequest: (req) => {
          const i = n++;
          return { ...req, body: configMapBody(`c-${run}-${i}`, i) };
        },
      },
    ],
  }));
  return { get, create };
}
