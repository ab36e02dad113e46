// Validation of the pod spec shared by Pod and the pod templates of workloads: containers,
// volumes, policies, tolerations and ephemeral containers, with Kubernetes 1.28's messages.
import type { StatusCause } from '../../errors/status.ts';
import {
  Causes,
  dnsLabel,
  dnsSubdomain,
  fieldErr,
  ianaSvcName,
  labelMap,
  nonNegative,
  portNumber,
  qualifiedName,
  quantityValue,
  validateLabelSelector,
} from './common.ts';
import { type Container, type PodSpec, volumeSources } from './pod-spec.ts';

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
  const causes = new Causes();
  if (!c || typeof c !== 'object') return [fieldErr.required(p)];
  if (!c.name) causes.required(`${p}.name`);
  else causes.push(...dnsLabel(`${p}.name`, c.name));
  if (!c.image?.trim()) causes.required(`${p}.image`);
  if (c.imagePullPolicy) causes.oneOf(`${p}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES);
  if (c.terminationMessagePolicy)
    causes.oneOf(`${p}.terminationMessagePolicy`, c.terminationMessagePolicy, MESSAGE_POLICIES);
  if (c.restartPolicy !== undefined) {
    if (!allowRestartPolicy) causes.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers');
    else if (c.restartPolicy !== 'Always')
      causes.notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']);
  }
  causes.push(...validatePorts(c, p), ...validateEnv(c, p), ...validateMounts(c, p, volumes));
  causes.push(...validateResources(c, p), ...validateProbes(c, p));
  return causes;
}

function validatePorts(c: Container, p: string): StatusCause[] {
  const causes = new Causes();
  const portNames = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const pp = `${p}.ports[${i}]`;
    if (port.name) {
      causes.push(...ianaSvcName(`${pp}.name`, port.name));
      if (portNames.has(port.name)) causes.duplicate(`${pp}.name`, port.name);
      portNames.add(port.name);
    }
    if (port.containerPort === undefined || port.containerPort === 0) causes.required(`${pp}.containerPort`);
    else causes.push(...portNumber(`${pp}.containerPort`, port.containerPort));
    if (port.hostPort) causes.push(...portNumber(`${pp}.hostPort`, port.hostPort));
    if (!port.protocol) causes.required(`${pp}.protocol`);
    else causes.oneOf(`${pp}.protocol`, port.protocol, PROTOCOLS);
  });
  return causes;
}

function validateEnv(c: Container, p: string): StatusCause[] {
  const causes = new Causes();
  (c.env ?? []).forEach((e, i) => {
    const ep = `${p}.env[${i}]`;
    if (!e.name) causes.required(`${ep}.name`);
    else if (!ENV_NAME.test(e.name))
      causes.invalid(
        `${ep}.name`,
        e.name,
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
      );
    const vf = e.valueFrom;
    if (!vf) return;
    const n = [vf.fieldRef, vf.resourceFieldRef, vf.configMapKeyRef, vf.secretKeyRef].filter(Boolean).length;
    const invalid = (detail: string) => causes.invalid(`${ep}.valueFrom`, '', detail);
    if (e.value) invalid('may not be specified when `value` is not empty');
    if (n === 0)
      invalid('must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`');
    else if (n > 1) invalid('may not have more than one field specified at a time');
    if (vf.fieldRef && !vf.fieldRef.fieldPath) causes.required(`${ep}.valueFrom.fieldRef.fieldPath`);
    if (vf.configMapKeyRef && !vf.configMapKeyRef.key) causes.required(`${ep}.valueFrom.configMapKeyRef.key`);
    if (vf.secretKeyRef && !vf.secretKeyRef.key) causes.required(`${ep}.valueFrom.secretKeyRef.key`);
  });
  return causes;
}

function validateMounts(c: Container, p: string, volumes: Set<string>): StatusCause[] {
  const causes = new Causes();
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const mp = `${p}.volumeMounts[${i}]`;
    if (!m.name) causes.required(`${mp}.name`);
    else if (!volumes.has(m.name)) causes.notFound(`${mp}.name`, m.name);
    if (!m.mountPath) causes.required(`${mp}.mountPath`);
    else {
      if (mountPaths.has(m.mountPath)) causes.invalid(`${mp}.mountPath`, m.mountPath, 'must be unique');
      mountPaths.add(m.mountPath);
    }
  });
  return causes;
}

function validateResources(c: Container, p: string): StatusCause[] {
  const causes = new Causes();
  const lim = c.resources?.limits ?? {};
  const req = c.resources?.requests ?? {};
  for (const [which, m] of [
    ['limits', lim],
    ['requests', req],
  ] as const) {
    for (const [k, v] of Object.entries(m)) {
      if (quantityValue(v) < 0)
        causes.invalid(`${p}.resources.${which}[${k}]`, v, 'must be greater than or equal to 0');
    }
  }
  for (const [k, v] of Object.entries(req)) {
    if (lim[k] !== undefined && quantityValue(v) > quantityValue(lim[k]))
      causes.invalid(`${p}.resources.requests`, v, `must be less than or equal to ${k} limit of ${lim[k]}`);
  }
  return causes;
}

function validateProbes(c: Container, p: string): StatusCause[] {
  const causes = new Causes();
  for (const [probeName, pr] of [
    ['livenessProbe', c.livenessProbe],
    ['readinessProbe', c.readinessProbe],
    ['startupProbe', c.startupProbe],
  ] as const) {
    if (!pr) continue;
    const n = [pr.exec, pr.httpGet, pr.tcpSocket, pr.grpc].filter(Boolean).length;
    if (n === 0) causes.required(`${p}.${probeName}`, 'must specify a handler type');
    else if (n > 1) causes.forbidden(`${p}.${probeName}`, 'may not specify more than 1 handler type');
    for (const f of ['timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const)
      causes.push(...nonNegative(`${p}.${probeName}.${f}`, pr[f]));
    if (
      (probeName === 'livenessProbe' || probeName === 'startupProbe') &&
      pr.successThreshold !== undefined &&
      pr.successThreshold !== 1
    )
      causes.invalid(`${p}.${probeName}.successThreshold`, pr.successThreshold, 'must be 1');
  }
  return causes;
}

export interface PodSpecValidationOptions {
  /** Restart policies accepted (workload templates: Always only). */
  restartPolicies?: string[];
}

/** Validates a pod spec (or a template's) at `path` (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: PodSpec, path: string, opts: PodSpecValidationOptions = {}): Causes {
  const causes = new Causes();
  const volumeNames = new Set<string>();
  causes.push(...validateVolumes(spec, path, volumeNames));
  // containers and init containers: names unique across both
  const names = new Set<string>();
  const containers = spec.containers ?? [];
  if (containers.length === 0) causes.required(`${path}.containers`);
  for (const [field, list, init] of [
    ['initContainers', spec.initContainers ?? [], true],
    ['containers', containers, false],
  ] as const)
    list.forEach((c, i) => {
      const cp = `${path}.${field}[${i}]`;
      causes.push(...validateContainer(c, cp, volumeNames, init));
      if (c?.name) {
        if (names.has(c.name)) causes.duplicate(`${cp}.name`, c.name);
        names.add(c.name);
      }
    });
  // policies
  const restartPolicies = opts.restartPolicies ?? RESTART_POLICIES;
  if (!spec.restartPolicy) causes.required(`${path}.restartPolicy`);
  else causes.oneOf(`${path}.restartPolicy`, spec.restartPolicy, restartPolicies);
  if (!spec.dnsPolicy) causes.required(`${path}.dnsPolicy`);
  else causes.oneOf(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES);
  if (
    spec.activeDeadlineSeconds !== undefined &&
    (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > 2147483647)
  )
    causes.invalid(
      `${path}.activeDeadlineSeconds`,
      spec.activeDeadlineSeconds,
      'must be between 1 and 2147483647, inclusive',
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
    causes.notSupported(`${path}.preemptionPolicy`, spec.preemptionPolicy, ['Never', 'PreemptLowerPriority']);
  causes.push(...validateTolerations(spec, path));
  (spec.topologySpreadConstraints ?? []).forEach((c, i) => {
    causes.push(
      ...validateLabelSelector(`${path}.topologySpreadConstraints[${i}].labelSelector`, c.labelSelector),
    );
  });
  return causes;
}

/** The volumes of a pod spec; their names are added to `volumeNames`. */
function validateVolumes(spec: PodSpec, path: string, volumeNames: Set<string>): StatusCause[] {
  const causes = new Causes();
  (spec.volumes ?? []).forEach((v, i) => {
    const vp = `${path}.volumes[${i}]`;
    if (!v.name) causes.required(`${vp}.name`);
    else {
      causes.push(...dnsLabel(`${vp}.name`, v.name));
      if (volumeNames.has(v.name)) causes.duplicate(`${vp}.name`, v.name);
      volumeNames.add(v.name);
    }
    const sources = VOLUME_NAMES_RE.filter((k) => v[k] !== undefined && v[k] !== null);
    if (sources.length === 0) causes.required(vp, 'must specify a volume type');
    for (const extra of sources.slice(1))
      causes.forbidden(`${vp}.${extra}`, 'may not specify more than 1 volume type');
    const pvc = v.persistentVolumeClaim as { claimName?: string } | undefined;
    if (pvc && !pvc.claimName) causes.required(`${vp}.persistentVolumeClaim.claimName`);
    const cm = v.configMap as { name?: string } | undefined;
    if (cm && !cm.name) causes.required(`${vp}.configMap.name`);
    const sec = v.secret as { secretName?: string } | undefined;
    if (sec && !sec.secretName) causes.required(`${vp}.secret.secretName`);
    const hp = v.hostPath as { path?: string } | undefined;
    if (hp && !hp.path) causes.required(`${vp}.hostPath.path`);
  });
  return causes;
}

function validateTolerations(spec: PodSpec, path: string): StatusCause[] {
  const causes = new Causes();
  (spec.tolerations ?? []).forEach((t, i) => {
    const tp = `${path}.tolerations[${i}]`;
    if (t.key) causes.push(...qualifiedName(`${tp}.key`, t.key));
    if (!t.key && t.operator !== 'Exists')
      causes.invalid(
        `${tp}.operator`,
        t.operator ?? '',
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
    if (t.operator) causes.oneOf(`${tp}.operator`, t.operator, TOLERATION_OPERATORS);
    if (t.operator === 'Exists' && t.value)
      causes.invalid(`${tp}.operator`, t.value, "value must be empty when `operator` is 'Exists'");
    if (t.effect) causes.oneOf(`${tp}.effect`, t.effect, TAINT_EFFECTS);
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute')
      causes.invalid(
        `${tp}.effect`,
        t.effect ?? '',
        "effect must be 'NoExecute' when `tolerationSeconds` is set",
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
export function validateEphemeralContainers(spec: PodSpec, path: string): Causes {
  const causes = new Causes();
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
      if (all.has(c.name)) causes.duplicate(`${p}.name`, c.name);
      else all.add(c.name);
    }
    const target = (c as Container & { targetContainerName?: string }).targetContainerName;
    if (target && !others.has(target)) causes.notFound(`${p}.targetContainerName`, target);
    for (const f of EPHEMERAL_FORBIDDEN)
      if (isSet((c as Record<string, unknown>)[f]))
        causes.forbidden(`${p}.${f}`, 'cannot be set for an Ephemeral Container');
    (c.volumeMounts ?? []).forEach((m, j) => {
      const mm = m as { subPath?: string; subPathExpr?: string };
      if (mm.subPath)
        causes.forbidden(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container');
      if (mm.subPathExpr)
        causes.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container');
    });
  });
  return causes;
}
