// Test fixtures: a namespace per test file (created before, deleted after), object builders
// and collection paths.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { session } from './session.ts';

export interface NamespaceFixture {
  /** The namespace's name (set once beforeAll has run). */
  name: string;
}

/** A fresh namespace for the cases of one file. */
export function useNamespace(prefix = 'conf'): NamespaceFixture {
  const ns: NamespaceFixture = { name: '' };
  beforeAll(async () => {
    const c = session();
    const name = `${prefix}-${randomBytes(4).toString('hex')}`.slice(0, 63);
    const r = await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (r.status !== 201) throw new Error(`fixture: cannot create namespace ${name}: ${r.describe()}`);
    ns.name = name;
  });
  afterAll(async () => {
    if (!ns.name) return;
    try {
      await session().delete(`/api/v1/namespaces/${ns.name}`, { timeoutMs: 5_000 });
    } catch {
      // best effort: the endpoint may be gone already
    }
  });
  return ns;
}

export function uniqueName(prefix = 'obj'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  };
}

export const paths = {
  configmaps: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`,
  configmap: (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`,
  allConfigmaps: () => '/api/v1/configmaps',
  namespaces: () => '/api/v1/namespaces',
  namespace: (name: string) => `/api/v1/namespaces/${name}`,
};
