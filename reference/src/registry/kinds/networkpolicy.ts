// NetworkPolicy (networking.orch.io/v1), as Kubernetes 1.28 defaults and validates it: policy
// types default to Ingress (and Egress when egress rules are given), ports default to TCP, a
// port range needs a numeric start, a peer is exactly one ipBlock or selectors, and an
// ipBlock's exceptions are strict subsets of its CIDR. No network plugin enforces it here.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import {
  Causes,
  fieldErr,
  formatLabelSelector,
  ianaSvcName,
  type LabelSelectorObj,
  validateLabelSelector,
} from './common.ts';
import { defineKind, printed } from './define.ts';

const schema = builtinSchema('networking.orch.io/v1', 'NetworkPolicy');

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

interface Port {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface Peer {
  podSelector?: LabelSelectorObj;
  namespaceSelector?: LabelSelectorObj;
  ipBlock?: { cidr?: string; except?: string[] };
}
interface Spec {
  podSelector?: LabelSelectorObj;
  ingress?: { ports?: Port[]; from?: Peer[] }[];
  egress?: { ports?: Port[]; to?: Peer[] }[];
  policyTypes?: string[];
}

const specOf = (o: KObject) => (o.spec ?? {}) as Spec;

function prepare(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  spec.podSelector ??= {};
  if (!spec.policyTypes?.length) spec.policyTypes = spec.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])])
    for (const p of rule?.ports ?? []) if (p && p.protocol === undefined) p.protocol = 'TCP';
}

// ---------------------------------------------------------------- CIDRs

interface Cidr {
  /** The address as a number of 32 (IPv4) or 128 (IPv6) bits. */
  addr: bigint;
  bits: 32 | 128;
  prefix: number;
}

/** An IPv4 address (leading zeros allowed in its parts, as Kubernetes parses CIDRs), or undefined. */
function ipv4(s: string): bigint | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) + BigInt(p), 0n);
}

/** An IPv6 address (`::` once at most, an IPv4 tail allowed, no zone), or undefined. */
function ipv6(s: string): bigint | undefined {
  let text = s;
  let tail: bigint[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [v4 >> 16n, v4 & 0xffffn];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const group = (h: string) => (h === '' ? [] : h.split(':'));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  const words: bigint[] = [];
  if ([...head, ...rest].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  words.push(...head.map((g) => BigInt(`0x${g}`)));
  if (halves.length === 2) for (let i = given; i < 8; i++) words.push(0n);
  words.push(...rest.map((g) => BigInt(`0x${g}`)), ...tail);
  return words.reduce((acc, w) => (acc << 16n) + w, 0n);
}

/** A CIDR as Kubernetes parses it, or undefined. */
export function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const v4 = ipv4(ip);
  if (v4 !== undefined) return prefix <= 32 ? { addr: v4, bits: 32, prefix } : undefined;
  const v6 = ip.includes(':') ? ipv6(ip) : undefined;
  if (v6 !== undefined) return prefix <= 128 ? { addr: v6, bits: 128, prefix } : undefined;
  return undefined;
}

/** Whether `inner`'s address lies in `outer`'s network. */
function contains(outer: Cidr, inner: Cidr): boolean {
  if (outer.bits !== inner.bits) return false;
  const host = BigInt(outer.bits - outer.prefix);
  return outer.addr >> host === inner.addr >> host;
}

function validateIpBlock(field: string, b: { cidr?: string; except?: string[] }): StatusCause[] {
  if (!b.cidr) return [fieldErr.required(`${field}.cidr`)];
  const cidr = parseCidr(b.cidr);
  if (!cidr) return [fieldErr.invalid(`${field}.cidr`, b.cidr, 'not a valid CIDR')];
  const causes = new Causes();
  for (const [i, e] of (b.except ?? []).entries()) {
    const f = `${field}.except[${i}]`;
    const ex = parseCidr(e);
    if (!ex) return [...causes, fieldErr.invalid(f, e, 'not a valid CIDR')];
    if (!contains(cidr, ex) || cidr.prefix >= ex.prefix)
      causes.invalid(f, e, 'must be a strict subset of `cidr`');
  }
  return causes;
}

// ---------------------------------------------------------------- validation

function validatePort(field: string, p: Port): StatusCause[] {
  const causes = new Causes();
  if (p.protocol !== undefined) causes.oneOf(`${field}.protocol`, p.protocol, PROTOCOLS);
  const bad = (n: number) => !Number.isInteger(n) || n < 1 || n > 65535;
  if (p.port !== undefined) {
    if (typeof p.port === 'number') {
      if (bad(p.port)) causes.invalid(`${field}.port`, p.port, 'must be between 1 and 65535, inclusive');
      if (p.endPort !== undefined) {
        if (p.endPort < p.port)
          causes.invalid(`${field}.endPort`, p.port, 'must be greater than or equal to `port`');
        if (bad(p.endPort))
          causes.invalid(`${field}.endPort`, p.endPort, 'must be between 1 and 65535, inclusive');
      }
    } else {
      if (p.endPort !== undefined)
        causes.invalid(`${field}.endPort`, p.endPort, 'may not be specified when `port` is non-numeric');
      causes.push(...ianaSvcName(`${field}.port`, p.port));
    }
  } else if (p.endPort !== undefined)
    causes.invalid(`${field}.endPort`, p.endPort, 'may not be specified when `port` is not specified');
  return causes;
}

function validatePeer(field: string, peer: Peer): StatusCause[] {
  const causes = new Causes();
  let n = 0;
  for (const k of ['podSelector', 'namespaceSelector'] as const)
    if (peer[k]) {
      n++;
      causes.push(...validateLabelSelector(`${field}.${k}`, peer[k]));
    }
  if (peer.ipBlock) {
    n++;
    causes.push(...validateIpBlock(`${field}.ipBlock`, peer.ipBlock));
  }
  if (n === 0) causes.required(field, 'must specify a peer');
  else if (n > 1 && peer.ipBlock) causes.forbidden(field, 'may not specify both ipBlock and another peer');
  return causes;
}

function validateNetworkPolicy(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const causes = validateLabelSelector('spec.podSelector', spec.podSelector);
  for (const [i, rule] of (spec.ingress ?? []).entries()) {
    for (const [j, p] of (rule?.ports ?? []).entries())
      causes.push(...validatePort(`spec.ingress[${i}].ports[${j}]`, p ?? {}));
    for (const [j, p] of (rule?.from ?? []).entries())
      causes.push(...validatePeer(`spec.ingress[${i}].from[${j}]`, p ?? {}));
  }
  for (const [i, rule] of (spec.egress ?? []).entries()) {
    for (const [j, p] of (rule?.ports ?? []).entries())
      causes.push(...validatePort(`spec.egress[${i}].ports[${j}]`, p ?? {}));
    for (const [j, p] of (rule?.to ?? []).entries())
      causes.push(...validatePeer(`spec.egress[${i}].to[${j}]`, p ?? {}));
  }
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length)
    return [
      ...causes,
      fieldErr.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'),
    ];
  for (const [i, t] of types.entries()) causes.oneOf(`spec.policyTypes[${i}]`, t, POLICY_TYPES);
  return causes;
}

export const networkPolicyDef = defineKind({
  group: 'networking.orch.io',
  kind: 'NetworkPolicy',
  namespaced: true,
  shortNames: ['netpol'],
  schema,
  zeroValue: () => ({ spec: { podSelector: {} } }),
  prepare,
  validate: validateNetworkPolicy,
  table: printed('networkPolicy', {
    'Pod-Selector': (o) => formatLabelSelector(specOf(o).podSelector) || '<none>',
  }),
  tracksGeneration: true,
});
