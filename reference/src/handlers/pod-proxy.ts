// `.../pods/<[scheme:]name[:port]>/proxy/<path>`: HTTP to a pod's IP, as Kubernetes 1.28's pod
// proxy does: the port named, else the pod's first declared container port, else none (the
// scheme's default); the scheme http (or https when named). Only a global unicast pod IP is
// proxied to (else 400 `address not allowed`).
import { errors } from '../errors/status.ts';
import type { PodSpec } from '../registry/kinds/pod-spec.ts';
import { getPod, isGlobalUnicast, joinHostPort, joinPath, splitSchemeNamePort } from './connect-location.ts';
import type { Handler } from './scope.ts';

export const podProxyHandler: Handler = async (s) => {
  const id = splitSchemeNamePort(s.name);
  if (!id) throw errors.badRequest(`invalid pod request ${JSON.stringify(s.name)}`);
  const pod = await getPod(s, id.name);
  let port = id.port;
  if (!port)
    for (const c of ((pod.spec ?? {}) as PodSpec).containers ?? [])
      if (c.ports?.length) {
        port = String(c.ports[0]!.containerPort);
        break;
      }
  const status = (pod.status ?? {}) as { podIP?: string; podIPs?: { ip?: string }[] };
  const ip = status.podIPs?.[0]?.ip ?? status.podIP ?? '';
  if (!isGlobalUnicast(ip)) throw errors.badRequest('address not allowed');
  const host = port ? joinHostPort(ip, port) : ip.includes(':') ? `[${ip}]` : ip;
  const location = new URL(`${id.scheme || 'http'}://${host}${joinPath(s.subpath)}`);
  await s.forward(location, s.query.toString());
};
