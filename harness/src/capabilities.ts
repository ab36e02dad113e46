// Capability detection: what the endpoint serves (discovery) and which optional features are
// on (feature gates such as WatchList), so a case that cannot apply is skipped with a reason.
import type { Client } from './client.ts';

export interface Capabilities {
  resources: Set<string>;
  groupVersions: Set<string>;
  /** The WatchList probe saw the gate on (a sendInitialEvents watch accepted with 200). */
  watchList: boolean;
}

export interface GateState {
  /**
   * on: a sendInitialEvents watch is accepted (200); off: it is refused as invalid (422);
   * unknown: any other answer. Cases of both kinds run on "unknown", so an answer broken
   * by a fault is judged by the cases instead of turning them into skips.
   */
  state: 'on' | 'off' | 'unknown';
  /** The answer that decided, for skip reasons. */
  evidence: string;
}

const cache = new WeakMap<Client, Promise<Capabilities>>();
const gates = new WeakMap<Client, Promise<GateState>>();

/** The WatchList gate as the target shows it (one probe per client). */
export function watchListGate(c: Client): Promise<GateState> {
  let p = gates.get(c);
  if (!p) {
    p = probeWatchList(c);
    gates.set(c, p);
  }
  return p;
}

async function probeWatchList(c: Client): Promise<GateState> {
  // a sendInitialEvents watch is refused (422) when the gate is off
  const probe = await c.get('/api/v1/namespaces', {
    query: {
      watch: 1,
      sendInitialEvents: 'true',
      allowWatchBookmarks: 'true',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: 1,
      fieldSelector: 'metadata.name=capability-probe-none',
    },
    timeoutMs: 5_000,
  });
  const evidence = `a watch with sendInitialEvents=true answered ${probe.describe()}`;
  if (probe.status === 200) return { state: 'on', evidence };
  if (probe.status === 422) return { state: 'off', evidence };
  return { state: 'unknown', evidence };
}

export function capabilities(c: Client): Promise<Capabilities> {
  let p = cache.get(c);
  if (!p) {
    p = detect(c);
    cache.set(c, p);
  }
  return p;
}

async function detect(c: Client): Promise<Capabilities> {
  const resources = new Set<string>();
  const groupVersions = new Set<string>();
  const core = await c.get('/api/v1');
  if (core.status === 200) {
    groupVersions.add('v1');
    for (const r of core.json?.resources ?? []) resources.add(`v1/${r.name}`);
  }
  const groups = await c.get('/apis');
  for (const g of groups.json?.groups ?? []) {
    for (const v of g.versions ?? []) {
      groupVersions.add(v.groupVersion);
      const rl = await c.get(`/apis/${v.groupVersion}`);
      for (const r of rl.json?.resources ?? []) resources.add(`${v.groupVersion}/${r.name}`);
    }
  }
  return { resources, groupVersions, watchList: (await watchListGate(c)).state === 'on' };
}

/**
 * Why a case that needs `resource` ("group/version/plural", "v1/plural" for the core group)
 * cannot run on a target whose discovery does not list it, and how to make it run.
 */
export function notServed(resource: string): string {
  const gv = resource.slice(0, resource.lastIndexOf('/'));
  const doc = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
  const flag = gv === 'v1' ? 'api/v1' : gv;
  return `the target does not serve ${resource} (${doc} does not list it): enable the group version (kube-apiserver --runtime-config=${flag}=true; the reference server serves it unless started with --runtime-config ${flag}=false)`;
}
