// Capability detection: what the endpoint serves (discovery) and which optional features are
// on (feature gates such as WatchList), so a case that cannot apply is skipped with a reason.
import type { Client } from './client.ts';

export interface Capabilities {
  resources: Set<string>;
  groupVersions: Set<string>;
  watchList: boolean;
}

const cache = new WeakMap<Client, Promise<Capabilities>>();

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
  // WatchList: a sendInitialEvents watch is refused (422) when the gate is off.
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
  return { resources, groupVersions, watchList: probe.status === 200 };
}
