// GET one object: as the admin, and as an ordinary user through RBAC and every authenticator.
import { bareRoute, call, cmPath, configMapBody, ensureNamespace, must, setRoutes } from './http.ts';
import { type CompareOpts, type Comparison, compare, sleep } from './measure.ts';
import { loadUrl, type ServerProc } from './process.ts';

export async function benchGet(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  as: { name: string; token: string; query?: string } = { name: 'GET one object', token: orch.token },
): Promise<Comparison> {
  await ensureNamespace(orch, 'bench');
  await must(call(orch, 'POST', cmPath('bench'), configMapBody('one', 1)), 201, 409);
  const path = `${cmPath('bench')}/one${as.query ? `?${as.query}` : ''}`;
  const captured = await must(call({ url: orch.url, token: as.token }, 'GET', path), 200);
  await setRoutes(bare, [bareRoute(`GET ${path}`, captured)]);
  const fromBare = await must(call(bare, 'GET', path), 200);
  if (!fromBare.body.equals(captured.body)) throw new Error('bare GET bytes differ from the server');
  return compare(as.name, orch, bare, o, captured.body.length, (s) => ({
    url: loadUrl(s),
    connections: o.connections,
    requests: [{ method: 'GET', path, headers: { authorization: `Bearer ${as.token}` } }],
  }));
}

/**
 * GET as an ordinary user on a server with every authentication method of the fixtures and
 * role-based authorization on: a token-file user granted `get configmaps` by a Role (the
 * admin token, of system:masters, would pass authorization without looking at a rule).
 */
export async function benchGetAuthorized(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  user: { name: string; token: string },
): Promise<Comparison> {
  await ensureNamespace(orch, 'bench');
  const rbac = '/apis/rbac.authorization.orch.io/v1/namespaces/bench';
  await must(
    call(orch, 'POST', `${rbac}/roles`, {
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'Role',
      metadata: { name: 'bench-reader' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
    }),
    201,
    409,
  );
  await must(
    call(orch, 'POST', `${rbac}/rolebindings`, {
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bench-reader' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'bench-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: user.name }],
    }),
    201,
    409,
  );
  await must(call(orch, 'POST', cmPath('bench'), configMapBody('one', 1)), 201, 409);
  // the binding takes effect through the authorizer's watch: wait for it
  for (let i = 0; i < 100; i++) {
    if ((await call({ url: orch.url, token: user.token }, 'GET', `${cmPath('bench')}/one`)).status === 200)
      break;
    await sleep(50);
  }
  return benchGet(orch, bare, o, { name: 'GET one object, RBAC and every authenticator', token: user.token });
}
