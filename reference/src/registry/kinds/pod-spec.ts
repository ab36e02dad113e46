// The pod spec shared by Pod and the pod templates of workloads (Deployment): schema, types, defaults and validation.
import type { StatusCause } from '../../errors/status.ts';
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
import {
  dnsLabel,
  dnsSubdomain,
  fieldErr,
  ianaSvcName,
  labelMap,
  nonNegative,
  portNumber,
  qualifiedName,
  quantity,
  quantityValue,
  validateLabelSelector,
} from './common.ts';

// ------------------------------------------------------------------ schema

const localObjectReference = obj({ name: str() });
const keyRef = obj({ name: str(), key: str(), optional: bool() });
const objectFieldSelector = obj({ apiVersion: str(), fieldPath: str() });
const resourceFieldSelector = obj({ containerName: str(), resource: str(), divisor: quantity() });
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
const volumeSources: Record<string, Schema> = {
  hostPath: obj({ path: str(), type: str() }),
  emptyDir: obj({ medium: str(), sizeLimit: quantity() }),
  secret: obj({ secretName: str(), items: arr(keyToPath), defaultMode: int(), optional: bool() }),
  configMap: obj({ name: str(), items: arr(keyToPath), defaultMode: int(), optional: bool() }),
  persistentVolumeClaim: obj({ claimName: str(), readOnly: bool() }),
  nfs: obj({ server: str(), path: str(), readOnly: bool() }),
  downwardAPI: obj({
    items: arr(
      obj({
        path: str(),
        fieldRef: objectFieldSelector,
        resourceFieldRef: resourceFieldSelector,
        mode: int(),
      }),
    ),
    defaultMode: int(),
  }),
  projected: obj({
    sources: arr(
      obj({
        secret: obj({ name: str(), items: arr(keyToPath), optional: bool() }),
        configMap: obj({ name: str(), items: arr(keyToPath), optional: bool() }),
        downwardAPI: obj({
          items: arr(
            obj({
              path: str(),
              fieldRef: objectFieldSelector,
              resourceFieldRef: resourceFieldSelector,
              mode: int(),
            }),
          ),
        }),
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

const toleration = obj({
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

// ------------------------------------------------------------------ validation

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const TOLERATION_OPERATORS = ['Equal', 'Exists'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const VOLUME_NAMES_RE = Object.keys(volumeSources);

function validateContainer(
  c: Container,
  p: string,
  volumes: Set<string>,
  allowRestartPolicy: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!c || typeof c !== 'object') return [fieldErr.required(p)];
  if (!c.name) causes.push(fieldErr.required(`${p}.name`));
  else causes.push(...dnsLabel(`${p}.name`, c.name));
  if (!c.image?.trim()) causes.push(fieldErr.required(`${p}.image`));
  if (c.imagePullPolicy && !PULL_POLICIES.includes(c.imagePullPolicy))
    causes.push(fieldErr.notSupported(`${p}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES));
  if (c.terminationMessagePolicy && !MESSAGE_POLICIES.includes(c.terminationMessagePolicy))
    causes.push(
      fieldErr.notSupported(`${p}.terminationMessagePolicy`, c.terminationMessagePolicy, MESSAGE_POLICIES),
    );
  if (c.restartPolicy !== undefined) {
    if (!allowRestartPolicy)
      causes.push(fieldErr.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
    else if (c.restartPolicy !== 'Always')
      causes.push(fieldErr.notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']));
  }
  const portNames = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const pp = `${p}.ports[${i}]`;
    if (port.name) {
      causes.push(...ianaSvcName(`${pp}.name`, port.name));
      if (portNames.has(port.name)) causes.push(fieldErr.duplicate(`${pp}.name`, port.name));
      portNames.add(port.name);
    }
    if (port.containerPort === undefined || port.containerPort === 0)
      causes.push(fieldErr.required(`${pp}.containerPort`));
    else causes.push(...portNumber(`${pp}.containerPort`, port.containerPort));
    if (port.hostPort) causes.push(...portNumber(`${pp}.hostPort`, port.hostPort));
    if (!port.protocol) causes.push(fieldErr.required(`${pp}.protocol`));
    else if (!PROTOCOLS.includes(port.protocol))
      causes.push(fieldErr.notSupported(`${pp}.protocol`, port.protocol, PROTOCOLS));
  });
  (c.env ?? []).forEach((e, i) => {
    const ep = `${p}.env[${i}]`;
    if (!e.name) causes.push(fieldErr.required(`${ep}.name`));
    else if (!ENV_NAME.test(e.name))
      causes.push(
        fieldErr.invalid(
          `${ep}.name`,
          e.name,
          "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
        ),
      );
    const vf = e.valueFrom;
    if (vf) {
      const n = [vf.fieldRef, vf.resourceFieldRef, vf.configMapKeyRef, vf.secretKeyRef].filter(
        Boolean,
      ).length;
      if (e.value)
        causes.push(
          fieldErr.invalid(`${ep}.valueFrom`, '', 'may not be specified when `value` is not empty'),
        );
      if (n === 0)
        causes.push(
          fieldErr.invalid(
            `${ep}.valueFrom`,
            '',
            'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
          ),
        );
      else if (n > 1)
        causes.push(
          fieldErr.invalid(`${ep}.valueFrom`, '', 'may not have more than one field specified at a time'),
        );
      if (vf.fieldRef && !vf.fieldRef.fieldPath)
        causes.push(fieldErr.required(`${ep}.valueFrom.fieldRef.fieldPath`));
      if (vf.configMapKeyRef && !vf.configMapKeyRef.key)
        causes.push(fieldErr.required(`${ep}.valueFrom.configMapKeyRef.key`));
      if (vf.secretKeyRef && !vf.secretKeyRef.key)
        causes.push(fieldErr.required(`${ep}.valueFrom.secretKeyRef.key`));
    }
  });
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const mp = `${p}.volumeMounts[${i}]`;
    if (!m.name) causes.push(fieldErr.required(`${mp}.name`));
    else if (!volumes.has(m.name)) causes.push(fieldErr.notFound(`${mp}.name`, m.name));
    if (!m.mountPath) causes.push(fieldErr.required(`${mp}.mountPath`));
    else {
      if (mountPaths.has(m.mountPath))
        causes.push(fieldErr.invalid(`${mp}.mountPath`, m.mountPath, 'must be unique'));
      mountPaths.add(m.mountPath);
    }
  });
  const lim = c.resources?.limits ?? {};
  const req = c.resources?.requests ?? {};
  for (const [which, m] of [
    ['limits', lim],
    ['requests', req],
  ] as const) {
    for (const [k, v] of Object.entries(m)) {
      if (quantityValue(v) < 0)
        causes.push(
          fieldErr.invalid(`${p}.resources.${which}[${k}]`, v, 'must be greater than or equal to 0'),
        );
    }
  }
  for (const [k, v] of Object.entries(req)) {
    if (lim[k] !== undefined && quantityValue(v) > quantityValue(lim[k]))
      causes.push(
        fieldErr.invalid(
          `${p}.resources.requests`,
          v,
          `must be less than or equal to ${k} limit of ${lim[k]}`,
        ),
      );
  }
  for (const [probeName, pr] of [
    ['livenessProbe', c.livenessProbe],
    ['readinessProbe', c.readinessProbe],
    ['startupProbe', c.startupProbe],
  ] as const) {
    if (!pr) continue;
    const n = [pr.exec, pr.httpGet, pr.tcpSocket, pr.grpc].filter(Boolean).length;
    if (n === 0) causes.push(fieldErr.required(`${p}.${probeName}`, 'must specify a handler type'));
    else if (n > 1)
      causes.push(fieldErr.forbidden(`${p}.${probeName}`, 'may not specify more than 1 handler type'));
    for (const f of ['timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const)
      causes.push(...nonNegative(`${p}.${probeName}.${f}`, pr[f]));
    if (
      (probeName === 'livenessProbe' || probeName === 'startupProbe') &&
      pr.successThreshold !== undefined &&
      pr.successThreshold !== 1
    )
      causes.push(fieldErr.invalid(`${p}.${probeName}.successThreshold`, pr.successThreshold, 'must be 1'));
  }
  return causes;
}

export interface PodSpecValidationOptions {
  /** Restart policies accepted (workload templates: Always only). */
  restartPolicies?: string[];
}

/** Validates a pod spec (or a template's) at `path` (`spec`, `spec.template.spec`). */
export function validatePodSpec(
  spec: PodSpec,
  path: string,
  opts: PodSpecValidationOptions = {},
): StatusCause[] {
  const causes: StatusCause[] = [];
  // volumes
  const volumeNames = new Set<string>();
  (spec.volumes ?? []).forEach((v, i) => {
    const vp = `${path}.volumes[${i}]`;
    if (!v.name) causes.push(fieldErr.required(`${vp}.name`));
    else {
      causes.push(...dnsLabel(`${vp}.name`, v.name));
      if (volumeNames.has(v.name)) causes.push(fieldErr.duplicate(`${vp}.name`, v.name));
      volumeNames.add(v.name);
    }
    const sources = VOLUME_NAMES_RE.filter((k) => v[k] !== undefined && v[k] !== null);
    if (sources.length === 0) causes.push(fieldErr.required(vp, 'must specify a volume type'));
    for (const extra of sources.slice(1))
      causes.push(fieldErr.forbidden(`${vp}.${extra}`, 'may not specify more than 1 volume type'));
    const pvc = v.persistentVolumeClaim as { claimName?: string } | undefined;
    if (pvc && !pvc.claimName) causes.push(fieldErr.required(`${vp}.persistentVolumeClaim.claimName`));
    const cm = v.configMap as { name?: string } | undefined;
    if (cm && !cm.name) causes.push(fieldErr.required(`${vp}.configMap.name`));
    const sec = v.secret as { secretName?: string } | undefined;
    if (sec && !sec.secretName) causes.push(fieldErr.required(`${vp}.secret.secretName`));
    const hp = v.hostPath as { path?: string } | undefined;
    if (hp && !hp.path) causes.push(fieldErr.required(`${vp}.hostPath.path`));
  });
  // containers
  const names = new Set<string>();
  const containers = spec.containers ?? [];
  if (containers.length === 0) causes.push(fieldErr.required(`${path}.containers`));
  (spec.initContainers ?? []).forEach((c, i) => {
    const cp = `${path}.initContainers[${i}]`;
    causes.push(...validateContainer(c, cp, volumeNames, true));
    if (c?.name) {
      if (names.has(c.name)) causes.push(fieldErr.duplicate(`${cp}.name`, c.name));
      names.add(c.name);
    }
  });
  containers.forEach((c, i) => {
    const cp = `${path}.containers[${i}]`;
    causes.push(...validateContainer(c, cp, volumeNames, false));
    if (c?.name) {
      if (names.has(c.name)) causes.push(fieldErr.duplicate(`${cp}.name`, c.name));
      names.add(c.name);
    }
  });
  // policies
  const restartPolicies = opts.restartPolicies ?? RESTART_POLICIES;
  if (!spec.restartPolicy) causes.push(fieldErr.required(`${path}.restartPolicy`));
  else if (!restartPolicies.includes(spec.restartPolicy))
    causes.push(fieldErr.notSupported(`${path}.restartPolicy`, spec.restartPolicy, restartPolicies));
  if (!spec.dnsPolicy) causes.push(fieldErr.required(`${path}.dnsPolicy`));
  else if (!DNS_POLICIES.includes(spec.dnsPolicy))
    causes.push(fieldErr.notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  if (
    spec.activeDeadlineSeconds !== undefined &&
    (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > 2147483647)
  )
    causes.push(
      fieldErr.invalid(
        `${path}.activeDeadlineSeconds`,
        spec.activeDeadlineSeconds,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  causes.push(...labelMap(`${path}.nodeSelector`, spec.nodeSelector));
  if (spec.serviceAccountName)
    causes.push(...dnsSubdomain(`${path}.serviceAccountName`, spec.serviceAccountName));
  if (spec.nodeName) causes.push(...dnsSubdomain(`${path}.nodeName`, spec.nodeName));
  if (spec.hostname) causes.push(...dnsLabel(`${path}.hostname`, spec.hostname));
  if (spec.subdomain) causes.push(...dnsLabel(`${path}.subdomain`, spec.subdomain));
  if (spec.priorityClassName)
    causes.push(...dnsSubdomain(`${path}.priorityClassName`, spec.priorityClassName));
  if (spec.preemptionPolicy && !['Never', 'PreemptLowerPriority'].includes(spec.preemptionPolicy))
    causes.push(
      fieldErr.notSupported(`${path}.preemptionPolicy`, spec.preemptionPolicy, [
        'Never',
        'PreemptLowerPriority',
      ]),
    );
  (spec.tolerations ?? []).forEach((t, i) => {
    const tp = `${path}.tolerations[${i}]`;
    if (t.key) causes.push(...qualifiedName(`${tp}.key`, t.key));
    if (!t.key && t.operator !== 'Exists')
      causes.push(
        fieldErr.invalid(
          `${tp}.operator`,
          t.operator ?? '',
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (t.operator && !TOLERATION_OPERATORS.includes(t.operator))
      causes.push(fieldErr.notSupported(`${tp}.operator`, t.operator, TOLERATION_OPERATORS));
    if (t.operator === 'Exists' && t.value)
      causes.push(
        fieldErr.invalid(`${tp}.operator`, t.value, "value must be empty when `operator` is 'Exists'"),
      );
    if (t.effect && !TAINT_EFFECTS.includes(t.effect))
      causes.push(fieldErr.notSupported(`${tp}.effect`, t.effect, TAINT_EFFECTS));
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute')
      causes.push(
        fieldErr.invalid(
          `${tp}.effect`,
          t.effect ?? '',
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
  });
  (spec.topologySpreadConstraints ?? []).forEach((c, i) => {
    causes.push(
      ...validateLabelSelector(`${path}.topologySpreadConstraints[${i}].labelSelector`, c.labelSelector),
    );
  });
  return causes;
}

/** Container fields an ephemeral container may not set (1.28's allow list, inverted). */
const EPHEMERAL_FORBIDDEN = [
  'ports',
  'resources',
  'resizePolicy',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'restartPolicy',
] as const;

const isSet = (v: unknown): boolean =>
  v !== undefined &&
  v !== null &&
  !(Array.isArray(v) && v.length === 0) &&
  !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/**
 * A pod's ephemeral containers (`spec.ephemeralContainers`) as Kubernetes 1.28 validates them:
 * each a valid container, its name unique across all the pod's containers, its target (if
 * any) one of the pod's containers or init containers, none of the fields that make a
 * container part of the workload (ports, probes, resources, lifecycle), no subPath mounts.
 */
export function validateEphemeralContainers(spec: PodSpec, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const list = spec.ephemeralContainers ?? [];
  if (list.length === 0) return causes;
  const volumeNames = new Set((spec.volumes ?? []).map((v) => v.name).filter((n): n is string => !!n));
  const others = new Set(
    [...(spec.containers ?? []), ...(spec.initContainers ?? [])]
      .map((c) => c?.name)
      .filter((n): n is string => !!n),
  );
  const all = new Set(others);
  list.forEach((c, i) => {
    const p = `${path}.ephemeralContainers[${i}]`;
    causes.push(...validateContainer(c, p, volumeNames, true));
    if (!c || typeof c !== 'object') return;
    if (c.name) {
      if (all.has(c.name)) causes.push(fieldErr.duplicate(`${p}.name`, c.name));
      else all.add(c.name);
    }
    const target = (c as Container & { targetContainerName?: string }).targetContainerName;
    if (target && !others.has(target)) causes.push(fieldErr.notFound(`${p}.targetContainerName`, target));
    for (const f of EPHEMERAL_FORBIDDEN)
      if (isSet((c as Record<string, unknown>)[f]))
        causes.push(fieldErr.forbidden(`${p}.${f}`, 'cannot be set for an Ephemeral Container'));
    (c.volumeMounts ?? []).forEach((m, j) => {
      const mm = m as { subPath?: string; subPathExpr?: string };
      if (mm.subPath)
        causes.push(
          fieldErr.forbidden(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'),
        );
      if (mm.subPathExpr)
        causes.push(
          fieldErr.forbidden(
            `${p}.volumeMounts[${j}].subPathExpr`,
            'cannot be set for an Ephemeral Container',
          ),
        );
    });
  });
  return causes;
}
