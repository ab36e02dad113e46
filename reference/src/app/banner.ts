// What `serve` prints once the server is ready: how to reach it and what it runs with.
import { join } from 'node:path';
import { defaultFeatureGates } from '../features/feature-gates.ts';
import { CONTEXT_NAME } from '../kubeconfig.ts';
import { SERVER_VERSION } from '../server/version.ts';
import type { Running } from './serve.ts';

export function banner(r: Running, readyMs: number): string {
  const o = r.server.options;
  const store = o.etcdServers?.length
    ? `etcd ${o.etcdServers.join(',')} prefix ${o.etcdPrefix ?? '/registry'}${r.etcd ? ` (private, data in ${r.etcd.dataDir})` : ''}`
    : o.inMemory
      ? 'in memory (nothing survives a restart)'
      : `${join(o.dataDir, 'store')}${o.fsync ? '' : ' (no fsync)'}`;
  // the gates that differ from their 1.28 default
  const defaults = defaultFeatureGates();
  const gates =
    Object.entries(o.featureGates)
      .filter(([k, v]) => defaults[k] !== v)
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || '(the 1.28 defaults)';
  return [
    `orch reference server ${SERVER_VERSION.gitVersion}`,
    `  URL:        ${r.url}${o.tls ? '' : ' (plain HTTP)'}`,
    `  token:      ${r.token}`,
    `  kubeconfig: ${r.kubeconfigPath} (context ${CONTEXT_NAME})`,
    `  store:      ${store}`,
    `  gates:      ${gates}`,
    `try: kubectl --kubeconfig ${r.kubeconfigPath} get namespaces`,
    `ready in ${Math.round(readyMs)} ms`,
    '',
  ].join('\n');
}
