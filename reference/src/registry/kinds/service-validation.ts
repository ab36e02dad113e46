// Validation of a Service (core/v1) as Kubernetes 1.28 words it: type, ports, session
// affinity, selector, cluster IPs, external IPs, traffic policies, and on update the cluster
// IPs that may not change.
import type { StatusCause } from '../../errors/status.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, dnsLabel, ianaSvcName, labelMap, portNumber } from './common.ts';
import { isIp } from './service-allocators.ts';
import { isHeadless, needsClusterIP, needsHealthCheck, type ServiceSpec, specOf } from './service-spec.ts';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC = ['Cluster', 'Local'];

export function validateService(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const causes = new Causes();
  const type = spec.type ?? '';
  if (!TYPES.includes(type)) causes.notSupported('spec.type', type, TYPES);
  const headless = isHeadless(spec);
  const ports = spec.ports ?? [];
  if (ports.length === 0 && !headless && type !== 'ExternalName') causes.required('spec.ports');
  causes.push(...validatePorts(ports, type));
  causes.oneOf('spec.sessionAffinity', spec.sessionAffinity ?? '', AFFINITIES);
  const timeout = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (spec.sessionAffinity === 'ClientIP' && timeout !== undefined && (timeout <= 0 || timeout > 86400))
    causes.invalid(
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
      timeout,
      'must be greater than 0 and less than 86400',
    );
  if (spec.sessionAffinity === 'None' && spec.sessionAffinityConfig)
    causes.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None');
  causes.push(...labelMap('spec.selector', spec.selector));
  causes.push(...validateClusterIPs(spec, type));
  (spec.externalIPs ?? []).forEach((ip, i) => {
    if (!isIp(ip))
      causes.invalid(
        `spec.externalIPs[${i}]`,
        ip,
        'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      );
  });
  causes.push(...validateTrafficPolicies(spec, type));
  return causes;
}

function validatePorts(ports: NonNullable<ServiceSpec['ports']>, type: string): StatusCause[] {
  const causes = new Causes();
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const pp = `spec.ports[${i}]`;
    if (!p.name) {
      if (ports.length > 1) causes.required(`${pp}.name`);
    } else {
      causes.push(...dnsLabel(`${pp}.name`, p.name));
      if (names.has(p.name)) causes.duplicate(`${pp}.name`, p.name);
      names.add(p.name);
    }
    if (p.port === undefined || p.port === 0) causes.required(`${pp}.port`);
    else causes.push(...portNumber(`${pp}.port`, p.port));
    if (!p.protocol) causes.required(`${pp}.protocol`);
    else if (!PROTOCOLS.includes(p.protocol)) causes.notSupported(`${pp}.protocol`, p.protocol, PROTOCOLS);
    if (typeof p.targetPort === 'number') causes.push(...portNumber(`${pp}.targetPort`, p.targetPort));
    else if (typeof p.targetPort === 'string') causes.push(...ianaSvcName(`${pp}.targetPort`, p.targetPort));
    if (p.nodePort) {
      if (type === 'ClusterIP')
        causes.forbidden(`${pp}.nodePort`, "may not be used when `type` is 'ClusterIP'");
      else if (type === 'ExternalName')
        causes.forbidden(`${pp}.nodePort`, "may not be used when `type` is 'ExternalName'");
      else causes.push(...portNumber(`${pp}.nodePort`, p.nodePort));
    }
    const key = `${p.port}/${p.protocol}`;
    if (seen.has(key)) causes.duplicate(pp, { port: p.port, protocol: p.protocol });
    seen.add(key);
  });
  return causes;
}

function validateClusterIPs(spec: ServiceSpec, type: string): StatusCause[] {
  const causes = new Causes();
  if (type === 'ExternalName') {
    if (!spec.externalName) causes.required('spec.externalName');
    else {
      const p = nameProblem(spec.externalName.replace(/\.$/, ''), 'subdomain');
      if (p) causes.invalid('spec.externalName', spec.externalName, p);
    }
    if (spec.clusterIP || spec.clusterIPs?.length)
      causes.forbidden('spec.clusterIPs', 'may not be set for ExternalName services');
  } else {
    const ips = spec.clusterIPs ?? [];
    if (spec.clusterIP && ips.length && ips[0] !== spec.clusterIP)
      causes.invalid('spec.clusterIPs', ips, 'element [0] must match clusterIP');
    ips.forEach((ip, i) => {
      if (ip === 'None') {
        if (type === 'NodePort' || type === 'LoadBalancer')
          causes.invalid(`spec.clusterIPs[${i}]`, ip, `may not be set to 'None' for ${type} services`);
      } else if (!isIp(ip))
        causes.invalid(`spec.clusterIPs[${i}]`, ip, "must be empty, 'None', or a valid IP address");
    });
  }
  return causes;
}

function validateTrafficPolicies(spec: ServiceSpec, type: string): StatusCause[] {
  const causes = new Causes();
  if (spec.externalTrafficPolicy) {
    if (type !== 'NodePort' && type !== 'LoadBalancer')
      causes.invalid(
        'spec.externalTrafficPolicy',
        spec.externalTrafficPolicy,
        "may only be set when `type` is 'NodePort' or 'LoadBalancer'",
      );
    else causes.oneOf('spec.externalTrafficPolicy', spec.externalTrafficPolicy, TRAFFIC);
  }
  if (spec.internalTrafficPolicy)
    causes.oneOf('spec.internalTrafficPolicy', spec.internalTrafficPolicy, TRAFFIC);
  if (spec.healthCheckNodePort && !needsHealthCheck(spec))
    causes.invalid(
      'spec.healthCheckNodePort',
      spec.healthCheckNodePort,
      "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    );
  if (spec.allocateLoadBalancerNodePorts !== undefined && type !== 'LoadBalancer')
    causes.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'");
  return causes;
}

/** Cluster IPs, once set, stay (unless the service stops or starts needing one, or stays headless). */
export function validateClusterIPChange(spec: ServiceSpec, before: ServiceSpec): StatusCause[] {
  const causes = new Causes();
  if (needsClusterIP(before) && needsClusterIP(spec) && !(isHeadless(before) && isHeadless(spec))) {
    const a = before.clusterIPs ?? [];
    const b = spec.clusterIPs ?? [];
    b.forEach((ip, i) => {
      if (i < a.length && a[i] !== ip) causes.invalid(`spec.clusterIPs[${i}]`, b, 'may not change once set');
    });
    if (spec.clusterIP !== before.clusterIP && a.length === b.length && a[0] === b[0])
      causes.invalid('spec.clusterIP', spec.clusterIP ?? '', 'field is immutable');
  }
  return causes;
}
