// NodeRestriction (doc3 plugin table: "limits a node agent (user `system:node:<node-name>`, group
// `system:nodes`) to its own node and its bound workload units; no taint edits; reserved label
// prefixes"), in the shape of Kubernetes 1.28 for the kinds the reference serves:
// - nodes: a node agent writes only its own Node; an update may not change taints; it may not
//   set or change labels under `node-restriction.orch.io/`, nor other labels of the `orch.io`
//   domains than the well-known ones a node agent sets itself;
// - pods: it creates only mirror pods (annotation `orch.io/config.mirror`) bound to itself, with
//   no service account, secret, config map or claim references, and one controller owner
//   reference to its Node (its uid; blockOwnerDeletion unset);
//   updates status, evicts and deletes only pods bound to itself;
// - leases: only its own, in `orch-node-lease`.
// Requests of other users pass untouched. Refusals are 403, `<resource> "<name>" is forbidden:
// <why>`, worded as 1.28.

import { errors } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import { DIALECT } from '../../util/dialect.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { requestForbidden } from './support.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const NODE_PREFIX = 'system:node:';
export const MIRROR_ANNOTATION = 'orch.io/config.mirror';
export const NODE_LEASE_NAMESPACE = 'orch-node-lease';
const RESTRICTED_PREFIX = 'node-restriction.orch.io/';
const ALLOWED_LABELS = new Set([
  'orch.io/hostname',
  'orch.io/arch',
  'orch.io/os',
  'beta.orch.io/arch',
  'beta.orch.io/os',
  'beta.orch.io/instance-type',
  'node.orch.io/instance-type',
  'failure-domain.beta.orch.io/region',
  'failure-domain.beta.orch.io/zone',
  'topology.orch.io/region',
  'topology.orch.io/zone',
]);
/**
 * The domains whose labels are reserved, and the two of them a node agent may use. Kubernetes
 * reserves both of its spellings (`kubernetes.io`, `k8s.io`) and allows `node.kubernetes.io`,
 * where `node.orch.io` would map to the RuntimeClass group's `node.k8s.io`: chosen here.
 */
const RESERVED_DOMAINS = DIALECT === 'kubernetes' ? ['kubernetes.io', 'k8s.io'] : ['orch.io'];
const ALLOWED_LABEL_DOMAINS =
  DIALECT === 'kubernetes'
    ? ['kubelet.kubernetes.io', 'node.kubernetes.io']
    : ['kubelet.orch.io', 'node.orch.io'];

/** The node a user acts for, when it is a node agent. */
export function nodeOf(user: { username: string; groups?: string[] }): string | undefined {
  if (!user.username.startsWith(NODE_PREFIX) || !(user.groups ?? []).includes('system:nodes'))
    return undefined;
  const n = user.username.slice(NODE_PREFIX.length);
  return n || undefined;
}

/** Whether a node agent may not set this label itself (reserved, or an orch.io label it has no business with). */
function forbiddenLabel(key: string): boolean {
  if (key.startsWith(RESTRICTED_PREFIX)) return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  if (!RESERVED_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`))) return false;
  if (ALLOWED_LABELS.has(key)) return false;
  return !ALLOWED_LABEL_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
}

async function storedPod(registry: Registry, a: AdmissionAttributes): Promise<any> {
  if (a.oldObject) return a.oldObject;
  try {
    return await registry.byResource('', 'pods')!.store.get(a.namespace, a.name);
  } catch {
    return undefined;
  }
}

async function storedNode(registry: Registry, name: string): Promise<any> {
  try {
    return await registry.byResource('', 'nodes')!.store.get('', name);
  } catch {
    return undefined;
  }
}

function checkNode(a: AdmissionAttributes, node: string): void {
  if (a.name !== node)
    throw requestForbidden(
      a,
      `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(a.name)}`,
    );
  if (a.operation === 'DELETE') return;
  const now = (a.object?.metadata?.labels ?? {}) as Record<string, string>;
  if (a.operation === 'CREATE') {
    const bad = Object.keys(now).filter(forbiddenLabel).sort();
    if (bad.length)
      throw requestForbidden(
        a,
        `node ${JSON.stringify(node)} is not allowed to set the following labels: ${bad.join(', ')}`,
      );
    return;
  }
  const old = (a.oldObject?.metadata?.labels ?? {}) as Record<string, string>;
  if (
    JSON.stringify((a.object as any)?.spec?.taints ?? []) !==
    JSON.stringify((a.oldObject as any)?.spec?.taints ?? [])
  )
    throw requestForbidden(a, `node ${JSON.stringify(node)} is not allowed to modify taints`);
  const changed = [...new Set([...Object.keys(now), ...Object.keys(old)])].filter((k) => now[k] !== old[k]);
  const bad = changed.filter(forbiddenLabel).sort();
  if (bad.length)
    throw requestForbidden(
      a,
      `node ${JSON.stringify(node)} is not allowed to modify labels: ${bad.join(', ')}`,
    );
}

/** A node agent creates only mirror pods bound to itself, referring to nothing but its own Node. */
async function checkMirrorPod(registry: Registry, a: AdmissionAttributes, node: string): Promise<void> {
  const n = JSON.stringify(node);
  const pod = a.object as any;
  if (!pod?.metadata?.annotations?.[MIRROR_ANNOTATION])
    throw requestForbidden(
      a,
      `pod does not have "${MIRROR_ANNOTATION}" annotation, node ${n} can only create mirror pods`,
    );
  if (pod.spec?.nodeName !== node)
    throw requestForbidden(a, `node ${n} can only create pods with spec.nodeName set to itself`);
  const spec = pod.spec ?? {};
  // the server fills `default` into every pod that names none (there is no ServiceAccount
  // plugin to leave mirror pods alone), so only another account is the node agent's choice
  if (spec.serviceAccountName && spec.serviceAccountName !== 'default')
    throw requestForbidden(a, `node ${n} can not create pods that reference a service account`);
  const refs = JSON.stringify(spec);
  if (
    Array.isArray(spec.volumes) &&
    spec.volumes.some((v: any) => v?.secret || v?.configMap || v?.persistentVolumeClaim || v?.projected)
  )
    throw requestForbidden(
      a,
      `node ${n} can not create pods that reference secrets, configmaps, or persistentvolumeclaims`,
    );
  if (/"(secretKeyRef|configMapKeyRef|secretRef|configMapRef)"/.test(refs))
    throw requestForbidden(a, `node ${n} can not create pods that reference secrets or configmaps`);
  // a mirror pod is owned by its Node, named and with its uid (as a 1.28 node agent sets it)
  const owners = Array.isArray(pod.metadata?.ownerReferences) ? pod.metadata.ownerReferences : [];
  if (owners.length > 1)
    throw requestForbidden(a, `node ${n} can only create pods with a single owner reference set to itself`);
  const o = owners[0] ?? {};
  if (owners.length === 0 || o.apiVersion !== 'v1' || o.kind !== 'Node' || o.name !== node)
    throw requestForbidden(a, `node ${n} can only create pods with an owner reference set to itself`);
  if (o.controller !== true)
    throw requestForbidden(
      a,
      `node ${n} can only create pods with a controller owner reference set to itself`,
    );
  if (o.blockOwnerDeletion === true)
    throw requestForbidden(a, `node ${n} must not set blockOwnerDeletion on an owner reference`);
  const self = await storedNode(registry, node);
  if (!self) throw errors.notFound('', 'nodes', node);
  if (o.uid !== self.metadata?.uid)
    throw requestForbidden(
      a,
      `node ${node} UID mismatch: expected ${o.uid ?? ''} got ${self.metadata?.uid ?? ''}`,
    );
}

/** A node agent's request on pods: mirror pods of its own, and its bound pods' status, evictions and deletions. */
async function checkPod(registry: Registry, a: AdmissionAttributes, node: string): Promise<void> {
  const n = JSON.stringify(node);
  if (a.operation === 'CREATE' && !a.subresource) return checkMirrorPod(registry, a, node);
  if (a.operation === 'CREATE' && a.subresource === 'eviction') {
    const pod = await storedPod(registry, a);
    if (pod && pod.spec?.nodeName !== node)
      throw requestForbidden(a, `node ${n} can only evict pods with spec.nodeName set to itself`);
    return;
  }
  if (a.operation === 'UPDATE' && a.subresource === 'status') {
    if ((a.oldObject as any)?.spec?.nodeName !== node)
      throw requestForbidden(
        a,
        `node ${n} can only update pod status for pods with spec.nodeName set to itself`,
      );
    return;
  }
  if (a.operation === 'DELETE' && !a.subresource) {
    const pod = await storedPod(registry, a);
    if (pod && pod.spec?.nodeName !== node)
      throw requestForbidden(a, `node ${n} can only delete pods with spec.nodeName set to itself`);
    return;
  }
  throw requestForbidden(
    a,
    `unexpected operation ${a.operation}${a.subresource ? `, subresource ${a.subresource}` : ''}`,
  );
}

function checkLease(a: AdmissionAttributes, node: string): void {
  if (a.namespace !== NODE_LEASE_NAMESPACE)
    throw requestForbidden(
      a,
      `can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`,
    );
  if (a.name !== node)
    throw requestForbidden(a, `can only access node lease with the same name as the requesting node`);
}

export function nodeRestriction(env: { registry: Registry }): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    handles: (a) => nodeOf(a.ctx.user) !== undefined,
    async validate(a) {
      const node = nodeOf(a.ctx.user)!;
      const r = a.resource;
      if (r.group === '' && r.resource === 'nodes') return checkNode(a, node);
      if (r.group === '' && r.resource === 'pods') return checkPod(env.registry, a, node);
      if (r.group === 'coordination.orch.io' && r.resource === 'leases') return checkLease(a, node);
    },
  };
}
