// `matchPolicy: Equivalent` (doc3 "Webhook configuration objects"): a request matches a rule
// written for the same resource served under another version or group of this server (the
// versions of one kind, and a kind served under two group names over one storage), and the
// webhook then sees the object converted to the version it registered for. Versions switched
// off are not equivalent.
import type { Registry } from '../../registry/registry.ts';
import { apiVersionOf, bucketName, type ResourceDef } from '../../registry/types.ts';
import type { KObject } from '../../storage/types.ts';
import type { GroupVersionKind, GroupVersionResource } from '../types.ts';

export interface Equivalent {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  /** The request's object in this version's shape. */
  convert(o: KObject): KObject;
  /** An object of this version in the request's shape. */
  back(o: KObject): KObject;
}

/** The storage shape of an object of `def` read at `version`. */
function toBucket(def: ResourceDef, version: string, o: KObject): KObject {
  let out = def.versionInfo?.[version]?.toStorage?.(o) ?? o;
  if (def.storedAs) out = def.storedAs.toStorage(out);
  return out;
}

function fromBucket(def: ResourceDef, version: string, o: KObject): KObject {
  let out = def.storedAs ? def.storedAs.fromStorage(o) : o;
  out = def.versionInfo?.[version]?.fromStorage?.(out) ?? out;
  const { apiVersion: _a, kind: _k, ...rest } = out;
  return { apiVersion: apiVersionOf(def.group, version), kind: def.kind, ...rest } as KObject;
}

/** Per registry: the equivalents of each requested form, until a resource is added or removed. */
const caches = new WeakMap<Registry, Map<string, Equivalent[]>>();

/** Every other served form of the requested resource (the request's own form excluded). */
export function equivalentsOf(
  registry: Registry,
  requested: GroupVersionResource,
  requestedKind: GroupVersionKind,
  subresource: string,
): Equivalent[] {
  let cache = caches.get(registry);
  if (!cache) {
    const fresh = new Map<string, Equivalent[]>();
    cache = fresh;
    caches.set(registry, fresh);
    registry.changed(() => fresh.clear());
  }
  const key = JSON.stringify([requested, requestedKind, subresource]);
  let hit = cache.get(key);
  if (!hit) {
    hit = findEquivalents(registry, requested, requestedKind, subresource);
    cache.set(key, hit);
  }
  return hit;
}

function findEquivalents(
  registry: Registry,
  requested: GroupVersionResource,
  requestedKind: GroupVersionKind,
  subresource: string,
): Equivalent[] {
  const own = registry.lookup(requested.group, requested.version, requested.resource);
  if (!own) return [];
  const bucket = bucketName(own.def);
  const out: Equivalent[] = [];
  // a subresource other than status has its own kind (Scale, Eviction), which does not change
  const keepsKind = subresource !== '' && subresource !== 'status';
  for (const served of registry.all()) {
    const def = served.def;
    if (bucketName(def) !== bucket) continue;
    if (subresource && !def.subresources.includes(subresource)) continue;
    for (const version of def.versions) {
      if (def.group === requested.group && version === requested.version && def.plural === requested.resource)
        continue;
      if (!registry.servesGroupVersion(def.group, version)) continue;
      if (def.versionInfo?.[version]?.served === false) continue;
      out.push({
        resource: { group: def.group, version, resource: def.plural },
        kind: keepsKind ? requestedKind : { group: def.group, version, kind: def.kind },
        convert: keepsKind
          ? (o) => o
          : (o) => fromBucket(def, version, toBucket(own.def, requested.version, o)),
        back: keepsKind ? (o) => o : (o) => fromBucket(own.def, requested.version, toBucket(def, version, o)),
      });
    }
  }
  return out;
}
