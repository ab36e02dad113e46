// A real Kubernetes control plane the project starts itself, envtest style: etcd,
// kube-apiserver and kube-controller-manager from a folder of binaries (assets.ts), on free
// loopback ports, with a CA and serving certificate of its own, an admin and a controller
// manager client certificate, the flags of the authentication fixtures
// (`orch-conformance fixtures`), an audit policy and a log per API server, and the
// controllers a real cluster runs (`*,tokencleaner,bootstrapsigner`).
//
// It may run several API servers, each started with flags of its own (servers.ts): those on
// the cluster's etcd are one cluster (what one writes, the others serve; the controller
// manager serves them all), while a server that needs etcd to compact on its own schedule gets
// an etcd of its own. Every process ends with its starter (lifeline/owned.ts), and the working
// directory with it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { stringify as toYaml } from 'yaml';
import { type OwnedProcess, ownedTempDir, removeOwnedDir, startOwned } from '../../../lifeline/owned.ts';
import { type AuthFixtures, makeAuthFixtures, serverFlags } from '../auth/fixtures.ts';
import { issue, type KeyPairPem, makeCa } from '../auth/pki.ts';
import { freePort } from '../free-port.ts';
import type { Assets } from './assets.ts';

/** The controllers a real cluster runs (kubeadm's default), the token cleaner and bootstrap signer included. */
export const CLUSTER_CONTROLLERS = '*,tokencleaner,bootstrapsigner';

/** The range of service cluster IPs (the API server's and the controller manager's). */
const SERVICE_RANGE = '10.96.0.0/16';

/** Every request at level Metadata: what the suites read of the audit log. */
const AUDIT_POLICY = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] };

/** What the flags of one API server may use. */
export interface ServerContext {
  /** A directory of this server's own (configuration files). */
  dir: string;
  fixtures: AuthFixtures;
}

/** One kube-apiserver of the control plane. */
export interface ApiserverSpec {
  name: string;
  about: string;
  /** The flags of the authentication fixtures it trusts: the first set, or the variant. */
  auth?: 'oidc-sub';
  /** Flags beyond the common ones (gates, admission plugins, ...). */
  flags?: (ctx: ServerContext) => string[] | Promise<string[]>;
  /** An etcd of its own (compaction on this server's schedule), else the cluster's. */
  ownEtcd?: boolean;
}

export interface RunningApiserver {
  spec: ApiserverSpec;
  url: string;
  auditLog: string;
}

export interface ControlPlaneOptions {
  assets: Assets;
  /** The API servers; the first is the one the controller manager talks to. */
  servers: ApiserverSpec[];
  /** The authentication fixtures they trust (default: a new set in the working directory). */
  fixtures?: AuthFixtures;
  /** Feature gates of the controller manager: the API servers', so the controllers behind them run (the policy status controller). */
  controllerGates?: Record<string, boolean>;
  /** Each line the processes write, prefixed with the process name (default: kept, shown when a start fails). */
  log?: (line: string) => void;
  /** How long to wait for readiness (default 180 s). */
  startTimeoutMs?: number;
}

export interface ControlPlane {
  servers: RunningApiserver[];
  /** PEM of the CA that signed the serving certificates. */
  ca: string;
  /** The admin's client certificate and key (PEM; group system:masters). */
  admin: KeyPairPem;
  /** A kubeconfig for the admin on the first server (kubectl --kubeconfig). */
  kubeconfig: string;
  fixtures: AuthFixtures;
  /** The working directory (removed at stop). */
  dir: string;
  processes: Record<string, OwnedProcess>;
  stop(): Promise<void>;
}

export function kubeconfigFor(url: string, ca: string, user: KeyPairPem, name: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'control-plane', cluster: { server: url, 'certificate-authority-data': b64(ca) } }],
    users: [{ name, user: { 'client-certificate-data': b64(user.cert), 'client-key-data': b64(user.key) } }],
    contexts: [{ name, context: { cluster: 'control-plane', user: name } }],
    'current-context': name,
  });
}

/** The arguments of an etcd serving one control plane on loopback. */
export function etcdArgs(dataDir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=control-plane',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=control-plane=${peer}`,
    // the API server's own compactor decides, as in a cluster
    '--auto-compaction-retention=0',
    // a test cluster: what a crash loses does not matter, and fsync would dominate on this disk
    '--unsafe-no-fsync',
    '--log-level=warn',
    '--logger=zap',
  ];
}

/** Polls `ok` until it holds, failing when a process exits first or the deadline passes. */
async function waitFor(
  what: string,
  deadline: number,
  processes: Record<string, OwnedProcess>,
  ok: () => Promise<boolean>,
): Promise<void> {
  for (;;) {
    for (const [name, p] of Object.entries(processes))
      if (!p.running()) throw new Error(`${name} exited before ${what}:\n${p.output().slice(-4000)}`);
    if (await ok()) return;
    if (Date.now() > deadline) throw new Error(`the control plane did not reach "${what}" in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts etcd, the API servers and the controller manager; resolves when the cluster is ready. */
export async function startControlPlane(o: ControlPlaneOptions): Promise<ControlPlane> {
  const a = o.assets;
  const dir = ownedTempDir('orch-control-plane-');
  const processes: Record<string, OwnedProcess> = {};
  const stop = async () => {
    // the controller manager first (it would log the API servers' going), etcd last
    const order = Object.keys(processes).sort((x, y) => rank(x) - rank(y));
    for (const name of order) await processes[name]!.stop('SIGTERM', 10_000);
    removeOwnedDir(dir);
  };
  const put = (name: string, text: string, mode = 0o600) => {
    const p = join(dir, name);
    writeFileSync(p, text, { mode });
    return p;
  };
  const logOf = (name: string) => (line: string) => o.log?.(`${name}: ${line}`);
  const agents: Agent[] = [];
  try {
    const fixtures = o.fixtures ?? (await makeAuthFixtures(join(dir, 'fixtures')));
    const ca = await makeCa('orch-control-plane-ca');
    const serving = await issue(ca, {
      cn: 'kube-apiserver',
      usage: 'server',
      hosts: [
        '127.0.0.1',
        'localhost',
        '10.96.0.1',
        'kubernetes',
        'kubernetes.default',
        'kubernetes.default.svc',
      ],
    });
    // client certificates from the fixtures' client CA, which the API servers trust
    const clientCa = {
      cert: readFileSync(fixtures.clientCa.cert, 'utf8'),
      key: readFileSync(fixtures.clientCa.key, 'utf8'),
    };
    const admin = await issue(clientCa, { cn: 'conformance-admin', orgs: ['system:masters'] });
    const kcm = await issue(clientCa, { cn: 'system:kube-controller-manager' });
    const files = {
      ca: put('ca.crt', ca.cert, 0o644),
      caKey: put('ca.key', ca.key),
      servingCert: put('apiserver.crt', serving.cert, 0o644),
      servingKey: put('apiserver.key', serving.key),
      auditPolicy: put('audit-policy.yaml', toYaml(AUDIT_POLICY), 0o644),
    };

    const startEtcd = async (name: string) => {
      const client = await freePort('127.0.0.1');
      processes[name] = startOwned(a.etcd, etcdArgs(join(dir, name), client, await freePort('127.0.0.1')), {
        onLine: logOf(name),
      });
      return `http://127.0.0.1:${client}`;
    };
    const clusterEtcd = await startEtcd('etcd');

    const deadline = Date.now() + (o.startTimeoutMs ?? 180_000);
    const getter = (url: string) => {
      const agent = new Agent({ connect: { ca: ca.cert, cert: admin.cert, key: admin.key } });
      agents.push(agent);
      return async (path: string) => {
        try {
          const r = await request(`${url}${path}`, { dispatcher: agent, signal: AbortSignal.timeout(5000) });
          await r.body.text();
          return r.statusCode;
        } catch {
          return 0;
        }
      };
    };
    const startServer = async (spec: ApiserverSpec): Promise<RunningApiserver> => {
      const sdir = join(dir, spec.name);
      mkdirSync(sdir, { recursive: true });
      const port = await freePort('127.0.0.1');
      const auditLog = join(sdir, 'audit.log');
      const etcdUrl = spec.ownEtcd ? await startEtcd(`etcd-${spec.name}`) : clusterEtcd;
      const name = o.servers.length > 1 ? `kube-apiserver-${spec.name}` : 'kube-apiserver';
      processes[name] = startOwned(
        a.kubeApiserver,
        [
          `--etcd-servers=${etcdUrl}`,
          '--bind-address=127.0.0.1',
          '--advertise-address=127.0.0.1',
          `--secure-port=${port}`,
          `--tls-cert-file=${files.servingCert}`,
          `--tls-private-key-file=${files.servingKey}`,
          `--cert-dir=${join(sdir, 'certs')}`,
          // the fixtures' flags but the controller manager's (it is a process of its own here)
          ...serverFlags(fixtures, spec.auth).filter((x) => !x.startsWith('--controllers=')),
          '--authorization-mode=Node,RBAC',
          '--allow-privileged=true',
          `--service-cluster-ip-range=${SERVICE_RANGE}`,
          // several servers on one store would each rewrite the kubernetes service's endpoints
          '--endpoint-reconciler-type=none',
          `--audit-policy-file=${files.auditPolicy}`,
          `--audit-log-path=${auditLog}`,
          '--profiling=false',
          ...((await spec.flags?.({ dir: sdir, fixtures })) ?? []),
        ],
        { onLine: logOf(name) },
      );
      const url = `https://127.0.0.1:${port}`;
      const get = getter(url);
      await waitFor(`${spec.name} is ready`, deadline, processes, async () => (await get('/readyz')) === 200);
      return { spec, url, auditLog };
    };
    // the first server bootstraps the cluster (system namespaces, priority classes, roles);
    // the others, some of which refuse writes (AlwaysDeny), start on a bootstrapped store. A
    // server on an etcd of its own bootstraps its own: it starts beside the first
    const [first, ...rest] = o.servers;
    const early = rest.map((spec) => (spec.ownEtcd ? startServer(spec) : undefined));
    // a failure of one is reported when it is awaited below (or the start failed before)
    for (const p of early) p?.catch(() => {});
    const main = await startServer(first!);
    // the controller manager needs only the first: it starts while the others do
    const kubeconfig = put('admin.kubeconfig', kubeconfigFor(main.url, ca.cert, admin, 'conformance-admin'));
    const kcmConfig = put(
      'controller-manager.kubeconfig',
      kubeconfigFor(main.url, ca.cert, kcm, 'kube-controller-manager'),
    );
    processes['kube-controller-manager'] = startOwned(
      a.kubeControllerManager,
      [
        `--kubeconfig=${kcmConfig}`,
        `--authentication-kubeconfig=${kcmConfig}`,
        `--authorization-kubeconfig=${kcmConfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${await freePort('127.0.0.1')}`,
        `--cert-dir=${join(dir, 'kcm-certs')}`,
        '--leader-elect=false',
        `--controllers=${CLUSTER_CONTROLLERS}`,
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${fixtures.serviceAccount.privateKey}`,
        `--root-ca-file=${files.ca}`,
        `--cluster-signing-cert-file=${files.ca}`,
        `--cluster-signing-key-file=${files.caKey}`,
        `--service-cluster-ip-range=${SERVICE_RANGE}`,
        '--profiling=false',
        ...(o.controllerGates
          ? [
              `--feature-gates=${Object.entries(o.controllerGates)
                .map(([k, v]) => `${k}=${v}`)
                .join(',')}`,
            ]
          : []),
      ],
      { onLine: logOf('kube-controller-manager') },
    );
    const servers = [main, ...(await Promise.all(rest.map((spec, i) => early[i] ?? startServer(spec))))];
    // ready when the controllers run: the service-account controller has made `default`'s account
    const get = getter(main.url);
    await waitFor(
      'the controllers run (default/default ServiceAccount)',
      deadline,
      processes,
      async () => (await get('/api/v1/namespaces/default/serviceaccounts/default')) === 200,
    );
    return { servers, ca: ca.cert, admin, kubeconfig, fixtures, dir, processes, stop };
  } catch (e) {
    const tail = Object.entries(processes)
      .map(([n, p]) => `--- ${n} ---\n${p.output().slice(-3000)}`)
      .join('\n');
    await stop();
    throw new Error(`${(e as Error).message}${o.log ? '' : `\n${tail}`}`);
  } finally {
    await Promise.all(agents.map((x) => x.close()));
  }
}

/** The order processes stop in: the controller manager, the API servers, the etcds. */
function rank(name: string): number {
  return name === 'kube-controller-manager' ? 0 : name.startsWith('kube-apiserver') ? 1 : 2;
}
