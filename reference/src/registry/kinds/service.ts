import { arr, bool, int, intOrString, keyedList, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import type { Registry } from '../registry.ts';
import type { RequestContext, ResourceDef } from '../types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, formatLabels, keepStoredStatus, schemaStatusUpdate } from './common.ts';
import { defineKind, type KindSpec, printed } from './define.ts';
import { ServiceAllocator } from './service-allocators.ts';
import {
  invalid,
  isHeadless,
  needsClusterIP,
  needsHealthCheck,
  needsNodePorts,
  nodePortsOf,
  type ServiceSpec,
  type ServiceStatus,
  specOf,
} from './service-spec.ts';
import { validateClusterIPChange, validateService } from './service-validation.ts';

// ------------------------------------------------------------------ schema

const servicePort = obj({
  name: str(),
  protocol: str(),
  appProtocol: str(),
  port: int(),
  targetPort: intOrString(),
  nodePort: int(),
});

const schema = objectSchema({
  spec: obj({
    ports: keyedList(servicePort, ['port', 'protocol']),
    selector: mapOf(str(), { 'x-orch-map-type': 'atomic' }),
    clusterIP: str(),
    clusterIPs: arr(str(), { 'x-orch-list-type': 'atomic' }),
    type: str(),
    externalIPs: arr(str()),
    sessionAffinity: str(),
    loadBalancerIP: str(),
    loadBalancerSourceRanges: arr(str()),
    externalName: str(),
    externalTrafficPolicy: str(),
    healthCheckNodePort: int(),
    publishNotReadyAddresses: bool(),
    sessionAffinityConfig: obj({ clientIP: obj({ timeoutSeconds: int() }) }),
    ipFamilies: arr(str(), { 'x-orch-list-type': 'atomic' }),
    ipFamilyPolicy: str(),
    allocateLoadBalancerNodePorts: bool(),
    loadBalancerClass: str(),
    internalTrafficPolicy: str(),
  }),
  status: obj({
    loadBalancer: obj({
      ingress: arr(
        obj({
          ip: str(),
          hostname: str(),
          ipMode: str(),
          ports: arr(obj({ port: int(), protocol: str(), error: str() })),
        }),
      ),
    }),
    conditions: keyedList(
      obj({
        type: str(),
        status: str(),
        observedGeneration: int(),
        lastTransitionTime: time(),
        reason: str(),
        message: str(),
      }),
      ['type'],
    ),
  }),
});

const POLICIES = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];

// ------------------------------------------------------------------ defaults

function normalize(o: KObject): ServiceSpec {
  const spec = specOf(o);
  o.spec = spec;
  spec.type ||= 'ClusterIP';
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'ClientIP') {
    spec.sessionAffinityConfig ??= {};
    spec.sessionAffinityConfig.clientIP ??= {};
    spec.sessionAffinityConfig.clientIP.timeoutSeconds ??= 10800;
  }
  for (const p of spec.ports ?? []) {
    if (!p || typeof p !== 'object') continue;
    p.protocol ||= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  // clusterIP mirrors clusterIPs[0]
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  if (!spec.clusterIP && spec.clusterIPs?.length) spec.clusterIP = spec.clusterIPs[0];
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ||= 'Cluster';
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') spec.externalTrafficPolicy ||= 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  return spec;
}

/** IP families: this cluster is single-stack IPv4. */
function initFamilies(spec: ServiceSpec, name: string): void {
  if (spec.type === 'ExternalName') {
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
    return;
  }
  const causes = new Causes();
  if (spec.ipFamilyPolicy) causes.oneOf('spec.ipFamilyPolicy', spec.ipFamilyPolicy, POLICIES);
  const headlessNoSelector = isHeadless(spec) && Object.keys(spec.selector ?? {}).length === 0;
  if (spec.ipFamilyPolicy === 'RequireDualStack' && !headlessNoSelector)
    causes.invalid(
      'spec.ipFamilyPolicy',
      spec.ipFamilyPolicy,
      'this cluster is not configured for dual-stack services',
    );
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (f === 'IPv6') causes.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster');
    else if (f !== 'IPv4') causes.notSupported(`spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']);
  });
  if ((spec.ipFamilies ?? []).length > 1 && !causes.length)
    causes.invalid(
      'spec.ipFamilies',
      spec.ipFamilies,
      'this cluster is not configured for dual-stack services',
    );
  for (const ip of spec.clusterIPs ?? []) {
    if (ip !== 'None' && ip.includes(':'))
      causes.invalid('spec.clusterIPs', spec.clusterIPs, `IPFamily IPv6 is not configured on cluster`);
  }
  if (causes.length) throw invalid(name, causes);
  spec.ipFamilyPolicy ||= headlessNoSelector ? 'RequireDualStack' : 'SingleStack';
  if (!spec.ipFamilies?.length) spec.ipFamilies = ['IPv4'];
}

/** What an update that omits server-assigned values keeps from the stored Service (Kubernetes' patchAllocatedValues). */
function patchAllocated(spec: ServiceSpec, before: ServiceSpec): void {
  if (needsClusterIP(before) && needsClusterIP(spec)) {
    if (!spec.clusterIP) spec.clusterIP = before.clusterIP;
    if (!spec.clusterIPs?.length && before.clusterIPs?.length) spec.clusterIPs = [...before.clusterIPs];
    spec.ipFamilies ??= before.ipFamilies;
    spec.ipFamilyPolicy ??= before.ipFamilyPolicy;
  }
  if (needsNodePorts(before) && needsNodePorts(spec)) {
    const used = new Set((spec.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n > 0));
    const byName = new Map((before.ports ?? []).map((p) => [p.name ?? '', p.nodePort ?? 0]));
    for (const p of spec.ports ?? []) {
      if (p.nodePort) continue;
      const v = byName.get(p.name ?? '');
      if (v && !used.has(v)) p.nodePort = v;
    }
  }
  if (needsHealthCheck(before) && needsHealthCheck(spec) && !spec.healthCheckNodePort)
    spec.healthCheckNodePort = before.healthCheckNodePort;
}

/** Values the new type does not use are cleared when the client left them unchanged (Kubernetes' dropTypeDependentFields). */
function dropTypeDependent(spec: ServiceSpec, before: ServiceSpec): void {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (needsClusterIP(before) && !needsClusterIP(spec)) {
    if (
      same(spec.clusterIPs, before.clusterIPs) ||
      (spec.clusterIP === before.clusterIP && !spec.clusterIPs)
    ) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (same(spec.ipFamilies, before.ipFamilies)) delete spec.ipFamilies;
    if (same(spec.ipFamilyPolicy, before.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(before) && !needsNodePorts(spec)) {
    const oldPorts = (before.ports ?? []).map((p) => p.nodePort ?? 0);
    const newPorts = (spec.ports ?? []).map((p) => p.nodePort ?? 0);
    if (same(oldPorts, newPorts) || newPorts.every((n) => n === 0 || oldPorts.includes(n)))
      for (const p of spec.ports ?? []) delete p.nodePort;
  }
  if (
    needsHealthCheck(before) &&
    !needsHealthCheck(spec) &&
    spec.healthCheckNodePort === before.healthCheckNodePort
  )
    delete spec.healthCheckNodePort;
  if (
    before.type === 'LoadBalancer' &&
    spec.type !== 'LoadBalancer' &&
    spec.allocateLoadBalancerNodePorts === before.allocateLoadBalancerNodePorts
  )
    delete spec.allocateLoadBalancerNodePorts;
  if (
    (before.type === 'NodePort' || before.type === 'LoadBalancer') &&
    spec.type !== 'NodePort' &&
    spec.type !== 'LoadBalancer'
  )
    if (spec.externalTrafficPolicy === before.externalTrafficPolicy) delete spec.externalTrafficPolicy;
  if (
    before.type !== 'ExternalName' &&
    spec.type === 'ExternalName' &&
    spec.internalTrafficPolicy === before.internalTrafficPolicy
  )
    delete spec.internalTrafficPolicy;
}

// ------------------------------------------------------------------ table

function externalIP(o: KObject): string {
  const spec = specOf(o);
  const ext = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return ext.length ? ext.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [
        ...new Set(
          ((o.status as ServiceStatus | undefined)?.loadBalancer?.ingress ?? [])
            .map((i) => i.ip || i.hostname || '')
            .filter(Boolean),
        ),
      ].sort();
      if (ext.length) return [...lb, ...ext].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function portsText(o: KObject): string {
  const ports = specOf(o).ports ?? [];
  if (ports.length === 0) return '<none>';
  return ports
    .map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`))
    .join(',');
}

/** kubectl's columns for services. */
const SERVICE_COLUMNS = {
  table: printed('service', {
    Type: 'spec.type',
    'Cluster-IP': (o) => specOf(o).clusterIPs?.[0] ?? '<none>',
    'External-IP': externalIP,
    'Port(s)': portsText,
    Selector: (o) => formatLabels(specOf(o).selector),
  }),
} satisfies Partial<KindSpec>;

// ------------------------------------------------------------------ definition

export function serviceDef(registry: () => Registry): ResourceDef {
  const alloc = new ServiceAllocator(registry);
  const exists = (o: KObject) =>
    !!registry().storage.get(ServiceAllocator.key(o.metadata.namespace ?? '', o.metadata.name ?? ''));
  return defineKind({
    group: '',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['proxy', 'status'],
    schema,
    zeroValue: () => ({ spec: {}, status: { loadBalancer: {} } }),
    nameRule: 'label1035',
    returnDeletedObject: true,
    ...SERVICE_COLUMNS,
    prepareForCreate(o: KObject, ctx: RequestContext) {
      const spec = normalize(o);
      o.status = { loadBalancer: {} };
      initFamilies(spec, o.metadata.name ?? '');
      if (isHeadless(spec)) spec.clusterIPs = ['None'];
      // a create bound to fail with AlreadyExists does not hold anything
      alloc.allocate(o, { ips: [], ports: [] }, ctx.dryRun || exists(o));
    },
    prepareForUpdate(o: KObject, old: KObject, ctx: RequestContext) {
      const spec = normalize(o);
      const before = specOf(old);
      patchAllocated(spec, before);
      dropTypeDependent(spec, before);
      if (isHeadless(spec) && !spec.clusterIPs?.length) spec.clusterIPs = ['None'];
      keepStoredStatus(o, old);
      initFamilies(spec, o.metadata.name ?? '');
      // claims of earlier writes of this service are settled: stored, or dropped
      alloc.release(old.metadata.uid ?? '', true);
      // a changed cluster IP is a validation error, not a new allocation
      if (
        needsClusterIP(before) &&
        needsClusterIP(spec) &&
        before.clusterIP &&
        spec.clusterIP !== before.clusterIP
      )
        return;
      alloc.allocate(o, { ips: before.clusterIPs ?? [], ports: nodePortsOf(before) }, ctx.dryRun);
    },
    prepareForStatusUpdate: schemaStatusUpdate(schema, 'Service'),
    validate(o: KObject) {
      const causes = validateService(o);
      if (causes.length || nameProblem(o.metadata.name ?? '', 'label1035'))
        alloc.release(o.metadata.uid ?? '', true);
      return causes;
    },
    validateUpdate(o: KObject, old: KObject) {
      const causes = [...validateService(o), ...validateClusterIPChange(specOf(o), specOf(old))];
      if (causes.length) alloc.release(o.metadata.uid ?? '', true);
      return causes;
    },
    afterCreate: (o) => alloc.commit(o),
    afterDelete: (o) => alloc.release(o.metadata.uid ?? ''),
  });
}
