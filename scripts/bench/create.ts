// CREATE: one ConfigMap a request, against the bare server answering the same bytes.
import type { AutocannonRequest } from 'autocannon';
import { bareRoute, call, cmPath, configMapBody, ensureNamespace, must, setRoutes } from './http.ts';
import { type CompareOpts, type Comparison, compare } from './measure.ts';
import { loadUrl, type ServerProc } from './process.ts';
export async function benchCreate(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  name = 'CREATE (fsync)',
): Promise<Comparison> {
  const ns = 'create';
  await ensureNamespace(orch, ns);
  const captured = await must(call(orch, 'POST', cmPath(ns), configMapBody('probe', 0)), 201);
  await setRoutes(bare, [bareRoute(`POST ${cmPath(ns)}`, captured)]);
  let n = 0;
  const run = Date.now().toString(36);
  return compare(name, orch, bare, o, captured.body.length, (s) => ({
    url: loadUrl(s),
    connections: o.connections,
    requests: [
      {
        method: 'POST',
        path: cmPath(ns),
        headers: { authorization: `Bearer ${orch.token}`, 'content-type': 'application/json' },
        setupRequest: (req: AutocannonRequest) => {
          const i = n++;
          return { ...req, body: configMapBody(`c-${run}-${i}`, i) };
        },
      },
    ],
  }));
}
