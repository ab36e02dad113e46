// The canonical form Kubernetes stores an Endpoints object's subsets in: addresses grouped by
// the set of ports they serve (an address not ready for one port is not ready for it), one
// subset per group, addresses sorted by IP and target UID, ports and subsets in the order of
// the MD5 of their Go-syntax dump (Kubernetes sorts them so, to make the form unique; the
// dump is reproduced here for that reason alone).
import { createHash } from 'node:crypto';
import type { ObjectReference } from './common.ts';

export interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

// ------------------------------------------------------------------ Go-syntax dump
// As the spew library prints a value with `%#v`: types in parentheses, strings quoted,
// pointers as their type and the value pointed to, nil as `<nil>`.

const q = (s: string | undefined) => JSON.stringify(s ?? '');

const ptr = (type: string, v: string | undefined) =>
  v === undefined ? `(*${type})<nil>` : `(*${type})${q(v)}`;

function dumpRef(r: NonNullable<EndpointAddress['targetRef']>): string {
  return (
    `{Kind:(string)${q(r.kind)} Namespace:(string)${q(r.namespace)} Name:(string)${q(r.name)} ` +
    `UID:(types.UID)${q(r.uid)} APIVersion:(string)${q(r.apiVersion)} ` +
    `ResourceVersion:(string)${q(r.resourceVersion)} FieldPath:(string)${q(r.fieldPath)}}`
  );
}

function dumpAddress(a: EndpointAddress): string {
  const ref = a.targetRef ? `(*core.ObjectReference)${dumpRef(a.targetRef)}` : '(*core.ObjectReference)<nil>';
  return `{IP:(string)${q(a.ip)} Hostname:(string)${q(a.hostname)} NodeName:${ptr('string', a.nodeName)} TargetRef:${ref}}`;
}

function dumpPortFields(p: EndpointPort): string {
  return `{Name:(string)${q(p.name)} Port:(int32)${p.port ?? 0} Protocol:(core.Protocol)${q(p.protocol)} AppProtocol:${ptr('string', p.appProtocol)}}`;
}

function dumpList<T>(type: string, list: T[] | undefined, item: (x: T) => string): string {
  return list === undefined ? `([]${type})<nil>` : `([]${type})[${list.map(item).join(' ')}]`;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The sort key of a port: the MD5 of `(core.EndpointPort){...}`. */
export const portHash = (p: EndpointPort) => md5(`(core.EndpointPort)${dumpPortFields(p)}`);

/** The sort key of a subset: the MD5 of `(core.EndpointSubset){...}`. */
export function subsetHash(s: EndpointSubset): string {
  return md5(
    `(core.EndpointSubset){Addresses:${dumpList('core.EndpointAddress', s.addresses, dumpAddress)} ` +
      `NotReadyAddresses:${dumpList('core.EndpointAddress', s.notReadyAddresses, dumpAddress)} ` +
      `Ports:${dumpList('core.EndpointPort', s.ports, dumpPortFields)}}`,
  );
}

// ------------------------------------------------------------------ repacking

/** Addresses in IP order (bytes of the text), an address without target before one with, then by target UID. */
export function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  const ai = Buffer.from(a.ip ?? '');
  const bi = Buffer.from(b.ip ?? '');
  const c = Buffer.compare(ai, bi);
  if (c !== 0) return c;
  if (!a.targetRef && !b.targetRef) return 0;
  if (!b.targetRef) return 1;
  if (!a.targetRef) return -1;
  const au = a.targetRef.uid ?? '';
  const bu = b.targetRef.uid ?? '';
  return au < bu ? -1 : au > bu ? 1 : 0;
}

const byHash =
  <T>(hash: (x: T) => string) =>
  (a: T, b: T) => {
    const ha = hash(a);
    const hb = hash(b);
    return ha < hb ? -1 : ha > hb ? 1 : 0;
  };

/** The subsets in Kubernetes' canonical form. */
export function repackSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  // one object per address (IP and target UID), the first seen
  const addrs = new Map<string, EndpointAddress>();
  // port (by value; a port with an appProtocol is its own, as Kubernetes compares that pointer) -> address -> ready
  const byPort = new Map<string, { port?: EndpointPort; ready: Map<EndpointAddress, boolean> }>();
  let unique = 0;
  const portKey = (p: EndpointPort | undefined) =>
    p === undefined
      ? 'none'
      : JSON.stringify([
          p.name ?? '',
          p.port ?? 0,
          p.protocol ?? '',
          p.appProtocol === undefined ? null : unique++,
        ]);
  const add = (a: EndpointAddress, port: EndpointPort | undefined, key: string, ready: boolean) => {
    const ak = JSON.stringify([a.ip ?? '', a.targetRef?.uid ?? '']);
    let addr = addrs.get(ak);
    if (!addr) addrs.set(ak, (addr = structuredClone(a)));
    let entry = byPort.get(key);
    if (!entry) byPort.set(key, (entry = { port, ready: new Map() }));
    const was = entry.ready.get(addr);
    if (was === undefined || was) entry.ready.set(addr, ready);
  };
  for (const s of subsets) {
    const ports: (EndpointPort | undefined)[] = s.ports?.length ? s.ports : [undefined];
    for (const port of ports) {
      const key = portKey(port);
      for (const a of s.addresses ?? []) add(a, port, key, true);
      for (const a of s.notReadyAddresses ?? []) add(a, port, key, false);
    }
  }
  // ports grouped by the set of addresses (and readiness) that serve them
  const groups = new Map<string, { ready: Map<EndpointAddress, boolean>; ports?: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const sorted = [...ready.entries()].sort((x, y) => compareAddresses(x[0], y[0]));
    const key = JSON.stringify(sorted.map(([a, r]) => [a.ip ?? '', a.targetRef?.uid ?? '', r]));
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ready }));
    if (port) (g.ports ??= []).push(structuredClone(port));
  }
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const s: EndpointSubset = {};
    for (const [a, r] of g.ready) {
      const list = r ? (s.addresses ??= []) : (s.notReadyAddresses ??= []);
      list.push(structuredClone(a));
    }
    s.addresses?.sort(compareAddresses);
    s.notReadyAddresses?.sort(compareAddresses);
    if (g.ports) {
      s.ports = g.ports;
      s.ports.sort(byHash(portHash));
    }
    out.push(s);
  }
  return out.sort(byHash(subsetHash));
}
