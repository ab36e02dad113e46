// ServiceAccount (doc3 plugin table: automates service accounts), as Kubernetes 1.28 does it
// for a pod's creation:
//  - a pod without `serviceAccountName` gets `default` (the service-account controller keeps
//    one in every namespace);
//  - a pod whose service account does not exist is refused (403, "error looking up service
//    account <ns>/<name>: serviceaccount "<name>" not found");
//  - unless the pod's `automountServiceAccountToken` (else the account's) is false, every
//    container and init container without a mount at /var/run/secrets/orch.io/serviceaccount
//    gets a read-only one of a projected volume `orch-api-access-<5 random>`: a bound token
//    (`token`, 3607 s), the `orch-root-ca.crt` config map's `ca.crt`, and the namespace
//    (`namespace`, from metadata.namespace);
//  - a pod without imagePullSecrets gets the account's;
//  - when the account is annotated `orch.io/enforce-mountable-secrets: "true"`, a pod that
//    mounts a secret volume, takes an env var from a secret, or names an image pull secret the
//    account does not list is refused (403);
//  - a mirror pod (annotation `orch.io/config.mirror`) is left alone, but may not name a
//    service account (other than the `default` the pod strategy fills in), reference secrets,
//    or project a service-account token (403).
import type { Registry } from '../../registry/registry.ts';
import type { PodSpec } from '../../registry/kinds/pod-spec.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { DEFAULT_SERVICE_ACCOUNT } from '../../registry/kinds/serviceaccount.ts';
import { ROOT_CA_CONFIG_MAP } from '../../registry/kinds/configmap.ts';
import { forbidden, isCoreWrite, podSpec } from './util.ts';

export const TOKEN_MOUNT_PATH = '/var/run/secrets/orch.io/serviceaccount';
export const TOKEN_VOLUME_PREFIX = 'orch-api-access-';
export const MIRROR_POD_ANNOTATION = 'orch.io/config.mirror';
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'orch.io/enforce-mountable-secrets';
/** The bound token's lifetime in the projected volume (Kubernetes' WarnOnlyBoundTokenExpirationSeconds). */
export const TOKEN_EXPIRATION_SECONDS = 3607;

const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const suffix = () =>
  Array.from({ length: 5 }, () => SUFFIX_CHARS[Math.floor(Math.random() * SUFFIX_CHARS.length)]).join('');

/** The projected volume source of the token volume (as Kubernetes' TokenVolumeSource). */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: ROOT_CA_CONFIG_MAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  };
}

interface Account {
  name: string;
  automount?: boolean;
  secrets: Set<string>;
  pullSecrets: string[];
  enforce: boolean;
}

type Vol = {
  name?: string;
  secret?: { secretName?: string };
  projected?: { sources?: { serviceAccountToken?: unknown }[] };
};
type Env = { name?: string; valueFrom?: { secretKeyRef?: { name?: string } } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service account a pod names (the default one waited for a little). */
const lookup = async (registry: Registry, a: AdmissionAttributes, name: string): Promise<Account> => {
  const store = registry.byResource('', 'serviceaccounts')?.store;
  // the default account of a namespace just made may still be on its way (Kubernetes retries too)
  const attempts = name === DEFAULT_SERVICE_ACCOUNT ? 10 : 1;
  let sa: KObject | undefined;
  for (let i = 0; i < attempts && !sa; i++) {
    if (i) await sleep(50);
    sa = store?.getStored(a.namespace, name)?.obj;
  }
  if (!sa)
    throw forbidden(
      a,
      `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`,
    );
  const annotations = (sa.metadata.annotations ?? {}) as Record<string, string>;
  const list = (v: unknown) => (Array.isArray(v) ? (v as { name?: string }[]).map((r) => r?.name ?? '') : []);
  return {
    name,
    automount:
      typeof sa.automountServiceAccountToken === 'boolean' ? sa.automountServiceAccountToken : undefined,
    secrets: new Set(list(sa.secrets)),
    pullSecrets: list(sa.imagePullSecrets),
    enforce: /^(1|t|T|TRUE|true|True)$/.test(annotations[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION] ?? ''),
  };
};

/** Mounts the projected token volume into every container that has nothing at its path. */
const mountToken = (spec: PodSpec) => {
  const volumes = (spec.volumes ?? []) as Vol[];
  const existing = volumes.find((v) => v?.name?.startsWith(TOKEN_VOLUME_PREFIX));
  const name = existing?.name ?? `${TOKEN_VOLUME_PREFIX}${suffix()}`;
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (!c || typeof c !== 'object') continue;
    const mounts = (c.volumeMounts ??= []) as { name?: string; mountPath?: string; readOnly?: boolean }[];
    if (mounts.some((m) => m?.mountPath === TOKEN_MOUNT_PATH)) continue;
    mounts.push({ name, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
    needed = true;
  }
  if (!existing && needed)
    spec.volumes = [...volumes, { name, projected: tokenVolumeSource() }] as PodSpec['volumes'];
};

/** With the mountable-secrets annotation: the pod refers only to secrets its account lists. */
const secretsAllowed = (a: AdmissionAttributes, spec: PodSpec, sa: Account) => {
  for (const v of (spec.volumes ?? []) as Vol[]) {
    const s = v?.secret?.secretName;
    if (v?.secret && !sa.secrets.has(s ?? ''))
      throw forbidden(
        a,
        `volume with secret.secretName="${s ?? ''}" is not allowed because service account ${sa.name} does not reference that secret`,
      );
  }
  for (const [list, what] of [
    [spec.initContainers, 'init container'],
    [spec.containers, 'container'],
  ] as const)
    for (const c of list ?? [])
      for (const e of (c?.env ?? []) as Env[]) {
        const ref = e?.valueFrom?.secretKeyRef;
        if (ref && !sa.secrets.has(ref.name ?? ''))
          throw forbidden(
            a,
            `${what} ${c.name} with envVar ${e.name} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa.name} does not reference that secret`,
          );
      }
  const pull = new Set(sa.pullSecrets);
  ((spec as { imagePullSecrets?: { name?: string }[] }).imagePullSecrets ?? []).forEach((r, i) => {
    if (!pull.has(r?.name ?? ''))
      throw forbidden(
        a,
        `spec.imagePullSecrets[${i}].name="${r?.name ?? ''}" is not allowed because service account ${sa.name} does not reference that imagePullSecret`,
      );
  });
};

const isMirror = (a: AdmissionAttributes) =>
  ((a.object?.metadata.annotations ?? {}) as Record<string, string>)[MIRROR_POD_ANNOTATION] !== undefined;

const validateMirror = (a: AdmissionAttributes, spec: PodSpec) => {
  // the pod strategy names `default` before admission runs, so only another name is one the pod chose
  if (spec.serviceAccountName && spec.serviceAccountName !== DEFAULT_SERVICE_ACCOUNT)
    throw forbidden(a, 'a mirror pod may not reference service accounts');
  const volumes = (spec.volumes ?? []) as Vol[];
  const envSecret = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].some((c) =>
    ((c?.env ?? []) as Env[]).some((e) => e?.valueFrom?.secretKeyRef),
  );
  const pull = ((spec as { imagePullSecrets?: unknown[] }).imagePullSecrets ?? []).length > 0;
  if (volumes.some((v) => v?.secret) || envSecret || pull)
    throw forbidden(a, 'a mirror pod may not reference secrets');
  if (volumes.some((v) => v?.projected?.sources?.some((s) => s?.serviceAccountToken)))
    throw forbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections');
};

export const serviceAccount = (env: { registry: Registry }): AdmissionPlugin => {
  return {
    name: 'ServiceAccount',
    handles: (a) => a.operation === 'CREATE' && isCoreWrite(a, 'pods') && !!a.object,
    async mutate(a) {
      if (isMirror(a)) return;
      const spec = podSpec(a);
      if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
      spec.serviceAccount = spec.serviceAccountName;
      const sa = await lookup(env.registry, a, spec.serviceAccountName);
      const automount =
        (spec as { automountServiceAccountToken?: boolean }).automountServiceAccountToken ??
        sa.automount ??
        true;
      if (automount) mountToken(spec);
      const ps = spec as { imagePullSecrets?: { name: string }[] };
      if (!ps.imagePullSecrets?.length && sa.pullSecrets.length)
        ps.imagePullSecrets = sa.pullSecrets.map((name) => ({ name }));
    },
    async validate(a) {
      const spec = podSpec(a);
      if (isMirror(a)) return validateMirror(a, spec);
      if (!spec.serviceAccountName)
        throw forbidden(
          a,
          `no service account specified for pod ${a.namespace}/${a.object?.metadata.name ?? ''}`,
        );
      const sa = await lookup(env.registry, a, spec.serviceAccountName);
      if (sa.enforce) secretsAllowed(a, spec, sa);
    },
  };
};
