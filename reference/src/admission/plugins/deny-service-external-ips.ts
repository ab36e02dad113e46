// DenyServiceExternalIPs (doc3 plugin table: rejects new use of `externalIPs` on Services; off
// by default): as Kubernetes 1.28, a Service written with an external IP its stored version did
// not have is refused (403); keeping or dropping existing ones is allowed.
import type { AdmissionPlugin } from '../types.ts';
import { forbidden, isCoreWrite } from './util.ts';

const externalIPs = (o: unknown): string[] => {
  const v = (o as { spec?: { externalIPs?: unknown } } | undefined)?.spec?.externalIPs;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

export const denyServiceExternalIPs = (): AdmissionPlugin => ({
  name: 'DenyServiceExternalIPs',
  handles: (a) =>
    isCoreWrite(a, 'services') && (a.operation === 'CREATE' || a.operation === 'UPDATE') && !!a.object,
  validate(a) {
    const now = externalIPs(a.object);
    if (now.length === 0) return;
    const before = a.oldObject ? new Set(externalIPs(a.oldObject)) : undefined;
    if (before && now.every((ip) => before.has(ip))) return;
    throw forbidden(a, 'Use of external IPs is denied by admission control');
  },
});
