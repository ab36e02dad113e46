// The fake API server for tests against envtest's: start to the first answered request
// (GET /api with the admin's credentials, 200), median of N starts each:
//   in-process   startServer({ dialect: 'kubernetes' }) (reference/src/testing.ts)
//   command      serve --dialect kubernetes --in-memory --port 0 --quiet (a child process;
//                ready when its kubeconfig appears)
//   envtest      etcd and kube-apiserver 1.28 from ../shared/kubernetes-1.28/bin started as
//                controller-runtime's envtest starts them (etcd on loopback with
//                --unsafe-no-fsync; kube-apiserver with envtest's default flags: a
//                service range, RBAC, the ServiceAccount plugin off, its own service-account
//                key and serving certificates), both spawned at once
//   tsx scripts/bench/fake-server.ts [--runs N]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { resolveAssets, SHARED_ASSETS } from '../../harness/src/control-plane/assets.ts';
import { freePort } from '../../harness/src/free-port.ts';
import { startOwned } from '../../lifeline/owned.ts';
import { startServer } from '../../reference/src/testing.ts';
import { ROOT, stopOwned, tempDir } from './process.ts';

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

async function firstAnswer(url: string, token: string, t0: number, deadlineMs = 60_000): Promise<number> {
  for (;;) {
    try {
      const r = await request(`${url}/api`, {
        dispatcher: insecure,
        headers: { authorization: `Bearer ${token}` },
      });
      await r.body.dump();
      if (r.statusCode === 200) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > deadlineMs) throw new Error(`${url} did not answer in time`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function inProcess(): Promise<number> {
  const t0 = performance.now();
  const api = await startServer({ dialect: 'kubernetes' });
  try {
    return await firstAnswer(api.url, api.token, t0);
  } finally {
    await api.stop();
  }
}

async function command(): Promise<number> {
  const dir = tempDir();
  const kubeconfig = join(dir, 'kubeconfig');
  const t0 = performance.now();
  const p = startOwned(process.execPath, [
    join(ROOT, 'scripts', 'bin.mjs'),
    'serve',
    '--dialect',
    'kubernetes',
    '--in-memory',
    '--port',
    '0',
    '--data-dir',
    dir,
    '--kubeconfig',
    kubeconfig,
    '--quiet',
  ]);
  try {
    while (!existsSync(kubeconfig)) {
      if (!p.running()) throw new Error(`serve exited:\n${p.output()}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    const cfg = parseYaml(readFileSync(kubeconfig, 'utf8'));
    return await firstAnswer(cfg.clusters[0].cluster.server, cfg.users[0].user.token, t0);
  } finally {
    await stopOwned(p);
  }
}

async function envtest(): Promise<number> {
  const a = resolveAssets(SHARED_ASSETS);
  const dir = tempDir();
  const [client, peer, secure] = [
    await freePort('127.0.0.1'),
    await freePort('127.0.0.1'),
    await freePort('127.0.0.1'),
  ];
  writeFileSync(join(dir, 'tokens.csv'), 'bench-admin,admin,admin,system:masters\n');
  const key = join(dir, 'sa.key');
  const { execFileSync } = await import('node:child_process');
  execFileSync('openssl', ['genrsa', '-out', key, '2048'], { stdio: 'ignore' });
  const t0 = performance.now();
  const etcd = startOwned(a.etcd, [
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${client}`,
    `--advertise-client-urls=http://127.0.0.1:${client}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`,
    '--unsafe-no-fsync=true',
  ]);
  const apiserver = startOwned(a.kubeApiserver, [
    `--etcd-servers=http://127.0.0.1:${client}`,
    `--cert-dir=${join(dir, 'certs')}`,
    `--secure-port=${secure}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    '--disable-admission-plugins=ServiceAccount',
    `--service-account-issuer=https://127.0.0.1:${secure}/`,
    `--service-account-key-file=${key}`,
    `--service-account-signing-key-file=${key}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
  ]);
  try {
    return await firstAnswer(`https://127.0.0.1:${secure}`, 'bench-admin', t0);
  } finally {
    await stopOwned(apiserver);
    await stopOwned(etcd);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
};

const { values } = parseArgs({ options: { runs: { type: 'string' } } });
const runs = Number(values.runs ?? 10);
// the first start builds the Kubernetes dialect's bundle (once per source state): not counted
await inProcess();
const rows: [string, () => Promise<number>][] = [
  ['in-process startServer({ dialect: kubernetes })', inProcess],
  ['serve --dialect kubernetes --quiet (child process)', command],
  ['envtest: etcd + kube-apiserver 1.28', envtest],
];
for (const [what, f] of rows) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await f());
  process.stdout.write(
    `${what.padEnd(52)} median ${median(times).toFixed(0).padStart(6)} ms  max ${Math.max(...times)
      .toFixed(0)
      .padStart(6)} ms  (${runs} starts)\n`,
  );
}
await insecure.close();
process.exit(0);
