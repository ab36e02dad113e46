// The Service cluster-IP and node-port allocators: the ranges, the pools and ServiceAllocator.
import { randomInt } from 'node:crypto';
import { errors, type StatusCause } from '../../errors/status.ts';
import type { KObject } from '../../storage/types.ts';
import type { Registry } from '../registry.ts';
import { fieldErr } from './common.ts';
import {
  invalid,
  isHeadless,
  needsClusterIP,
  needsHealthCheck,
  needsNodePorts,
  nodePortsOf,
  type ServiceSpec,
  specOf,
} from './service-spec.ts';

export const SERVICE_CIDR = '10.96.0.0/12';
export const NODE_PORT_RANGE = { min: 30000, max: 32767 };
const PENDING_MS = 60_000;

// ------------------------------------------------------------------ IPv4 arithmetic

function ipToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function isIp(s: string): boolean {
  if (ipToInt(s) !== undefined) return true;
  return /^[0-9a-fA-F:.]+$/.test(s) && s.includes(':') && (s.match(/::/g) ?? []).length <= 1;
}

const [CIDR_BASE_TEXT, CIDR_BITS] = SERVICE_CIDR.split('/') as [string, string];
const CIDR_BASE = ipToInt(CIDR_BASE_TEXT)!;
const CIDR_SIZE = 2 ** (32 - Number(CIDR_BITS));

/** The first address of the service range: the API server's own Service holds it. */
export function firstServiceIp(): string {
  return intToIp(CIDR_BASE + 1);
}

// ------------------------------------------------------------------ allocation

interface Owner {
  uid: string;
  key: string;
  committed: boolean;
  ts: number;
}

/** One pool of values (cluster IPs or node ports) and who holds each. */
/** Values a service holds already (from its stored version, on an update). */
interface Held {
  ips: string[];
  ports: number[];
}

/** One allocate call: whose, what it keeps, the node ports claimed so far, how to claim and fail. */
interface Allocation {
  uid: string;
  keep: Held;
  claimedPorts: number[];
  claim<V extends string | number>(pool: Pool<V>, v: V): void;
  fail(causes: StatusCause[]): never;
}

class Pool<V extends string | number> {
  private readonly owners = new Map<V, Owner>();
  private readonly byUid = new Map<string, Set<V>>();

  constructor(
    private readonly holds: (svc: KObject, v: V) => boolean,
    private readonly lookup: (key: string) => KObject | undefined,
  ) {}

  /** Free for `uid`: unowned, owned by `uid`, or owned by someone that no longer uses it. */
  isFree(v: V, uid: string): boolean {
    const o = this.owners.get(v);
    if (!o || o.uid === uid) return true;
    const cur = this.lookup(o.key);
    if (cur && cur.metadata.uid === o.uid && this.holds(cur, v)) return false;
    if (!o.committed && Date.now() - o.ts < PENDING_MS) return false;
    this.drop(v);
    return true;
  }

  claim(v: V, owner: Owner): void {
    const prev = this.owners.get(v);
    if (prev && prev.uid !== owner.uid) this.byUid.get(prev.uid)?.delete(v);
    this.owners.set(v, { ...owner });
    let set = this.byUid.get(owner.uid);
    if (!set) this.byUid.set(owner.uid, (set = new Set()));
    set.add(v);
  }

  /** The owner's write is stored (under `key`: a generated name may have changed on the way). */
  commit(uid: string, key: string): void {
    for (const v of this.byUid.get(uid) ?? []) {
      const o = this.owners.get(v);
      if (o) {
        o.committed = true;
        o.key = key;
      }
    }
  }

  /**
   * Releases what `uid` holds. With `pendingOnly`, only claims of a write that did not happen
   * go: a value the stored object holds stays (and counts as committed from now on).
   */
  release(uid: string, pendingOnly = false): void {
    for (const v of [...(this.byUid.get(uid) ?? [])]) {
      const o = this.owners.get(v);
      if (!o || o.uid !== uid) continue;
      if (pendingOnly) {
        if (o.committed) continue;
        const cur = this.lookup(o.key);
        if (cur && cur.metadata.uid === uid && this.holds(cur, v)) {
          o.committed = true;
          continue;
        }
      }
      this.drop(v);
    }
  }

  private drop(v: V): void {
    const o = this.owners.get(v);
    if (!o) return;
    this.owners.delete(v);
    const set = this.byUid.get(o.uid);
    set?.delete(v);
    if (set && set.size === 0) this.byUid.delete(o.uid);
  }
}

export class ServiceAllocator {
  readonly ips: Pool<string>;
  readonly ports: Pool<number>;
  private loaded = false;

  constructor(private readonly registry: () => Registry) {
    const lookup = (key: string) => this.registry().storage.get(key)?.obj;
    this.ips = new Pool<string>((svc, ip) => (specOf(svc).clusterIPs ?? []).includes(ip), lookup);
    this.ports = new Pool<number>((svc, port) => nodePortsOf(specOf(svc)).includes(port), lookup);
  }

  static key(ns: string, name: string): string {
    return `core/services/${ns}/${name}`;
  }

  /** Rebuilds the pools from the stored Services (once). */
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    for (const s of this.registry().storage.list('core/services', 'core/services/')) {
      const owner = { uid: s.obj.metadata.uid ?? '', key: s.key, committed: true, ts: Date.now() };
      const spec = specOf(s.obj);
      for (const ip of spec.clusterIPs ?? []) if (ip !== 'None' && ip) this.ips.claim(ip, owner);
      for (const p of nodePortsOf(spec)) this.ports.claim(p, owner);
    }
  }

  /**
   * Assigns what `svc` needs and does not have yet (cluster IP, node ports, health check
   * port), checking requested values; `keep` lists values already held from the stored
   * version (an update). Claims are recorded unless `dryRun`.
   */
  allocate(svc: KObject, keep: Held, dryRun: boolean): void {
    this.load();
    const spec = specOf(svc);
    const uid = svc.metadata.uid ?? '';
    const name = svc.metadata.name ?? '';
    const owner: Owner = {
      uid,
      key: ServiceAllocator.key(svc.metadata.namespace ?? '', name),
      committed: false,
      ts: Date.now(),
    };
    const run: Allocation = {
      uid,
      keep,
      claimedPorts: [],
      claim(pool, v) {
        if (!dryRun) pool.claim(v, owner);
      },
      fail: (causes): never => {
        if (!dryRun) this.release(uid, true);
        throw invalid(name, causes);
      },
    };
    if (needsClusterIP(spec) && !isHeadless(spec)) this.allocateClusterIP(spec, run);
    if (needsNodePorts(spec)) this.allocateNodePorts(spec, run);
    if (needsHealthCheck(spec)) this.allocateHealthCheck(spec, run);
  }

  private allocateClusterIP(spec: ServiceSpec, run: Allocation): void {
    const requested = spec.clusterIP ?? '';
    if (requested === '') {
      const ip = this.nextIp(run.uid);
      if (!ip) throw errors.internal('failed to allocate a serviceIP: range is full');
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
      run.claim(this.ips, ip);
    } else if (!run.keep.ips.includes(requested) && ipToInt(requested) !== undefined) {
      const n = ipToInt(requested)!;
      const why =
        n <= CIDR_BASE || n >= CIDR_BASE + CIDR_SIZE - 1
          ? `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`
          : this.ips.isFree(requested, run.uid)
            ? undefined
            : 'provided IP is already allocated';
      if (why)
        run.fail([
          fieldErr.invalid(
            'spec.clusterIPs',
            spec.clusterIPs ?? [requested],
            `failed to allocate IP ${requested}: ${why}`,
          ),
        ]);
      run.claim(this.ips, requested);
    }
  }

  /** Node ports: one per port number (ports sharing a number across protocols share the node port). */
  private allocateNodePorts(spec: ServiceSpec, run: Allocation): void {
    const byPort = new Map<number, number>();
    const ports = spec.ports ?? [];
    ports.forEach((p, i) => {
      const np = p.nodePort ?? 0;
      if (np === 0 || run.keep.ports.includes(np) || run.claimedPorts.includes(np)) {
        if (np) byPort.set(p.port ?? 0, np);
        return;
      }
      const why = this.requestedPortProblem(np, run.uid);
      if (why) run.fail([fieldErr.invalid(`spec.ports[${i}].nodePort`, np, why)]);
      run.claim(this.ports, np);
      run.claimedPorts.push(np);
      byPort.set(p.port ?? 0, np);
    });
    for (const p of ports) {
      if (p.nodePort) continue;
      let np = byPort.get(p.port ?? 0);
      if (!np) {
        np = this.nextPort(run.uid, run.claimedPorts);
        if (!np) throw errors.internal('failed to allocate a nodePort: range is full');
        run.claim(this.ports, np);
        run.claimedPorts.push(np);
        byPort.set(p.port ?? 0, np);
      }
      p.nodePort = np;
    }
  }

  private allocateHealthCheck(spec: ServiceSpec, run: Allocation): void {
    const hc = spec.healthCheckNodePort ?? 0;
    if (hc === 0) {
      const np = this.nextPort(run.uid, run.claimedPorts);
      if (!np) throw errors.internal('failed to allocate a nodePort: range is full');
      run.claim(this.ports, np);
      spec.healthCheckNodePort = np;
    } else if (!run.keep.ports.includes(hc) && !run.claimedPorts.includes(hc)) {
      const why = this.requestedPortProblem(hc, run.uid);
      if (why) run.fail([fieldErr.invalid('spec.healthCheckNodePort', hc, why)]);
      run.claim(this.ports, hc);
    }
  }

  /** Why a requested node port cannot be had, if it cannot. */
  private requestedPortProblem(np: number, uid: string): string | undefined {
    if (np < NODE_PORT_RANGE.min || np > NODE_PORT_RANGE.max)
      return `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.min}-${NODE_PORT_RANGE.max}`;
    return this.ports.isFree(np, uid) ? undefined : 'provided port is already allocated';
  }

  /** A free IP: random in the upper part of the range first (the lower part is kept for requested IPs), then the rest. */
  private nextIp(uid: string): string | undefined {
    const lowBand = Math.min(Math.max(16, Math.floor(CIDR_SIZE / 16)), 256);
    const first = 1; // skip the network address
    const last = CIDR_SIZE - 2; // and the broadcast address
    const span = last - (first + lowBand) + 1;
    const start = randomInt(span);
    for (let i = 0; i < span; i++) {
      const ip = intToIp(CIDR_BASE + first + lowBand + ((start + i) % span));
      if (this.ips.isFree(ip, uid)) return ip;
    }
    for (let off = first; off < first + lowBand; off++) {
      const ip = intToIp(CIDR_BASE + off);
      if (this.ips.isFree(ip, uid)) return ip;
    }
    return undefined;
  }

  private nextPort(uid: string, taken: number[]): number | undefined {
    const size = NODE_PORT_RANGE.max - NODE_PORT_RANGE.min + 1;
    const lowBand = Math.min(Math.max(16, Math.floor(size / 32)), 128);
    const span = size - lowBand;
    const start = randomInt(span);
    for (let i = 0; i < span; i++) {
      const p = NODE_PORT_RANGE.min + lowBand + ((start + i) % span);
      if (!taken.includes(p) && this.ports.isFree(p, uid)) return p;
    }
    for (let p = NODE_PORT_RANGE.min; p < NODE_PORT_RANGE.min + lowBand; p++)
      if (!taken.includes(p) && this.ports.isFree(p, uid)) return p;
    return undefined;
  }

  commit(svc: KObject): void {
    const uid = svc.metadata.uid ?? '';
    const key = ServiceAllocator.key(svc.metadata.namespace ?? '', svc.metadata.name ?? '');
    this.ips.commit(uid, key);
    this.ports.commit(uid, key);
  }

  release(uid: string, pendingOnly = false): void {
    this.ips.release(uid, pendingOnly);
    this.ports.release(uid, pendingOnly);
  }
}
