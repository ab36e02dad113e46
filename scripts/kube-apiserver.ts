// `orch-conformance kube-apiserver`: one kube-apiserver with its own etcd, in the foreground,
// as the health cases start a server of their own (ORCH_SERVER_COMMAND): etcd keeps its data in
// --data-dir (the directory the cases remove to break the store), the API server serves HTTPS
// on 127.0.0.1:--port with a self-signed certificate and answers /livez, /readyz and /version
// without credentials (Kubernetes' system:public-info-viewer). SIGTERM or SIGINT goes to the
// API server, which shuts down gracefully (--shutdown-delay-duration); then etcd is stopped and
// the command exits with the API server's status.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import { assetsDir, HOW_TO_GET_ASSETS, resolveAssets } from '../harness/src/control-plane/assets.ts';
import { etcdArgs } from '../harness/src/control-plane/control-plane.ts';
import { freePort } from '../harness/src/free-port.ts';
import { SERVER_COMMAND_ENV, SERVER_SCHEME_ENV } from '../harness/src/server-command.ts';
import { ownedTempDir, removeOwnedDir, startOwned } from '../lifeline/owned.ts';

export const KUBE_APISERVER_HELP = `Usage: orch-conformance kube-apiserver --kubernetes-assets DIR --port N --data-dir DIR [options]

Runs one kube-apiserver with an etcd of its own in the foreground (a server the health cases
start, signal and break: declare it with
  ${SERVER_COMMAND_ENV}='orch-conformance kube-apiserver --kubernetes-assets DIR --port {port} --data-dir {dataDir} --shutdown-delay-duration {shutdownDelay}s'
  ${SERVER_SCHEME_ENV}=https
which \`run --kubernetes-assets\` does itself).

  --kubernetes-assets DIR        the binaries (kube-apiserver, etcd; see run --help)
  --port N                       HTTPS port on 127.0.0.1
  --data-dir DIR                 etcd's data directory (created)
  --shutdown-delay-duration D    the API server's delay on SIGTERM (Go duration, default 0s)
  -h, --help                     this text
`;

/**
 * The flags of one kube-apiserver alone on 127.0.0.1:`port` over the etcd at `etcdUrl`: its
 * serving certificate and service-account keys made in `dir` (the keys written now). A caller
 * adds its own (a shutdown delay, a token file).
 */
export async function standaloneFlags(dir: string, etcdUrl: string, port: number): Promise<string[]> {
  const sa = await generateKeyPair('RS256', { extractable: true });
  const key = join(dir, 'sa.key');
  const pub = join(dir, 'sa.pub');
  writeFileSync(key, await exportPKCS8(sa.privateKey), { mode: 0o600 });
  writeFileSync(pub, await exportSPKI(sa.publicKey));
  return [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${join(dir, 'certs')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pub}`,
    `--service-account-signing-key-file=${key}`,
    '--authorization-mode=Node,RBAC',
    '--endpoint-reconciler-type=none',
    '--profiling=false',
  ];
}

export async function kubeApiserver(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'kubernetes-assets': { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'shutdown-delay-duration': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help) {
      process.stdout.write(KUBE_APISERVER_HELP);
      return 0;
    }
    if (!/^\d+$/.test(String(values.port ?? ''))) throw new Error('--port N is required');
    if (!values['data-dir']) throw new Error('--data-dir DIR is required');
  } catch (e) {
    process.stderr.write(
      `orch-conformance kube-apiserver: ${(e as Error).message}\n\n${KUBE_APISERVER_HELP}`,
    );
    return 2;
  }
  const dir = assetsDir(values['kubernetes-assets'] as string | undefined);
  if (!dir) {
    process.stderr.write(`orch-conformance kube-apiserver: no binaries: ${HOW_TO_GET_ASSETS}\n`);
    return 2;
  }
  const a = resolveAssets(dir);
  const dataDir = String(values['data-dir']);
  mkdirSync(dataDir, { recursive: true });
  // the service-account keys and serving certificate live apart: the cases remove the data directory
  const own = ownedTempDir('orch-kube-apiserver-');
  const client = await freePort('127.0.0.1');
  const etcd = startOwned(a.etcd, etcdArgs(dataDir, client, await freePort('127.0.0.1')), {
    onLine: (l) => process.stderr.write(`etcd: ${l}\n`),
  });
  const server = startOwned(
    a.kubeApiserver,
    [
      ...(await standaloneFlags(own, `http://127.0.0.1:${client}`, Number(values.port))),
      `--shutdown-delay-duration=${values['shutdown-delay-duration'] ?? '0s'}`,
    ],
    { onLine: (l) => process.stderr.write(`kube-apiserver: ${l}\n`) },
  );
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.on(s, () => server.child.kill(s));
  const exit = await server.exited;
  await etcd.stop('SIGTERM', 5000);
  removeOwnedDir(own);
  return exit.code ?? 1;
}
