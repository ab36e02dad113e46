// CSIDriver (storage.orch.io/v1): what the cluster knows of an installed CSI volume driver.
// Cluster-scoped; the object's name is the driver's name (at most 63 characters, a DNS
// subdomain in any case). Defaults as Kubernetes 1.28 sets them; attachRequired,
// podInfoOnMount, fsGroupPolicy and volumeLifecycleModes never change, and a change of the
// fields that may change (tokenRequests, requiresRepublish, seLinuxMount) advances the
// generation.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import { nameProblem } from '../validation.ts';
import { Causes, immutable } from './common.ts';
import { defineKind, printed } from './define.ts';
import { goSlice } from './go-syntax.ts';

export interface CSIDriverSpec {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  volumeLifecycleModes?: string[];
  storageCapacity?: boolean;
  fsGroupPolicy?: string;
  tokenRequests?: { audience?: string; expirationSeconds?: number }[];
  requiresRepublish?: boolean;
  seLinuxMount?: boolean;
}

const schema = builtinSchema('storage.orch.io/v1', 'CSIDriver');

export const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
export const VOLUME_LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;

const specOf = (o: KObject) => (o.spec ?? {}) as CSIDriverSpec;

/** A CSI driver's name: at most 63 characters, a DNS subdomain once lower-cased. */
export function csiDriverName(field: string, name: string | undefined): Causes {
  const v = name ?? '';
  const out = new Causes();
  if (!v) out.required(field);
  if (v.length > 63) out.tooLong(field, 63);
  const p = nameProblem(v.toLowerCase(), 'subdomain');
  if (p) out.invalid(field, v, p);
  return out;
}

function prepare(o: KObject): void {
  o.spec ??= {};
  const s = specOf(o);
  s.attachRequired ??= true;
  s.podInfoOnMount ??= false;
  s.storageCapacity ??= false;
  s.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!s.volumeLifecycleModes?.length) s.volumeLifecycleModes = ['Persistent'];
  s.requiresRepublish ??= false;
  // the SELinuxMountReadWriteOncePod gate is on in 1.28 (beta)
  s.seLinuxMount ??= false;
  for (const t of s.tokenRequests ?? []) if (t && typeof t === 'object') t.audience ??= '';
}

function validateSpec(s: CSIDriverSpec): Causes {
  const causes = new Causes();
  // Kubernetes names this field `attachedRequired` in its errors
  if (s.attachRequired === undefined) causes.required('spec.attachedRequired');
  if (s.podInfoOnMount === undefined) causes.required('spec.podInfoOnMount');
  if (s.storageCapacity === undefined) causes.required('spec.storageCapacity');
  if (s.fsGroupPolicy !== undefined) causes.oneOf('spec.fsGroupPolicy', s.fsGroupPolicy, FS_GROUP_POLICIES);
  const audiences = new Set<string>();
  (s.tokenRequests ?? []).forEach((t, i) => {
    const p = `spec.tokenRequests[${i}]`;
    const audience = t?.audience ?? '';
    if (audiences.has(audience)) {
      causes.duplicate(`${p}.audience`, audience);
      return;
    }
    audiences.add(audience);
    const exp = t?.expirationSeconds;
    if (typeof exp !== 'number') return;
    if (exp < MIN_TOKEN_SECONDS)
      causes.invalid(`${p}.expirationSeconds`, exp, 'may not specify a duration less than 10 minutes');
    if (exp > MAX_TOKEN_SECONDS)
      causes.invalid(`${p}.expirationSeconds`, exp, 'may not specify a duration larger than 2^32 seconds');
  });
  for (const m of s.volumeLifecycleModes ?? [])
    causes.oneOf('spec.volumeLifecycleModes', m, VOLUME_LIFECYCLE_MODES);
  if (s.seLinuxMount === undefined) causes.required('spec.seLinuxMount');
  return causes;
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const s = specOf(o);
  const before = specOf(old);
  const causes = validateSpec(s);
  causes.push(...immutable('spec.attachedRequired', s.attachRequired, before.attachRequired));
  causes.push(...immutable('spec.fsGroupPolicy', s.fsGroupPolicy, before.fsGroupPolicy));
  causes.push(...immutable('spec.podInfoOnMount', s.podInfoOnMount, before.podInfoOnMount));
  if (!deepEqual(s.volumeLifecycleModes ?? null, before.volumeLifecycleModes ?? null))
    causes.invalidShown(
      'spec.volumeLifecycleModes',
      goSlice('storage.VolumeLifecycleMode', s.volumeLifecycleModes),
      'field is immutable',
    );
  return causes;
}

const MUTABLE = ['tokenRequests', 'requiresRepublish', 'seLinuxMount'] as const;

export const csiDriverDef = defineKind({
  group: 'storage.orch.io',
  kind: 'CSIDriver',
  namespaced: false,
  schema,
  nameRule: 'path',
  zeroValue: () => ({ spec: {} }),
  prepareForCreate: prepare,
  prepareForUpdate(o, old) {
    prepare(o);
    const s = specOf(o);
    const before = specOf(old);
    if (MUTABLE.some((f) => !deepEqual(s[f] ?? null, before[f] ?? null)))
      o.metadata.generation = (old.metadata.generation ?? 0) + 1;
  },
  validate: (o) => [...csiDriverName('name', o.metadata.name), ...validateSpec(specOf(o))],
  validateUpdate,
  table: printed('csiDriver', {
    AttachRequired: (o) => specOf(o).attachRequired ?? true,
    PodInfoOnMount: 'spec.podInfoOnMount',
    StorageCapacity: 'spec.storageCapacity',
    TokenRequests: (o) => {
      const t = specOf(o).tokenRequests;
      return t ? t.map((x) => x.audience ?? '').join(',') : '<unset>';
    },
    RequiresRepublish: 'spec.requiresRepublish',
    Modes: (o) => (specOf(o).volumeLifecycleModes ?? []).join(',') || '<none>',
  }),
});
