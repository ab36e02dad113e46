// The pod spec shared by Pod and the pod templates of workloads (Deployment): schema, types and defaults
// (validation: pod-spec-validation.ts).
import {
  arr,
  bool,
  freeform,
  int,
  intOrString,
  keyedList,
  mapOf,
  obj,
  setOf,
  str,
} from '../../schema/dsl.ts';
import { objectMeta } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import { quantity } from './common.ts';

// ------------------------------------------------------------------ schema

const localObjectReference = obj({ name: str() });
const keyRef = obj({ name: str(), key: str(), optional: bool() });
const objectFieldSelector = obj({ apiVersion: str(), fieldPath: str() });
const resourceFieldSelector = obj({ containerName: str(), resource: str(), divisor: quantity() });
const downwardAPIFile = obj({
  path: str(),
  fieldRef: objectFieldSelector,
  resourceFieldRef: resourceFieldSelector,
  mode: int(),
});
const keyToPath = obj({ key: str(), path: str(), mode: int() });
const labelSelector = obj({
  matchLabels: mapOf(str()),
  matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) })),
});

const httpGet = obj({
  path: str(),
  port: intOrString(),
  host: str(),
  scheme: str(),
  httpHeaders: arr(obj({ name: str(), value: str() })),
});
const handlerFields = {
  exec: obj({ command: arr(str()) }),
  httpGet,
  tcpSocket: obj({ port: intOrString(), host: str() }),
};
const probe = obj({
  ...handlerFields,
  grpc: obj({ port: int(), service: str() }),
  initialDelaySeconds: int(),
  timeoutSeconds: int(),
  periodSeconds: int(),
  successThreshold: int(),
  failureThreshold: int(),
  terminationGracePeriodSeconds: int(),
});
const lifecycleHandler = obj({ ...handlerFields, sleep: obj({ seconds: int() }) });

const seLinuxOptions = obj({ user: str(), role: str(), type: str(), level: str() });
const windowsOptions = obj({
  gmsaCredentialSpecName: str(),
  gmsaCredentialSpec: str(),
  runAsUserName: str(),
  hostProcess: bool(),
});
const seccompProfile = obj({ type: str(), localhostProfile: str() });

const securityContext = obj({
  capabilities: obj({ add: arr(str()), drop: arr(str()) }),
  privileged: bool(),
  seLinuxOptions,
  windowsOptions,
  runAsUser: int(),
  runAsGroup: int(),
  runAsNonRoot: bool(),
  readOnlyRootFilesystem: bool(),
  allowPrivilegeEscalation: bool(),
  procMount: str(),
  seccompProfile,
});

const podSecurityContext = obj({
  seLinuxOptions,
  windowsOptions,
  runAsUser: int(),
  runAsGroup: int(),
  runAsNonRoot: bool(),
  supplementalGroups: arr(int()),
  fsGroup: int(),
  sysctls: arr(obj({ name: str(), value: str() })),
  fsGroupChangePolicy: str(),
  seccompProfile,
});

const containerFields = {
  name: str(),
  image: str(),
  command: arr(str()),
  args: arr(str()),
  workingDir: str(),
  ports: keyedList(
    obj({
      name: str(),
      hostPort: int(),
      containerPort: int(),
      protocol: str({ default: 'TCP' }),
      hostIP: str(),
    }),
    ['containerPort', 'protocol'],
  ),
  envFrom: arr(
    obj({
      prefix: str(),
      configMapRef: obj({ name: str(), optional: bool() }),
      secretRef: obj({ name: str(), optional: bool() }),
    }),
  ),
  env: keyedList(
    obj({
      name: str(),
      value: str(),
      valueFrom: obj({
        fieldRef: objectFieldSelector,
        resourceFieldRef: resourceFieldSelector,
        configMapKeyRef: keyRef,
        secretKeyRef: keyRef,
      }),
    }),
    ['name'],
  ),
  resources: obj({
    limits: mapOf(quantity()),
    requests: mapOf(quantity()),
    claims: keyedList(obj({ name: str() }), ['name']),
  }),
  resizePolicy: arr(obj({ resourceName: str(), restartPolicy: str() }), { 'x-orch-list-type': 'atomic' }),
  restartPolicy: str(),
  volumeMounts: keyedList(
    obj({
      name: str(),
      readOnly: bool(),
      mountPath: str(),
      subPath: str(),
      mountPropagation: str(),
      subPathExpr: str(),
    }),
    ['mountPath'],
  ),
  volumeDevices: keyedList(obj({ name: str(), devicePath: str() }), ['devicePath']),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: obj({ postStart: lifecycleHandler, preStop: lifecycleHandler }),
  terminationMessagePath: str(),
  terminationMessagePolicy: str(),
  imagePullPolicy: str(),
  securityContext,
  stdin: bool(),
  stdinOnce: bool(),
  tty: bool(),
};

export const containerSchema: Schema = obj(containerFields);
const ephemeralContainerSchema: Schema = obj({ ...containerFields, targetContainerName: str() });

/** Volume sources: the common ones with their fields, the rarer ones free-form. */
export const volumeSources: Record<string, Schema> = {
  hostPath: obj({ path: str(), type: str() }),
  emptyDir: obj({ medium: str(), sizeLimit: quantity() }),
  secret: obj({ secretName: str(), items: arr(keyToPath), defaultMode: int(), optional: bool() }),
  configMap: obj({ name: str(), items: arr(keyToPath), defaultMode: int(), optional: bool() }),
  persistentVolumeClaim: obj({ claimName: str(), readOnly: bool() }),
  nfs: obj({ server: str(), path: str(), readOnly: bool() }),
  downwardAPI: obj({ items: arr(downwardAPIFile), defaultMode: int() }),
  projected: obj({
    sources: arr(
      obj({
        secret: obj({ name: str(), items: arr(keyToPath), optional: bool() }),
        configMap: obj({ name: str(), items: arr(keyToPath), optional: bool() }),
        downwardAPI: obj({ items: arr(downwardAPIFile) }),
        serviceAccountToken: obj({ audience: str(), expirationSeconds: int(), path: str() }),
        clusterTrustBundle: freeform(),
      }),
    ),
    defaultMode: int(),
  }),
  csi: obj({
    driver: str(),
    readOnly: bool(),
    fsType: str(),
    volumeAttributes: mapOf(str()),
    nodePublishSecretRef: localObjectReference,
  }),
  ephemeral: obj({ volumeClaimTemplate: freeform() }),
  gcePersistentDisk: freeform(),
  awsElasticBlockStore: freeform(),
  gitRepo: freeform(),
  iscsi: freeform(),
  glusterfs: freeform(),
  rbd: freeform(),
  flexVolume: freeform(),
  cinder: freeform(),
  cephfs: freeform(),
  flocker: freeform(),
  fc: freeform(),
  azureFile: freeform(),
  vsphereVolume: freeform(),
  quobyte: freeform(),
  azureDisk: freeform(),
  photonPersistentDisk: freeform(),
  portworxVolume: freeform(),
  scaleIO: freeform(),
  storageos: freeform(),
};

const volume = obj({ name: str(), ...volumeSources });

export const toleration = obj({
  key: str(),
  operator: str(),
  value: str(),
  effect: str(),
  tolerationSeconds: int(),
});

export const podSpecSchema: Schema = obj({
  volumes: keyedList(volume, ['name'], { 'x-orch-patch-strategy': 'merge,retainKeys' }),
  initContainers: keyedList(containerSchema, ['name']),
  containers: keyedList(containerSchema, ['name']),
  ephemeralContainers: keyedList(ephemeralContainerSchema, ['name']),
  restartPolicy: str(),
  terminationGracePeriodSeconds: int(),
  activeDeadlineSeconds: int(),
  dnsPolicy: str(),
  nodeSelector: mapOf(str(), { 'x-orch-map-type': 'atomic' }),
  serviceAccountName: str(),
  serviceAccount: str(),
  automountServiceAccountToken: bool(),
  nodeName: str(),
  hostNetwork: bool(),
  hostPID: bool(),
  hostIPC: bool(),
  shareProcessNamespace: bool(),
  securityContext: podSecurityContext,
  imagePullSecrets: keyedList(localObjectReference, ['name']),
  hostname: str(),
  subdomain: str(),
  affinity: freeform(),
  schedulerName: str(),
  tolerations: arr(toleration),
  hostAliases: keyedList(obj({ ip: str(), hostnames: arr(str()) }), ['ip']),
  priorityClassName: str(),
  priority: int(),
  dnsConfig: obj({
    nameservers: arr(str()),
    searches: arr(str()),
    options: arr(obj({ name: str(), value: str() })),
  }),
  readinessGates: arr(obj({ conditionType: str() })),
  runtimeClassName: str(),
  enableServiceLinks: bool(),
  preemptionPolicy: str(),
  overhead: mapOf(quantity()),
  topologySpreadConstraints: keyedList(
    obj({
      maxSkew: int(),
      topologyKey: str(),
      whenUnsatisfiable: str(),
      labelSelector,
      minDomains: int(),
      nodeAffinityPolicy: str(),
      nodeTaintsPolicy: str(),
      matchLabelKeys: setOf(str()),
    }),
    ['topologyKey', 'whenUnsatisfiable'],
  ),
  setHostnameAsFQDN: bool(),
  os: obj({ name: str() }),
  hostUsers: bool(),
  schedulingGates: keyedList(obj({ name: str() }), ['name']),
  resourceClaims: keyedList(
    obj({ name: str(), source: obj({ resourceClaimName: str(), resourceClaimTemplateName: str() }) }),
    ['name'],
  ),
});

export const podTemplateSpecSchema: Schema = obj({ metadata: objectMeta, spec: podSpecSchema });

// ------------------------------------------------------------------ types

interface Port {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
}
interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { apiVersion?: string; fieldPath?: string };
    resourceFieldRef?: { resource?: string };
    configMapKeyRef?: { key?: string };
    secretKeyRef?: { key?: string };
  };
}
interface Probe {
  httpGet?: { path?: string; scheme?: string; port?: unknown };
  tcpSocket?: { port?: unknown };
  exec?: unknown;
  grpc?: unknown;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}
export interface Container {
  name?: string;
  image?: string;
  ports?: Port[];
  env?: EnvVar[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  volumeMounts?: { name?: string; mountPath?: string }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { postStart?: Probe; preStop?: Probe };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  restartPolicy?: string;
}
interface Volume {
  name?: string;
  [source: string]: unknown;
}
/** A pod toleration (also a RuntimeClass's scheduling tolerations). */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}
export interface PodSpec {
  volumes?: Volume[];
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: Container[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  nodeName?: string;
  hostNetwork?: boolean;
  securityContext?: Record<string, unknown>;
  schedulerName?: string;
  tolerations?: Toleration[];
  readinessGates?: { conditionType?: string }[];
  enableServiceLinks?: boolean;
  priority?: number;
  schedulingGates?: { name?: string }[];
  topologySpreadConstraints?: { labelSelector?: Record<string, unknown> }[];
  hostname?: string;
  subdomain?: string;
  priorityClassName?: string;
  preemptionPolicy?: string;
}

// ------------------------------------------------------------------ defaults

const VOLUME_MODE_DEFAULT = 420; // 0644

/** The pull policy Kubernetes picks: `Always` for `:latest` or an untagged image, else `IfNotPresent`. */
export function defaultPullPolicy(image: string | undefined): string {
  if (!image) return 'IfNotPresent';
  const noDigest = image.split('@')[0]!;
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = noDigest.lastIndexOf('/');
  const tail = noDigest.slice(lastSlash + 1);
  const colon = tail.lastIndexOf(':');
  const tag = colon >= 0 ? tail.slice(colon + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: Probe | undefined): void {
  if (!p || typeof p !== 'object') return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  defaultHandler(p);
}

function defaultHandler(h: Probe | undefined): void {
  if (!h?.httpGet) return;
  h.httpGet.path ||= '/';
  h.httpGet.scheme ||= 'HTTP';
}

function defaultContainer(c: Container): void {
  if (!c || typeof c !== 'object') return;
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  c.imagePullPolicy ||= defaultPullPolicy(c.image);
  for (const p of c.ports ?? []) if (p && typeof p === 'object') p.protocol ||= 'TCP';
  for (const e of c.env ?? []) {
    const fr = e?.valueFrom?.fieldRef;
    if (fr) fr.apiVersion ||= 'v1';
  }
  // requests default to limits, resource by resource
  const lim = c.resources?.limits;
  if (lim && Object.keys(lim).length) {
    const req = (c.resources!.requests ??= {});
    for (const [k, v] of Object.entries(lim)) if (req[k] === undefined) req[k] = v;
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultHandler(c.lifecycle?.postStart);
  defaultHandler(c.lifecycle?.preStop);
}

/** Defaults of a pod spec (also a template's): what Kubernetes' SetDefaults_PodSpec and friends fill in. */
export function defaultPodSpec(spec: PodSpec): void {
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.schedulerName ||= 'default-scheduler';
  spec.enableServiceLinks ??= true;
  // the deprecated alias mirrors serviceAccountName
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  if (spec.hostNetwork) {
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])])
      for (const p of c?.ports ?? []) if (p && !p.hostPort) p.hostPort = p.containerPort;
  }
  for (const v of spec.volumes ?? []) {
    if (!v || typeof v !== 'object') continue;
    const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== undefined);
    if (sources.length === 0) v.emptyDir = {};
    for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
      const src = v[k] as { defaultMode?: number } | undefined;
      if (src && typeof src === 'object') src.defaultMode ??= VOLUME_MODE_DEFAULT;
    }
    const hp = v.hostPath as { type?: string } | undefined;
    if (hp && typeof hp === 'object') hp.type ??= '';
  }
}
