// A real Kubernetes control plane the project starts itself, envtest style: etcd,
// kube-apiserver and kube-controller-manager from a folder of binaries (assets.ts), on free
// loopback ports, with a CA and serving certificate of its own, an admin and a controller
// manager client certificate, the flags of the authentication fixtures
// (`orch-conformance fixtures`), an audit policy and log, the ValidatingAdmissionPolicy gate
// (on the API server and the controller manager) with its API served,
// authentication.k8s.io/v1beta1 served, and the controllers a real cluster runs
// (`*,tokencleaner,bootstrapsigner`). Every process ends with its starter (process/owned.ts),
// and the working directory with it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { stringify as toYaml } from 'yaml';
import { type AuthFixtures, makeAuthFixtures, serverFlags } from '../auth/fixtures.ts';
import { issue, type KeyPairPem, makeCa } from '../auth/pki.ts';
import { freePort } from '../free-port.ts';
import { type OwnedProcess, ownedTempDir, removeOwnedDir, startOwned } from '../process/owned.ts';
import type { Assets } from './assets.ts';

/** The controllers a real cluster runs (kubeadm's default), the token cleaner and bootstrap signer included. */
export const CLUSTER_CONTROLLERS = '*,tokencleaner,bootstrapsigner';

/** The gates and served APIs the suites need beyond 1.28's defaults. */
export const CONTROL_PLANE_GATES = { ValidatingAdmissionPolicy: true } as const;
export const CONTROL_PLANE_RUNTIME_CONFIG =
  'admissionregistration.k8s.io/v1beta1=true,authentication.k8s.io/v1beta1=true';

/** Every request at level Metadata: what the suites read of the audit log. */
const AUDIT_POLICY = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] };

export interface ControlPlaneOptions {
  assets: Assets;
  /** Each line the processes write, prefixed with the process name (default: kept, shown when a start fails). */
  log?: (line: string) => void;
  /** How long to wait for readiness (default 120 s). */
  startTimeoutMs?: number;
}

export interface ControlPlane {
  url: string;
  /** PEM of the CA that signed the serving certificate. */
  ca: string;
  /** The admin's client certificate and key (PEM; group system:masters). */
  admin: KeyPairPem;
  /** A kubeconfig for the admin (kubectl --kubeconfig). */
  kubeconfig: string;
  fixtures: AuthFixtures;
  auditLog: string;
  /** The working directory (removed at stop). */
  dir: string;
  version: string;
  /** The processes, by name. */
  processes: Record<string, OwnedProcess>;
  stop(): Promise<void>;
}

/** The kube-apiserver flags of the main server (beyond the storage and serving ones). */
function apiserverFlags(f: AuthFixtures, files: Record<string, string>): string[] {
  return [
    // the fixtures' flags but the controller manager's (it is a process of its own here)
    ...serverFlags(f).filter((x) => !x.startsWith('--controllers=')),
    '--authorization-mode=Node,RBAC',
    '--allow-privileged=true',
    '--service-cluster-ip-range=10.96.0.0/16',
    '--endpoint-reconciler-type=none',
    `--audit-policy-file=${files.auditPolicy}`,
    `--audit-log-path=${files.auditLog}`,
    `--feature-gates=${Object.entries(CONTROL_PLANE_GATES)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}`,
    `--runtime-config=${CONTROL_PLANE_RUNTIME_CONFIG}`,
    '--profiling=false',
  ];
}

function kubeconfigFor(url: string, ca: string, user: KeyPairPem, name: string): string {
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

/** Starts etcd, kube-apiserver and kube-controller-manager; resolves when the cluster is ready. */
export async function startControlPlane(o: ControlPlaneOptions): Promise<ControlPlane> {
  const a = o.assets;
  const dir = ownedTempDir('orch-control-plane-');
  const processes: Record<string, OwnedProcess> = {};
  const stop = async () => {
    // the controller manager first (it would log the API server's going), etcd last
    for (const name of ['kube-controller-manager', 'kube-apiserver', 'etcd'])
      await processes[name]?.stop('SIGTERM', 10_000);
    removeOwnedDir(dir);
  };
  const put = (name: string, text: string, mode = 0o600) => {
    const p = join(dir, name);
    writeFileSync(p, text, { mode });
    return p;
  };
  const logOf = (name: string) => (line: string) => o.log?.(`${name}: ${line}`);
  try {
    const fixtures = await makeAuthFixtures(join(dir, 'fixtures'));
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
    // client certificates from the fixtures' client CA, which the API server trusts
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
      auditLog: join(dir, 'audit.log'),
    };

    const etcdClient = await freePort('127.0.0.1');
    const etcdPeer = await freePort('127.0.0.1');
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    processes.etcd = startOwned(
      a.etcd,
      [
        '--name=control-plane',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=control-plane=http://127.0.0.1:${etcdPeer}`,
        '--unsafe-no-fsync',
        '--log-level=warn',
        '--logger=zap',
      ],
      { onLine: logOf('etcd') },
    );

    const port = await freePort('127.0.0.1');
    const url = `https://127.0.0.1:${port}`;
    processes['kube-apiserver'] = startOwned(
      a.kubeApiserver,
      [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${port}`,
        `--tls-cert-file=${files.servingCert}`,
        `--tls-private-key-file=${files.servingKey}`,
        `--cert-dir=${join(dir, 'certs')}`,
        ...apiserverFlags(fixtures, files),
      ],
      { onLine: logOf('kube-apiserver') },
    );

    const agent = new Agent({ connect: { ca: ca.cert, cert: admin.cert, key: admin.key } });
    const get = async (path: string) => {
      try {
        const r = await request(`${url}${path}`, { dispatcher: agent, signal: AbortSignal.timeout(5000) });
        return { status: r.statusCode, text: await r.body.text() };
      } catch (e) {
        return { status: 0, text: (e as Error).message };
      }
    };
    const deadline = Date.now() + (o.startTimeoutMs ?? 120_000);
    const waitFor = async (what: string, ok: () => Promise<boolean>) => {
      for (;;) {
        for (const [name, p] of Object.entries(processes))
          if (!p.running()) throw new Error(`${name} exited before ${what}:\n${p.output().slice(-4000)}`);
        if (await ok()) return;
        if (Date.now() > deadline) throw new Error(`the control plane did not reach "${what}" in time`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await waitFor('the API server is ready', async () => (await get('/readyz')).status === 200);

    const kubeconfig = put('admin.kubeconfig', kubeconfigFor(url, ca.cert, admin, 'conformance-admin'));
    const kcmConfig = put(
      'controller-manager.kubeconfig',
      kubeconfigFor(url, ca.cert, kcm, 'kube-controller-manager'),
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
        // the gates the API server has, so the controllers behind them run (the policy status controller)
        `--feature-gates=${Object.entries(CONTROL_PLANE_GATES)
          .map(([k, v]) => `${k}=${v}`)
          .join(',')}`,
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${fixtures.serviceAccount.privateKey}`,
        `--root-ca-file=${files.ca}`,
        `--cluster-signing-cert-file=${files.ca}`,
        `--cluster-signing-key-file=${files.caKey}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--profiling=false',
      ],
      { onLine: logOf('kube-controller-manager') },
    );
    // ready when the controllers run: the service-account controller has made `default`'s account
    await waitFor(
      'the controllers run (default/default ServiceAccount)',
      async () => (await get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
    );
    await agent.close();
    return {
      url,
      ca: ca.cert,
      admin,
      kubeconfig,
      fixtures,
      auditLog: files.auditLog,
      dir,
      version: a.version,
      processes,
      stop,
    };
  } catch (e) {
    const tail = Object.entries(processes)
      .map(([n, p]) => `--- ${n} ---\n${p.output().slice(-3000)}`)
      .join('\n');
    await stop();
    throw new Error(`${(e as Error).message}${o.log ? '' : `\n${tail}`}`);
  }
}
