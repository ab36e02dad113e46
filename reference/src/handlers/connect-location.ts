// Where the connect subresources lead, as Kubernetes 1.28 finds it: the `[scheme:]name[:port]`
// form of a proxy's name, a pod's container, a node's address and agent port, and the rule
// that only global unicast addresses are proxied to.
import { promises as dns } from 'node:dns';
import { errors } from '../errors/status.ts';
import { isLinkLocalUnicast, isLoopback, isUnspecified, parseIP } from '../registry/kinds/ip-address.ts';
import type { PodSpec } from '../registry/kinds/pod-spec.ts';
import type { KObject } from '../storage/types.ts';
import type { Scope } from './scope.ts';

/** The node agent's port when a node reports none, and its scheme (Kubernetes' kubelet defaults). */
export const NODE_AGENT_PORT = 10250;
const NODE_AGENT_SCHEME = 'https:';
/** The address types a node is reached by, in order (the API server's default preference). */
const PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
const HOSTNAME_LABEL = 'orch.io/hostname';

/** Kubernetes' SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port` (scheme http, https or empty). */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (!name || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

/** Go's net.IP.IsGlobalUnicast: an address that is not unspecified, loopback, link-local, multicast or broadcast. */
export function isGlobalUnicast(text: string): boolean {
  const ip = parseIP(text);
  if (!ip) return false;
  const b = ip.bytes;
  const multicast = ip.v4 ? (b[12]! & 0xf0) === 0xe0 : b[0] === 0xff;
  const broadcast = ip.v4 && b.subarray(12).every((x) => x === 255);
  return !broadcast && !multicast && !isUnspecified(ip) && !isLoopback(ip) && !isLinkLocalUnicast(ip);
}

/** `host:port` with an IPv6 host in brackets (Go's JoinHostPort). */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * A subpath joined to a location's path as Go's JoinPreservingTrailingSlash does: cleaned
 * (`.` and `..` resolved, repeated slashes folded), its trailing slash kept.
 */
export function joinPath(subpath: string): string {
  if (!subpath) return '';
  const out: string[] = [];
  for (const seg of subpath.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  let p = `/${out.join('/')}`;
  if (subpath.endsWith('/') && !p.endsWith('/')) p += '/';
  return p;
}

export async function getPod(s: Scope, name: string): Promise<KObject> {
  return s.registry.byResource('', 'pods')!.store.get(s.namespace, name);
}

/** Every container name of a pod: init, regular, ephemeral. */
function allContainerNames(spec: PodSpec): string[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]
    .map((c) => c?.name ?? '')
    .filter(Boolean);
}

/**
 * The container both choices agree on: the one named, which must be one of the pod's (else a
 * 400); else the only container; a pod with none is a 400. Undefined when the pod has several
 * and none is named: each caller words its own list of them.
 */
function namedOrOnlyContainer(pod: KObject, spec: PodSpec, container: string): string | undefined {
  const name = pod.metadata.name!;
  if (container) {
    if (!allContainerNames(spec).includes(container))
      throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
    return container;
  }
  const cs = spec.containers ?? [];
  if (cs.length === 1) return cs[0]!.name ?? '';
  if (cs.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
  return undefined;
}

/**
 * The container a log request reads (1.28's validateContainer for logs): the one named, which
 * must be one of the pod's; else the only container; else a 400 listing them all.
 */
export function logContainer(pod: KObject, container: string): string {
  const spec = (pod.spec ?? {}) as PodSpec;
  const chosen = namedOrOnlyContainer(pod, spec, container);
  if (chosen !== undefined) return chosen;
  throw errors.badRequest(
    `a container name must be specified for pod ${pod.metadata.name!}, choose one of: [${allContainerNames(spec).join(' ')}]`,
  );
}

/**
 * The container an exec or attach reaches (1.28's streamLocation): as for logs, but the
 * choice lists the containers and, apart, the init containers.
 */
export function streamContainer(pod: KObject, container: string): string {
  const spec = (pod.spec ?? {}) as PodSpec;
  const chosen = namedOrOnlyContainer(pod, spec, container);
  if (chosen !== undefined) return chosen;
  const cs = spec.containers ?? [];
  let msg = `a container name must be specified for pod ${pod.metadata.name!}, choose one of: [${cs.map((c) => c.name).join(' ')}]`;
  const inits = spec.initContainers ?? [];
  if (inits.length) msg += ` or one of the init containers: [${inits.map((c) => c.name).join(' ')}]`;
  throw errors.badRequest(msg);
}

/** The node a pod runs on; a pod not yet on one is a 400. */
export function podNode(pod: KObject): string {
  const node = ((pod.spec ?? {}) as { nodeName?: string }).nodeName;
  if (!node) throw errors.badRequest(`pod ${pod.metadata.name} does not have a host assigned`);
  return node;
}

interface NodeAddress {
  type?: string;
  address?: string;
}

/** Go's `%v` of a node's addresses (`[{InternalIP 10.0.0.1}]`), as the no-address error prints them. */
function goAddresses(as: NodeAddress[]): string {
  return `[${as.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ')}]`;
}

/** How a node's agent is reached (1.28's NodeConnectionInfoGetter): its preferred address and endpoint port. */
export async function nodeConnection(
  s: Scope,
  nodeName: string,
): Promise<{ scheme: string; host: string; port: string }> {
  const node = await s.registry.byResource('', 'nodes')!.store.get('', nodeName);
  const status = (node.status ?? {}) as {
    addresses?: NodeAddress[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
  const addresses = Array.isArray(status.addresses) ? status.addresses : [];
  let host: string | undefined;
  for (const t of PREFERRED_ADDRESS_TYPES) {
    host = addresses.find((a) => a?.type === t && a.address)?.address;
    if (host) break;
    if (t === 'Hostname' && node.metadata.labels?.[HOSTNAME_LABEL]) {
      host = node.metadata.labels[HOSTNAME_LABEL];
      break;
    }
  }
  if (!host)
    throw errors.internal(`no preferred addresses found; known addresses: ${goAddresses(addresses)}`);
  const p = status.daemonEndpoints?.kubeletEndpoint?.Port;
  const port = typeof p === 'number' && p > 0 ? p : NODE_AGENT_PORT;
  return { scheme: NODE_AGENT_SCHEME, host, port: String(port) };
}

/** Kubernetes' isProxyableHostname: every address the name resolves to is global unicast (else 400). */
export async function checkProxyable(hostname: string): Promise<void> {
  let ips: string[];
  if (parseIP(hostname)) ips = [hostname];
  else {
    try {
      ips = (await dns.lookup(hostname, { all: true })).map((a) => a.address);
    } catch (e) {
      throw errors.badRequest(
        `lookup ${hostname}: ${(e as NodeJS.ErrnoException).code === 'ENOTFOUND' ? 'no such host' : String((e as Error).message)}`,
      );
    }
  }
  if (ips.length === 0) throw errors.badRequest('no addresses for hostname');
  if (!ips.every(isGlobalUnicast)) throw errors.badRequest('address not allowed');
}

/** A boolean query option as Kubernetes decodes one (`true`/`false`, `1`/`0`, any case); else a 400. */
export function boolOption(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === '') return false;
  const l = v.toLowerCase();
  if (['true', '1', 't'].includes(l)) return true;
  if (['false', '0', 'f'].includes(l)) return false;
  throw errors.badRequest(
    `invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`,
  );
}

/** An integer query option (Go int64); else a 400. */
export function intOption(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[-+]?\d+$/.test(v))
    throw errors.badRequest(
      `invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`,
    );
  return Number(v);
}
