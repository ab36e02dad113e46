// The Service spec and status types, and the spec helpers the kind and its allocators share.
import { errors, type StatusCause } from '../../errors/status.ts';
import type { KObject } from '../../storage/types.ts';

export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  externalName?: string;
  externalTrafficPolicy?: string;
  internalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
}

export interface ServiceStatus {
  loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] };
}

export const specOf = (o: KObject) => (o.spec ?? {}) as ServiceSpec;
export const needsClusterIP = (s: ServiceSpec) => s.type !== 'ExternalName';
export const needsNodePorts = (s: ServiceSpec) =>
  s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
export const needsHealthCheck = (s: ServiceSpec) =>
  s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
export const isHeadless = (s: ServiceSpec) => s.clusterIP === 'None';

export function nodePortsOf(s: ServiceSpec): number[] {
  const out = (s.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n > 0);
  if (s.healthCheckNodePort) out.push(s.healthCheckNodePort);
  return out;
}

export const invalid = (name: string, causes: StatusCause[]) =>
  errors.invalid({ group: '', kind: 'Service' }, name, causes);
