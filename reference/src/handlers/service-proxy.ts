// `.../services/<[scheme:]name[:port]>/proxy/<path>`: HTTP to one of a service's endpoints, as
// Kubernetes 1.28's service proxy does. A port number is first turned into the service port of
// that number's name (none: 503). The service's Endpoints give the backends: a subset with an
// address and the named port, the address backed by a pod of the namespace whose IPs include it.
// None: 503 `no endpoints available for service`.
import { errors } from '../errors/status.ts';
import { joinHostPort, joinPath, splitSchemeNamePort } from './connect-location.ts';
import type { Handler, Scope } from './scope.ts';

interface EndpointAddress {
  ip?: string;
  targetRef?: { kind?: string; name?: string; namespace?: string };
}
interface Subset {
  addresses?: EndpointAddress[];
  ports?: { name?: string; port?: number }[];
}

/** Kubernetes' isValidAddress: the address names a pod of the request's namespace that has that IP. */
async function validAddress(s: Scope, a: EndpointAddress): Promise<boolean> {
  if (!a.targetRef || a.targetRef.namespace !== s.namespace || !a.targetRef.name) return false;
  const pod = s.registry.byResource('', 'pods')!.store.getStored(s.namespace, a.targetRef.name);
  if (!pod) return false;
  const st = (pod.obj.status ?? {}) as { podIP?: string; podIPs?: { ip?: string }[] };
  const ips = st.podIPs?.length ? st.podIPs.map((p) => p.ip) : st.podIP ? [st.podIP] : [];
  return ips.includes(a.ip);
}

/** Starting at a random index, as Kubernetes spreads requests over subsets and addresses. */
function rotated<T>(xs: T[]): T[] {
  const k = Math.floor(Math.random() * xs.length);
  return [...xs.slice(k), ...xs.slice(0, k)];
}

export const serviceProxyHandler: Handler = async (s) => {
  const id = splitSchemeNamePort(s.name);
  if (!id) throw errors.badRequest(`invalid service request ${JSON.stringify(s.name)}`);
  let portName = id.port;
  if (/^[-+]?\d+$/.test(portName)) {
    const svc = await s.store.get(s.namespace, id.name);
    const ports = ((svc.spec ?? {}) as { ports?: { name?: string; port?: number }[] }).ports ?? [];
    const found = ports.find((p) => p.port === Number(portName));
    if (!found)
      throw errors.unavailable(
        `no service port ${Number(portName)} found for service ${JSON.stringify(id.name)}`,
      );
    portName = found.name ?? '';
  }
  const eps = await s.registry.byResource('', 'endpoints')!.store.get(s.namespace, id.name);
  const subsets = ((eps as { subsets?: Subset[] }).subsets ?? []) as Subset[];
  if (subsets.length === 0)
    throw errors.unavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
  for (const ss of rotated(subsets)) {
    if (!ss.addresses?.length) continue;
    for (const p of ss.ports ?? []) {
      if ((p.name ?? '') !== portName) continue;
      for (const a of rotated(ss.addresses)) {
        if (!a.ip || !(await validAddress(s, a))) continue;
        const location = new URL(
          `${id.scheme || 'http'}://${joinHostPort(a.ip, p.port ?? 0)}${joinPath(s.subpath)}`,
        );
        await s.forward(location, s.query.toString());
        return;
      }
    }
  }
  throw errors.unavailable(`no endpoints available for service ${JSON.stringify(s.name)}`);
};
