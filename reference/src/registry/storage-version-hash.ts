// A resource's `storageVersionHash` in discovery (Kubernetes 1.28's StorageVersionHash): the
// first 8 bytes of the SHA-256 of `<group>/<version>/<Kind>` of the version its objects are
// stored at, base64. Every served version of a resource names the same one, so a client can
// tell when the stored form changes. Resources that keep nothing (bindings, reviews, component
// statuses) have none.
import { createHash } from 'node:crypto';
import { type ResourceDef, storageVersionOf } from './types.ts';

/**
 * Resources a 1.28 server stores at a version it no longer serves (its captured discovery's
 * hashes say so: CustomResourceDefinitions at v1beta1, EndpointSlices at v1beta1).
 */
const STORED_AT: Record<string, string> = {
  'apiextensions.orch.io/customresourcedefinitions': 'v1beta1',
  'discovery.orch.io/endpointslices': 'v1beta1',
};

export function storageVersionHash(def: ResourceDef, storedAsVersion?: string): string | undefined {
  if (!def.verbs.includes('get') || def.strategy.live) return undefined;
  const group = def.storedAs?.group ?? def.group;
  const version =
    (def.storedAs ? storedAsVersion : undefined) ??
    STORED_AT[`${def.group}/${def.plural}`] ??
    storageVersionOf(def) ??
    def.versions[0]!;
  return createHash('sha256')
    .update(`${group}/${version}/${def.kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}
