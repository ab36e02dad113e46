// Endpoints (v1): the addresses that implement a service, in subsets of addresses (ready or
// not) and the ports they serve. Namespaced; PUT may create one. A subset needs an address;
// addresses are IPs that are not special (unspecified, loopback, link-local), ports are
// named when there are several, with TCP as the default protocol. What is stored is the
// canonical repacking of the subsets (endpoints-repack.ts), made once the object is valid.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, causesOf, dnsLabel, portNumber, qualifiedName } from './common.ts';
import { defineKind, printed } from './define.ts';
import {
  type EndpointAddress,
  type EndpointPort,
  type EndpointSubset,
  repackSubsets,
} from './endpoints-repack.ts';
import { nonSpecialIP, validIP } from './ip-address.ts';

export interface Endpoints {
  metadata: KObject['metadata'];
  subsets?: EndpointSubset[];
}

const schema = builtinSchema('v1', 'Endpoints');
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

const subsetsOf = (o: KObject) =>
  ((o as Endpoints).subsets ?? []).filter((s): s is EndpointSubset => s !== null && typeof s === 'object');

function prepare(o: KObject): void {
  for (const s of subsetsOf(o))
    for (const p of s.ports ?? []) if (p && typeof p === 'object') p.protocol ||= 'TCP';
}

function validateAddress(a: EndpointAddress, p: string): StatusCause[] {
  const ip = a.ip ?? '';
  const causes = causesOf(validIP(`${p}.ip`, ip));
  if (a.hostname) causes.push(...dnsLabel(`${p}.hostname`, a.hostname));
  if (a.nodeName !== undefined) {
    const np = nameProblem(a.nodeName, 'subdomain');
    if (np) causes.invalid(`${p}.nodeName`, a.nodeName, np);
  }
  causes.push(...nonSpecialIP(`${p}.ip`, ip));
  return causes;
}

function validatePort(port: EndpointPort, requireName: boolean, p: string): StatusCause[] {
  const causes = new Causes();
  if (requireName && !port.name) causes.required(`${p}.name`);
  else if (port.name) causes.push(...dnsLabel(`${p}.name`, port.name));
  causes.push(...portNumber(`${p}.port`, port.port ?? 0));
  if (!port.protocol) causes.required(`${p}.protocol`);
  else if (!PROTOCOLS.includes(port.protocol)) causes.notSupported(`${p}.protocol`, port.protocol, PROTOCOLS);
  if (port.appProtocol !== undefined) causes.push(...qualifiedName(`${p}.appProtocol`, port.appProtocol));
  return causes;
}

function validateSubsets(o: KObject): StatusCause[] {
  const causes = new Causes();
  subsetsOf(o).forEach((s, i) => {
    const p = `subsets[${i}]`;
    if (!s.addresses?.length && !s.notReadyAddresses?.length)
      causes.required(p, 'must specify `addresses` or `notReadyAddresses`');
    for (const [j, a] of (s.addresses ?? []).entries())
      causes.push(...validateAddress(a ?? {}, `${p}.addresses[${j}]`));
    for (const [j, a] of (s.notReadyAddresses ?? []).entries())
      causes.push(...validateAddress(a ?? {}, `${p}.notReadyAddresses[${j}]`));
    const ports = s.ports ?? [];
    for (const [j, port] of ports.entries())
      causes.push(...validatePort(port ?? {}, ports.length > 1, `${p}.ports[${j}]`));
  });
  return causes;
}

/** Validation, then (for a valid object) the canonical form it is stored in. */
function validateAndRepack(o: KObject): StatusCause[] {
  const causes = validateSubsets(o);
  if (causes.length === 0) {
    const packed = repackSubsets(subsetsOf(o));
    if (packed.length) (o as Endpoints).subsets = packed;
    else delete (o as Endpoints).subsets;
  }
  return causes;
}

/** kubectl's Endpoints cell: `ip:port` of ready addresses, three at most, then `+ N more...`. */
export function formatEndpoints(o: KObject): string {
  const subsets = subsetsOf(o);
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  let count = 0;
  let more = false;
  const push = (s: string) => {
    if (list.length === 3) more = true;
    else list.push(s);
  };
  for (const s of subsets) {
    const addrs = s.addresses ?? [];
    if (!s.ports?.length) {
      count += addrs.length;
      for (const a of addrs) push(a.ip ?? '');
      continue;
    }
    for (const port of s.ports) {
      count += addrs.length;
      for (const a of addrs) {
        const ip = a.ip ?? '';
        push(`${ip.includes(':') ? `[${ip}]` : ip}:${port.port ?? 0}`);
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - 3} more...` : ret;
}

export const endpointsDef = defineKind({
  group: '',
  kind: 'Endpoints',
  plural: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  schema,
  allowCreateOnUpdate: true,
  prepare,
  validate: validateAndRepack,
  validateUpdate: validateAndRepack,
  table: printed('endpoint', { Endpoints: formatEndpoints }),
});
