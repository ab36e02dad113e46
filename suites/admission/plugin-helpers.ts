// What the admission plugin cases share: where the plugin table is, namespaces and RBAC grants
// made through the case's own client (a case may run on a target other than the main one), and
// the Warning headers of an answer.
import { checkStatus } from '../../harness/src/assert.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';

export const SECTION = 'Webhook configuration objects';
const RBAC = '/apis/rbac.authorization.orch.io/v1';

/** A plugin table row, as the case's place: `<Plugin> | <Kind> | <Behaviour>`. */
export const row = (plugin: string, kind: string, behaviour: string) =>
  `Plugin behaviours: ${plugin} | ${kind} | ${behaviour}`;

/** Makes a namespace with these labels; returns its name and a function that removes it. */
export async function namespace(c: Client, prefix: string, labels: Record<string, string> = {}) {
  const name = uniqueName(prefix);
  const r = await c.post('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
  });
  checkStatus(r, 201, undefined, `setup: namespace ${name}`);
  return { name, remove: () => dropNamespace(c, name) };
}

export interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/** Grants a user or group these rules cluster-wide; returns a function that takes them back. */
export async function grant(c: Client, subject: { kind: 'User' | 'Group'; name: string }, rules: Rule[]) {
  const name = uniqueName('plugin-grant');
  const role = await c.post(`${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules,
  });
  checkStatus(role, 201, undefined, `setup: ClusterRole ${name}`);
  const binding = await c.post(`${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name },
    subjects: [{ ...subject, apiGroup: 'rbac.authorization.orch.io' }],
  });
  checkStatus(binding, 201, undefined, `setup: ClusterRoleBinding ${name}`);
  return async () => {
    await c.delete(`${RBAC}/clusterrolebindings/${name}`);
    await c.delete(`${RBAC}/clusterroles/${name}`);
  };
}

/**
 * Retries a write until RBAC has caught up with a grant (the authorizer may read a cache that
 * trails the write by a moment): until `done` holds or 5 s pass; returns the last answer.
 */
export async function settle(
  write: () => Promise<Response>,
  done: (r: Response) => boolean,
): Promise<Response> {
  const until = Date.now() + 5_000;
  let r = await write();
  while (!done(r) && Date.now() < until) {
    await new Promise((res) => setTimeout(res, 100));
    r = await write();
  }
  return r;
}

/** Every Warning header of an answer, as one text (warnings hold commas, so they are not split). */
export function warningsOf(r: Response): string {
  const h = r.headers.warning ?? r.headers.Warning;
  return (Array.isArray(h) ? h : h ? [h] : []).join('\n').replace(/\\"/g, '"');
}
