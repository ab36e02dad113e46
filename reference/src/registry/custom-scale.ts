// The scale subresource of custom resources: a Scale read from, and replicas written to,
// the paths the definition names.
import type { KObject } from '../storage/types.ts';
import type { CustomResource, ScaleSpec } from './custom-types.ts';
import type { ScaleAccess } from './types.ts';

const SCALE_API_VERSION = 'autoscaling/v1';

function pathSegments(p: string): string[] {
  return p.replace(/^\./, '').split('.').filter(Boolean);
}

function getPath(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of pathSegments(path)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function setPath(o: Record<string, unknown>, path: string, value: unknown): void {
  const segs = pathSegments(path);
  let cur = o;
  for (const k of segs.slice(0, -1)) {
    const next = cur[k];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]!] = value;
}

function toScale(o: KObject, sc: ScaleSpec): Record<string, unknown> {
  const specReplicas = getPath(o, sc.specReplicasPath);
  const statusReplicas = getPath(o, sc.statusReplicasPath);
  const metadata: Record<string, unknown> = { name: o.metadata.name };
  if (o.metadata.namespace) metadata.namespace = o.metadata.namespace;
  metadata.uid = o.metadata.uid;
  metadata.resourceVersion = o.metadata.resourceVersion;
  metadata.creationTimestamp = o.metadata.creationTimestamp;
  const spec: Record<string, unknown> = {};
  if (typeof specReplicas === 'number' && Math.trunc(specReplicas) !== 0)
    spec.replicas = Math.trunc(specReplicas);
  const status: Record<string, unknown> = {
    replicas: typeof statusReplicas === 'number' ? Math.trunc(statusReplicas) : 0,
  };
  if (sc.labelSelectorPath) {
    const sel = getPath(o, sc.labelSelectorPath);
    if (typeof sel === 'string' && sel) status.selector = sel;
  }
  return { kind: 'Scale', apiVersion: SCALE_API_VERSION, metadata, spec, status };
}

/** The scale subresource of a custom resource: per version, the paths its definition names. */
export function scaleAccess(cr: CustomResource): ScaleAccess {
  return {
    toScale: (o, version) => {
      const sc = cr.versions.get(version)?.scale;
      return sc ? (toScale(o, sc) as KObject) : undefined;
    },
    setReplicas: (o, replicas, version) => {
      const sc = cr.versions.get(version)?.scale;
      if (sc) setPath(o as Record<string, unknown>, sc.specReplicasPath, replicas);
    },
    patchTypes: ['application/json-patch+json', 'application/merge-patch+json'],
  };
}
