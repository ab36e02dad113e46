// What the authorization cases share: RBAC objects of their own making (removed after the
// file), and the users they act as (through impersonation by the run's credentials).
import { afterAll } from 'vitest';
import { checkStatus } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';
import { session } from '../../harness/src/session.ts';

export const RBAC = '/apis/rbac.authorization.orch.io/v1';
export const WHAT =
  'Authentication identifies the caller of each API request; authorization then decides what it may do (role-based authorization: not shown; Kubernetes 1.28, rbac.authorization.k8s.io/v1)';

export interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export type Subject =
  | { kind: 'User' | 'Group'; name: string }
  | { kind: 'ServiceAccount'; name: string; namespace: string };

const subjectOf = (s: Subject) =>
  s.kind === 'ServiceAccount' ? s : { ...s, apiGroup: 'rbac.authorization.orch.io' };

/** Creates RBAC objects and deletes the cluster-scoped ones after the file (namespaced ones go with the namespace). */
export function rbacObjects() {
  const clusterScoped: string[] = [];
  afterAll(async () => {
    for (const p of clusterScoped)
      await session()
        .delete(p)
        .catch(() => undefined);
  });
  const create = async (c: Client, path: string, body: unknown, what: string, clusterWide: boolean) => {
    const r = await c.post(path, body);
    checkStatus(r, 201, undefined, `create ${what}`);
    if (clusterWide) clusterScoped.push(`${path}/${(body as { metadata: { name: string } }).metadata.name}`);
  };
  return {
    role: (c: Client, ns: string, name: string, rules: Rule[]) =>
      create(
        c,
        `${RBAC}/namespaces/${ns}/roles`,
        { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'Role', metadata: { name }, rules },
        `Role ${ns}/${name}`,
        false,
      ),
    clusterRole: (c: Client, name: string, rules: Rule[], labels?: Record<string, string>) =>
      create(
        c,
        `${RBAC}/clusterroles`,
        {
          apiVersion: 'rbac.authorization.orch.io/v1',
          kind: 'ClusterRole',
          metadata: { name, ...(labels ? { labels } : {}) },
          rules,
        },
        `ClusterRole ${name}`,
        true,
      ),
    roleBinding: (
      c: Client,
      ns: string,
      name: string,
      role: { kind: 'Role' | 'ClusterRole'; name: string },
      subjects: Subject[],
    ) =>
      create(
        c,
        `${RBAC}/namespaces/${ns}/rolebindings`,
        {
          apiVersion: 'rbac.authorization.orch.io/v1',
          kind: 'RoleBinding',
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.orch.io', ...role },
          subjects: subjects.map(subjectOf),
        },
        `RoleBinding ${ns}/${name}`,
        false,
      ),
    clusterRoleBinding: (c: Client, name: string, role: string, subjects: Subject[]) =>
      create(
        c,
        `${RBAC}/clusterrolebindings`,
        {
          apiVersion: 'rbac.authorization.orch.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: role },
          subjects: subjects.map(subjectOf),
        },
        `ClusterRoleBinding ${name}`,
        true,
      ),
  };
}

/**
 * RBAC decisions are made from the server's view of the RBAC objects, which may trail a
 * write by a moment (Kubernetes' authorizer reads an informer cache): retries `probe` until
 * it answers `want` or 5 s pass, and returns the last answer.
 */
export async function settle<T>(probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  let v = await probe();
  while (!done(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = await probe();
  }
  return v;
}
