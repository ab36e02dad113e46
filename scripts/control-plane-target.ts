// The run's target when it is given `--kubernetes-assets DIR`: a real Kubernetes control plane
// the run starts from DIR's binaries (harness/src/control-plane/), declared to the suites with
// everything it was started with (the authentication fixtures, its audit log, its gates and
// admission plugins), and stopped when the run ends.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAuthCallbacks } from '../harness/src/auth/callbacks.ts';
import { resolveAssets } from '../harness/src/control-plane/assets.ts';
import {
  CLUSTER_CONTROLLERS,
  CONTROL_PLANE_GATES,
  CONTROL_PLANE_RUNTIME_CONFIG,
  startControlPlane,
} from '../harness/src/control-plane/control-plane.ts';
import { DECLARE_ENV } from '../harness/src/targets.ts';

const ROOT = join(import.meta.dirname, '..');

/** Kubernetes 1.28's default-enabled admission plugins, as the captured server lists them. */
export function defaultAdmissionPlugins(): string[] {
  const text = readFileSync(join(ROOT, '..', 'shared', 'kubernetes-1.28', 'admission-plugins.txt'), 'utf8');
  const line = text.split('\n')[1] ?? '';
  return line
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface ControlPlaneTarget {
  env: Record<string, string>;
  servers: { name: string; about: string; url: string }[];
  close(): Promise<void>;
}

export async function startControlPlaneTarget(dir: string): Promise<ControlPlaneTarget> {
  const assets = resolveAssets(dir);
  const cp = await startControlPlane({ assets });
  let callbacks: Awaited<ReturnType<typeof startAuthCallbacks>> | undefined;
  try {
    // the API server verifies id_tokens against the issuer, and asks the token webhook
    callbacks = await startAuthCallbacks(cp.fixtures);
  } catch (e) {
    await cp.stop();
    throw e;
  }
  const gates = { WatchList: false, ...CONTROL_PLANE_GATES };
  const env: Record<string, string> = {
    ORCH_ENDPOINT: cp.url,
    ORCH_CA: cp.ca,
    ORCH_CLIENT_CERT: cp.admin.cert,
    ORCH_CLIENT_KEY: cp.admin.key,
    ORCH_DIALECT: 'kubernetes',
    [DECLARE_ENV.authFixtures]: cp.fixtures.dir,
    [DECLARE_ENV.auditLog]: cp.auditLog,
    [DECLARE_ENV.featureGates]: Object.entries(gates)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    [DECLARE_ENV.admissionPlugins]: defaultAdmissionPlugins().join(','),
  };
  return {
    env,
    servers: [
      {
        name: 'kube-apiserver',
        url: cp.url,
        about: `${assets.version} (${assets.kubeApiserver}) on etcd ${assets.etcd}, gates ${Object.keys(CONTROL_PLANE_GATES).join(',')}, --runtime-config=${CONTROL_PLANE_RUNTIME_CONFIG}, audit log ${cp.auditLog}`,
      },
      {
        name: 'controllers',
        url: '',
        about: `kube-controller-manager --controllers=${CLUSTER_CONTROLLERS} (${assets.kubeControllerManager}); kubeconfig ${cp.kubeconfig}`,
      },
    ],
    close: async () => {
      await callbacks?.close();
      await cp.stop();
    },
  };
}
