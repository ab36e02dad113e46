// The cluster roles, bindings, roles and role bindings a fresh server creates (Kubernetes
// 1.28's bootstrap policy, in the orch words: defaults.json), created at start when missing
// so a durable server that restarts keeps what it has (and what was changed) without
// duplicating anything.
import { unlessExists } from '../../errors/status.ts';
import { RBAC_GROUP } from '../../registry/kinds/rbac-common.ts';
import type { Registry } from '../../registry/registry.ts';
import type { RequestContext } from '../../registry/types.ts';
import type { KObject } from '../../storage/types.ts';
import { dataFileText } from '../../util/data-file.ts';

interface DefaultObject {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

interface Defaults {
  clusterroles: DefaultObject[];
  clusterrolebindings: DefaultObject[];
  roles: DefaultObject[];
  rolebindings: DefaultObject[];
}

const KINDS: [keyof Defaults, string][] = [
  ['clusterroles', 'ClusterRole'],
  ['clusterrolebindings', 'ClusterRoleBinding'],
  ['roles', 'Role'],
  ['rolebindings', 'RoleBinding'],
];

const SYSTEM: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};

let text: string | undefined;

/** The default policy objects: read once, parsed at each call (the caller owns what it gets). */
export function rbacDefaults(): Defaults {
  text ??= dataFileText(new URL('./defaults.json', import.meta.url));
  return JSON.parse(text) as Defaults;
}

/** The default object as the API shows it (made of `d`, which it takes over). */
function toObject(kind: string, d: DefaultObject): KObject {
  const { name, namespace, labels, annotations, ...fields } = d;
  const metadata: KObject['metadata'] = { name };
  if (namespace) metadata.namespace = namespace;
  if (labels) metadata.labels = labels;
  if (annotations) metadata.annotations = annotations;
  return { apiVersion: `${RBAC_GROUP}/v1`, kind, metadata, ...fields } as KObject;
}

/** Creates every default object that does not exist; returns how many were created. */
export async function ensureDefaults(registry: Registry): Promise<number> {
  const defaults = rbacDefaults();
  // all at once: a durable store commits them together rather than one sync each
  const writes: Promise<unknown>[] = [];
  for (const [plural, kind] of KINDS) {
    const store = registry.byResource(RBAC_GROUP, plural)?.store;
    if (!store) continue;
    for (const d of defaults[plural]) {
      const ns = d.namespace ?? '';
      if (!store.getStored(ns, d.name))
        writes.push(unlessExists(store.create(ns, toObject(kind, d), SYSTEM, 'v1')));
    }
  }
  await Promise.all(writes);
  return writes.length;
}
