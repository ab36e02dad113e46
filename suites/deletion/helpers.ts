// Helpers of the deletion suite: ConfigMaps held by finalizers, ways to remove a finalizer
// (PUT, merge patch, JSON Patch), bounded polling, and a namespace kept Terminating by a held
// object for the time of a case.
import { randomBytes } from 'node:crypto';
import { check, checkStatus, isRfc3339, show } from '../../harness/src/assert.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { configMap, paths, uniqueName } from '../../harness/src/fixtures.ts';

/** Finalizer names are domain-qualified, as Kubernetes requires for non-standard ones. */
export const fin = (n: string) => `conformance.orch.io/${n}`;

export function heldConfigMap(name: string, finalizers: string[], data: Record<string, string> = {}) {
  const o = configMap(name, data);
  return { ...o, metadata: { ...o.metadata, finalizers } };
}

export async function createHeld(
  client: Client,
  ns: string,
  finalizers: string[],
  name = uniqueName('held'),
) {
  const r = await client.post(paths.configmaps(ns), heldConfigMap(name, finalizers));
  checkStatus(r, 201, undefined, `setup: create ConfigMap ${name} with finalizers ${show(finalizers)}`);
  return r.json;
}

export type Removal = 'put' | 'merge-patch' | 'json-patch';

/** Removes one finalizer with the given mechanism (retrying a PUT that lost a race). */
export async function removeFinalizer(
  client: Client,
  path: string,
  finalizer: string,
  how: Removal = 'put',
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const g = await client.get(path);
    checkStatus(g, 200, undefined, `read ${path} before removing ${finalizer}`);
    const current: string[] = g.json.metadata.finalizers ?? [];
    const rest = current.filter((f) => f !== finalizer);
    let r: Response;
    if (how === 'put') {
      r = await client.put(path, { ...g.json, metadata: { ...g.json.metadata, finalizers: rest } });
    } else if (how === 'merge-patch') {
      r = await client.patch(
        path,
        {
          metadata: {
            finalizers: rest.length ? rest : null,
            resourceVersion: g.json.metadata.resourceVersion,
          },
        },
        'application/merge-patch+json',
      );
    } else {
      const i = current.indexOf(finalizer);
      r = await client.patch(
        path,
        [
          { op: 'test', path: `/metadata/finalizers/${i}`, value: finalizer },
          { op: 'remove', path: `/metadata/finalizers/${i}` },
        ],
        'application/json-patch+json',
      );
    }
    if (r.status !== 409 || attempt >= 4) return r;
  }
}

/** Polls until `done` holds; false after timeoutMs. */
export async function poll(
  done: () => Promise<boolean>,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function createNamespace(client: Client, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const r = await client.post(paths.namespaces(), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  checkStatus(r, 201, undefined, `setup: create namespace ${name}`);
  return name;
}

export const HOLD = fin('hold');

/**
 * A namespace whose deletion was requested while a ConfigMap held by a finalizer is in it, so
 * it stays Terminating until `release` removes that finalizer. `fn` runs while it is. The
 * ConfigMaps named in `free` (no finalizers) are created in it before the delete request.
 */
export async function withTerminatingNamespace(
  client: Client,
  fn: (t: { ns: string; held: string; release: () => Promise<void> }) => Promise<void>,
  free: string[] = [],
): Promise<void> {
  const ns = await createNamespace(client, 'del-term');
  const held = (await createHeld(client, ns, [HOLD])).metadata.name as string;
  for (const n of free)
    checkStatus(
      await client.post(paths.configmaps(ns), configMap(n)),
      201,
      undefined,
      `setup: create ConfigMap ${n}`,
    );
  const release = async () => {
    const g = await client.get(paths.configmap(ns, held));
    if (g.status === 200 && (g.json.metadata.finalizers ?? []).includes(HOLD))
      await removeFinalizer(client, paths.configmap(ns, held), HOLD);
  };
  try {
    const d = await client.delete(paths.namespace(ns));
    checkStatus(d, [200, 202], undefined, `setup: delete namespace ${ns}`);
    const g = await client.get(paths.namespace(ns));
    check(
      g.status === 200 && isRfc3339(g.json.metadata?.deletionTimestamp),
      `namespace ${ns} still present with deletionTimestamp set (it holds ${held}, which has a finalizer)`,
      g.describe(),
      'setup: a namespace being deleted',
    );
    await fn({ ns, held, release });
  } finally {
    await release().catch(() => undefined);
  }
}

/** Removes every finalizer from the ConfigMaps of a namespace, so nothing a case held stays stuck. */
export async function releaseAll(client: Client, ns: string): Promise<void> {
  if (!ns) return;
  const l = await client.get(paths.configmaps(ns));
  for (const o of l.json?.items ?? []) {
    if (!o.metadata.finalizers?.length) continue;
    await client.patch(
      paths.configmap(ns, o.metadata.name),
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
  }
}
