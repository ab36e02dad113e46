// Test fixtures: a namespace per test file (created before, deleted after unless the run's
// targets are disposable), object builders and collection paths.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Client } from './client.ts';
import { session } from './session.ts';
import { DISPOSABLE_ENV } from './targets.ts';

/** Removes a namespace a suite made once its cases are done with it (best effort; not on a disposable target). */
export async function dropNamespace(client: Client, name: string): Promise<void> {
  if (process.env[DISPOSABLE_ENV] === '1') return;
  try {
    await client.delete(`/api/v1/namespaces/${name}`, { timeoutMs: 5_000 });
  } catch {
    // best effort: the endpoint may be gone already
  }
}

export interface NamespaceFixture {
  /** The namespace's name (set once beforeAll has run; throws why when it could not be created). */
  readonly name: string;
}

/**
 * A fresh namespace for the cases of one file. When the endpoint cannot create it, each case
 * that reads `name` fails with why (a failing beforeAll would leave the cases skipped with no
 * reason in the report).
 */
export function useNamespace(prefix = 'conf'): NamespaceFixture {
  let created = '';
  let failure: Error | undefined;
  const ns: NamespaceFixture = {
    get name() {
      if (failure) throw failure;
      return created;
    },
  };
  beforeAll(async () => {
    const c = session();
    const name = `${prefix}-${randomBytes(4).toString('hex')}`.slice(0, 63);
    try {
      const r = await c.post('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      if (r.status !== 201) throw new Error(r.describe());
      created = name;
    } catch (e) {
      failure = new Error(`fixture: cannot create namespace ${name}: ${(e as Error).message}`);
    }
  });
  afterAll(async () => {
    if (created) await dropNamespace(session(), created);
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
