// EndpointSlice (discovery.orch.io/v1): a part of a service's endpoints. Namespaced. One
// address type per slice (IPv4, IPv6 or FQDN, never changed), at most 1000 endpoints of 1 to
// 100 addresses each, ports with unique names (protocol TCP unless said). Since v1 an
// endpoint names its node and zone in `nodeName` and `zone`; v1beta1's `topology` lives on
// as `deprecatedTopology`, which this version does not write: it is dropped from every
// create, and from every update that changes the endpoints.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import { validLabelKey, validLabelValue } from '../../selectors/labels.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import type { RequestContext } from '../types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, dnsLabel, fieldErr, qualifiedName } from './common.ts';
import { defineKind, printed } from './define.ts';
import { nonSpecialIP, parseIP } from './ip-address.ts';

/** The label naming the controller (or user) that manages a slice. */
export const ENDPOINTSLICE_MANAGED_BY_LABEL = 'endpointslice.orch.io/managed-by';
/** The label naming the service a slice belongs to. */
export const ENDPOINTSLICE_SERVICE_NAME_LABEL = 'orch.io/service-name';
/** The topology key v1beta1 kept the node name under. */
const HOSTNAME_LABEL = 'orch.io/hostname';
/** The topology key v1beta1 kept the zone under (moved to `zone`, so never in `deprecatedTopology`). */
const ZONE_LABEL = 'topology.orch.io/zone';

export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;

export interface Endpoint {
  addresses?: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  targetRef?: Record<string, unknown>;
  deprecatedTopology?: Record<string, string>;
  nodeName?: string;
  zone?: string;
  hints?: { forZones?: { name?: string }[] };
}

export interface EndpointPort {
  name?: string;
  protocol?: string;
  port?: number;
  appProtocol?: string;
}

export interface EndpointSlice {
  metadata: KObject['metadata'];
  addressType?: string;
  endpoints?: Endpoint[];
  ports?: EndpointPort[];
}

const schema = builtinSchema('discovery.orch.io/v1', 'EndpointSlice');

const tooMany = (field: string, n: number, max: number): StatusCause => ({
  reason: 'FieldValueTooMany',
  field,
  message: `Too many: ${n}: must have at most ${max} items`,
});

const endpointsOf = (o: KObject) =>
  ((o as EndpointSlice).endpoints ?? []).filter((e) => e && typeof e === 'object');

function prepare(o: KObject): void {
  const s = o as EndpointSlice;
  // Go decodes an absent list as an empty one: the required field is never missing
  s.endpoints ??= [];
  for (const p of s.ports ?? []) {
    if (!p || typeof p !== 'object') continue;
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
  for (const e of endpointsOf(o))
    for (const z of e.hints?.forZones ?? []) if (z && typeof z === 'object') z.name ??= '';
}

/** The node names v1beta1 objects kept in their topology (none are written through v1). */
function topologyNodeNames(o: KObject | undefined): Set<string> {
  const out = new Set<string>();
  for (const e of o ? endpointsOf(o) : []) {
    const n = e.deprecatedTopology?.[HOSTNAME_LABEL];
    if (n) out.add(n);
  }
  return out;
}

/** v1 does not write `deprecatedTopology`; a node name kept there before moves to `nodeName`. */
function dropTopology(o: KObject, old?: KObject): void {
  if (old && deepEqual(endpointsOf(o), endpointsOf(old))) return;
  const before = topologyNodeNames(old);
  for (const e of endpointsOf(o)) {
    const n = e.deprecatedTopology?.[HOSTNAME_LABEL];
    if (e.nodeName === undefined && n !== undefined && before.has(n) && !nameProblem(n, 'subdomain'))
      e.nodeName = n;
    delete e.deprecatedTopology;
  }
}

function validateAddress(type: string | undefined, a: string, p: string): StatusCause[] {
  switch (type) {
    case 'IPv4': {
      const ip = parseIP(a);
      const bad = !ip?.v4 ? [fieldErr.invalid(p, a, 'must be a valid IPv4 address')] : [];
      return [...bad, ...nonSpecialIP(p, a)];
    }
    case 'IPv6': {
      const ip = parseIP(a);
      const bad = !ip || ip.v4 ? [fieldErr.invalid(p, a, 'must be a valid IPv6 address')] : [];
      return [...bad, ...nonSpecialIP(p, a)];
    }
    case 'FQDN':
      return fqdn(p, a);
    default:
      return [];
  }
}

/** A fully qualified domain name: a subdomain of two labels at least (a final dot allowed). */
function fqdn(p: string, v: string): StatusCause[] {
  if (!v) return [fieldErr.required(p)];
  const name = v.endsWith('.') ? v.slice(0, -1) : v;
  const sub = nameProblem(name, 'subdomain');
  if (sub) return [fieldErr.invalid(p, name, sub)];
  const labels = name.split('.');
  if (labels.length < 2)
    return [fieldErr.invalid(p, name, 'should be a domain with at least two segments separated by dots')];
  for (const l of labels) {
    const lp = nameProblem(l, 'label');
    if (lp) return [fieldErr.invalid(p, l, lp)];
  }
  return [];
}

function validateEndpoint(e: Endpoint, type: string | undefined, p: string): StatusCause[] {
  const causes = new Causes();
  const addrs = e.addresses ?? [];
  if (addrs.length === 0) causes.required(`${p}.addresses`, 'must contain at least 1 address');
  else if (addrs.length > MAX_ADDRESSES) causes.push(tooMany(`${p}.addresses`, addrs.length, MAX_ADDRESSES));
  for (const [i, a] of addrs.entries()) causes.push(...validateAddress(type, a, `${p}.addresses[${i}]`));
  if (e.nodeName !== undefined) {
    const np = nameProblem(e.nodeName, 'subdomain');
    if (np) causes.invalid(`${p}.nodeName`, e.nodeName, np);
  }
  const topo = e.deprecatedTopology ?? {};
  const tp = `${p}.deprecatedTopology`;
  if (Object.keys(topo).length > MAX_TOPOLOGY_LABELS)
    causes.push(tooMany(tp, Object.keys(topo).length, MAX_TOPOLOGY_LABELS));
  for (const [k, v] of Object.entries(topo)) {
    const kp = validLabelKey(k);
    if (kp) causes.invalid(tp, k, kp);
    const vp = validLabelValue(v);
    if (vp) causes.invalid(tp, v, vp);
  }
  if (Object.hasOwn(topo, ZONE_LABEL))
    causes.push({
      reason: 'InternalError',
      field: `${tp}[${ZONE_LABEL}]`,
      message: 'Internal error: reserved key was not removed in conversion',
    });
  if (e.hostname !== undefined) causes.push(...dnsLabel(`${p}.hostname`, e.hostname));
  if (e.hints) {
    const zones = e.hints.forZones ?? [];
    const zp = `${p}.hints.forZones`;
    if (zones.length > MAX_ZONE_HINTS) causes.push(tooMany(zp, zones.length, MAX_ZONE_HINTS));
    else {
      const seen = new Set<string>();
      zones.forEach((z, i) => {
        const name = z?.name ?? '';
        const f = `${zp}[${i}].name`;
        if (seen.has(name)) causes.duplicate(f, name);
        else seen.add(name);
        const vp = validLabelValue(name);
        if (vp) causes.invalid(f, name, vp);
      });
    }
  }
  return causes;
}

function validatePorts(ports: EndpointPort[]): StatusCause[] {
  if (ports.length > MAX_PORTS) return [tooMany('ports', ports.length, MAX_PORTS)];
  const causes = new Causes();
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = `ports[${i}]`;
    const name = port?.name ?? '';
    if (name) causes.push(...dnsLabel(`${p}.name`, name));
    if (names.has(name)) causes.duplicate(`${p}.name`, name);
    else names.add(name);
    if (port?.protocol === undefined) causes.required(`${p}.protocol`);
    else causes.oneOf(`${p}.protocol`, port.protocol, PROTOCOLS);
    if (port?.appProtocol !== undefined) causes.push(...qualifiedName(`${p}.appProtocol`, port.appProtocol));
  });
  return causes;
}

function validateEndpointSlice(o: KObject): Causes {
  const s = o as EndpointSlice;
  const causes = new Causes();
  if (!s.addressType) causes.required('addressType');
  else causes.oneOf('addressType', s.addressType, ADDRESS_TYPES);
  const eps = s.endpoints ?? [];
  if (eps.length > MAX_ENDPOINTS) causes.push(tooMany('endpoints', eps.length, MAX_ENDPOINTS));
  else
    for (const [i, e] of eps.entries())
      causes.push(...validateEndpoint(e ?? {}, s.addressType, `endpoints[${i}]`));
  causes.push(...validatePorts(s.ports ?? []));
  return causes;
}

/** kubectl's list of at most three values, and how many more there are. */
function firstThree(list: string[]): string {
  if (list.length > 3) return `${list.slice(0, 3).join(',')} + ${list.length - 3} more...`;
  return list.join(',') || '<unset>';
}

export const endpointSliceDef = defineKind({
  group: 'discovery.orch.io',
  kind: 'EndpointSlice',
  namespaced: true,
  schema,
  zeroValue: () => ({ addressType: '', endpoints: null }),
  prepareForCreate(o: KObject, ctx: RequestContext) {
    prepare(o);
    dropTopology(o);
    if ((o as EndpointSlice).addressType === 'FQDN')
      ctx.warnings.push('spec.addressType: FQDN endpoints are deprecated');
  },
  prepareForUpdate(o: KObject, old: KObject) {
    prepare(o);
    if (!deepEqual(o.metadata.labels ?? {}, old.metadata.labels ?? {}))
      o.metadata.generation = (old.metadata.generation ?? 0) + 1;
    dropTopology(o, old);
  },
  validate: validateEndpointSlice,
  validateUpdate(o: KObject, old: KObject) {
    const causes = validateEndpointSlice(o);
    const now = (o as EndpointSlice).addressType;
    const before = (old as EndpointSlice).addressType;
    if (now !== before) causes.invalid('addressType', now ?? '', 'field is immutable');
    return causes;
  },
  table: printed('endpointSlice', {
    AddressType: 'addressType',
    Ports: (o) =>
      firstThree(
        ((o as EndpointSlice).ports ?? []).map((p) =>
          p.port !== undefined ? String(p.port) : p.name !== undefined ? p.name : '*',
        ),
      ),
    Endpoints: (o) => firstThree(endpointsOf(o).flatMap((e) => e.addresses ?? [])),
  }),
  tracksGeneration: true,
});
