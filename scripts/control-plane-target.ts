// The run's targets when it is given `--kubernetes-assets DIR`: a real Kubernetes control plane
// the run starts from DIR's binaries (harness/src/control-plane/), its API servers declared to
// the suites with everything they were started with (the authentication fixtures, the audit
// log, gates, admission plugins, windows; servers.ts), and stopped when the run ends.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startImagePolicyBackend } from '../harness/src/admission/image-policy-backend.ts';
import { startAuthCallbacks } from '../harness/src/auth/callbacks.ts';
import { makeAuthFixtures } from '../harness/src/auth/fixtures.ts';
import { resolveAssets } from '../harness/src/control-plane/assets.ts';
import { CLUSTER_CONTROLLERS, startControlPlane } from '../harness/src/control-plane/control-plane.ts';
import { controlPlaneServers, GATES } from '../harness/src/control-plane/servers.ts';
import { dialect } from '../harness/src/dialect.ts';
import { SERVER_COMMAND_ENV, SERVER_SCHEME_ENV } from '../harness/src/server-command.ts';
import {
  DEFAULT_AUTH_METHODS,
  DISPOSABLE_ENV,
  declaredToEnv,
  type ExtraTargetSpec,
} from '../harness/src/targets.ts';
import { ownedTempDir, removeOwnedDir } from '../lifeline/owned.ts';
import { ownNodeConfigInProcess } from './node-config-in-process.ts';

const ROOT = join(import.meta.dirname, '..');

export interface ControlPlaneTarget {
  env: Record<string, string>;
  servers: { name: string; about: string; url: string }[];
  close(): Promise<void>;
}

/** The command the health cases start a kube-apiserver of their own with. */
function serverCommand(assets: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `exec ${q(process.execPath)} ${q(join(ROOT, 'scripts', 'bin.mjs'))} kube-apiserver --kubernetes-assets ${q(assets)} --port {port} --data-dir {dataDir} --shutdown-delay-duration {shutdownDelay}s`;
}

/** Appends each line to `file`, stamped with the time it came. */
function logTo(file: string): (line: string) => void {
  writeFileSync(file, '');
  return (line) => appendFileSync(file, `${new Date().toISOString()} ${line}\n`);
}

/** Starts the control plane from the binaries in `dir`; what its processes write goes to `logFile`. */
export async function startControlPlaneTarget(dir: string, logFile: string): Promise<ControlPlaneTarget> {
  const assets = resolveAssets(dir);
  // the ImageReview backend the image-policy server asks, and the issuer and token webhook
  // the servers ask about the fixtures' credentials, run for as long as the servers do
  const fixturesDir = ownedTempDir('orch-auth-fixtures-');
  const fixtures = await makeAuthFixtures(fixturesDir);
  const imagePolicy = await startImagePolicyBackend(dialect('kubernetes'));
  const callbacks = await startAuthCallbacks(fixtures);
  const stopCallbacks = async () => {
    await callbacks.close();
    await imagePolicy.close();
    removeOwnedDir(fixturesDir);
  };
  const specs = controlPlaneServers(assets, imagePolicy);
  let cp: Awaited<ReturnType<typeof startControlPlane>>;
  try {
    cp = await startControlPlane({
      assets,
      servers: specs,
      fixtures,
      controllerGates: GATES,
      log: logTo(logFile),
    });
  } catch (e) {
    await stopCallbacks();
    throw new Error(`${(e as Error).message} (what the processes wrote: ${logFile})`);
  }
  const [main, ...extra] = cp.servers;
  const declaredOf = (i: number) => {
    const spec = specs[i]!;
    return {
      ...spec.declared,
      ...(spec.auth || i === 0
        ? { authFixtures: cp.fixtures.dir, authMethods: spec.declared.authMethods ?? DEFAULT_AUTH_METHODS }
        : {}),
    };
  };
  const env: Record<string, string> = {
    ORCH_ENDPOINT: main!.url,
    ORCH_CA: cp.ca,
    ORCH_CLIENT_CERT: cp.admin.cert,
    ORCH_CLIENT_KEY: cp.admin.key,
    ORCH_DIALECT: 'kubernetes',
    // the control plane ends with the run: the suites leave their namespaces to that
    [DISPOSABLE_ENV]: '1',
    ...declaredToEnv({ ...declaredOf(0), auditLog: main!.auditLog }),
    [SERVER_COMMAND_ENV]: serverCommand(dir),
    [SERVER_SCHEME_ENV]: 'https',
    ...ownNodeConfigInProcess(),
    ORCH_EXTRA_TARGETS: JSON.stringify(
      extra.map(
        (s, i): ExtraTargetSpec => ({
          name: s.spec.name,
          about: s.spec.about,
          url: s.url,
          ca: cp.ca,
          cert: cp.admin.cert,
          key: cp.admin.key,
          declared: declaredOf(i + 1),
        }),
      ),
    ),
  };
  return {
    env,
    servers: [
      ...cp.servers.map((s) => ({ name: s.spec.name, url: s.url, about: s.spec.about })),
      {
        name: 'controllers',
        url: '',
        about: `kube-controller-manager --controllers=${CLUSTER_CONTROLLERS}, against ${main!.url}; admin kubeconfig ${cp.kubeconfig}`,
      },
      { name: 'binaries', url: '', about: `${assets.version}: ${assets.kubeApiserver}, ${assets.etcd}` },
    ],
    close: async () => {
      await cp.stop();
      await stopCallbacks();
    },
  };
}
