// The two sides of a differential run: a server given by URL or kubeconfig with its own
// credentials and dialect, or one the run starts itself: the reference server in this process
// (in memory, on a write-ahead log, or on a private etcd both reference sides share), or a
// real kube-apiserver with its own etcd from a folder of Kubernetes binaries.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '../../harness/src/client.ts';
import { resolveAssets } from '../../harness/src/control-plane/assets.ts';
import { etcdArgs } from '../../harness/src/control-plane/control-plane.ts';
import type { DialectName } from '../../harness/src/dialect.ts';
import { freePort } from '../../harness/src/free-port.ts';
import { resolveTarget, type Target, type TargetFlags } from '../../harness/src/target.ts';
import { type OwnedProcess, ownedTempDir, removeOwnedDir, startOwned } from '../../lifeline/owned.ts';
import type { ServerOptionsInput } from '../../reference/src/config.ts';
import { type EtcdProcess, startEtcd } from '../../reference/src/etcd-process.ts';
import { generateCertificate } from '../../reference/src/http/tls.ts';
import { build } from '../../reference/src/index.ts';
import { standaloneFlags } from '../kube-apiserver.ts';

export type ReferenceMode = 'memory' | 'wal' | 'etcd';
export const REFERENCE_MODES: ReferenceMode[] = ['memory', 'wal', 'etcd'];

/** A side as the command line gives it: how it starts, and its own credential and dialect flags. */
export interface SideSpec {
  from: 'endpoint' | 'kubeconfig' | 'reference' | 'kubernetes-assets';
  value: string;
  flags: TargetFlags;
}

export interface StartedSide {
  target: Target;
  /** One line saying what the side is. */
  about: string;
  /** How a reproducer of this side authenticates (which variables to set), never a secret. */
  credentials: string;
}

/** Shared by the reference sides on etcd: one etcd, one serving certificate, one admin token. */
interface EtcdShare {
  etcd: EtcdProcess;
  cert: Awaited<ReturnType<typeof generateCertificate>>;
  adminToken: string;
}

function credentialsHint(t: Target): string {
  const parts = [];
  if (t.token) parts.push('TOKEN=<its bearer token>');
  if (t.cert) parts.push('CLIENT_CERT=<file> CLIENT_KEY=<file>');
  if (t.exec) parts.push('TOKEN=<what its kubeconfig exec plugin prints>');
  parts.push(t.insecure ? 'INSECURE=1' : t.ca ? 'CA_FILE=<its CA bundle>' : '(system CA roots)');
  return parts.join(' ');
}

async function waitReady(target: Target, what: string, processes: OwnedProcess[]): Promise<void> {
  const c = new Client(target);
  const deadline = Date.now() + 90_000;
  try {
    for (;;) {
      for (const p of processes)
        if (!p.running()) throw new Error(`${what} exited before it was ready:\n${p.output().slice(-3000)}`);
      const ok = await c
        .get('/readyz', { timeoutMs: 2000 })
        .then((r) => r.status === 200)
        .catch(() => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${what} was not ready within 90 s`);
      await sleep(250);
    }
  } finally {
    await c.close();
  }
}

/** Starts or resolves the sides; `close` stops whatever was started. */
export async function startSides(
  specs: SideSpec[],
  log: (line: string) => void,
): Promise<{ sides: StartedSide[]; close(): Promise<void> }> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  let share: EtcdShare | undefined;
  const sides: StartedSide[] = [];
  try {
    for (const spec of specs) {
      if (spec.from === 'endpoint' || spec.from === 'kubeconfig') {
        const target = resolveTarget(
          spec.from === 'endpoint'
            ? { ...spec.flags, endpoint: spec.value }
            : { ...spec.flags, kubeconfig: spec.value },
          {},
        );
        sides.push({
          target,
          about: `${target.url} (${spec.from === 'kubeconfig' ? `kubeconfig ${spec.value}, ` : ''}dialect ${target.dialect})`,
          credentials: credentialsHint(target),
        });
      } else if (spec.from === 'reference') {
        const mode = spec.value as ReferenceMode;
        const dialect: DialectName = spec.flags.dialect ?? 'orch';
        const options: ServerOptionsInput = { tls: true, port: 0, host: '127.0.0.1', dialect };
        let where = 'in memory';
        if (mode === 'memory') options.inMemory = true;
        else if (mode === 'wal') {
          const dir = ownedTempDir('orch-diff-wal-');
          closers.push(async () => removeOwnedDir(dir));
          options.inMemory = false;
          options.dataDir = dir;
          where = `write-ahead log in ${dir}`;
        } else {
          if (!share) {
            const etcd = await startEtcd({ unsafeNoFsync: true });
            closers.push(() => etcd.stop());
            share = { etcd, cert: await generateCertificate(), adminToken: `diff-${randomUUID()}` };
          }
          Object.assign(options, {
            etcdServers: [share.etcd.url],
            tlsKey: share.cert.key,
            tlsCert: share.cert.cert,
            tlsCa: share.cert.ca,
            adminToken: share.adminToken,
          });
          where = `etcd ${share.etcd.url}`;
        }
        const s = await build(options);
        closers.push(() => s.close());
        await s.listen();
        const target: Target = { url: s.url!, token: s.adminToken, ca: s.caPem, dialect };
        sides.push({
          target,
          about: `the reference server, ${where}, at ${s.url} (dialect ${dialect})`,
          credentials: 'TOKEN=<the admin token> INSECURE=1',
        });
      } else {
        const assets = resolveAssets(spec.value);
        const dir = ownedTempDir('orch-diff-kube-');
        closers.push(async () => removeOwnedDir(dir));
        const [clientPort, peerPort, port] = [
          await freePort('127.0.0.1'),
          await freePort('127.0.0.1'),
          await freePort('127.0.0.1'),
        ];
        const lines = (who: string) => (l: string) => log(`${who}: ${l}`);
        const etcd = startOwned(assets.etcd, etcdArgs(join(dir, 'etcd'), clientPort!, peerPort!), {
          onLine: lines('etcd'),
        });
        closers.push(async () => void (await etcd.stop('SIGTERM', 5000)));
        const token = `diff-${randomUUID()}`;
        const tokens = join(dir, 'tokens.csv');
        writeFileSync(tokens, `${token},diff-admin,diff-admin,"system:masters"\n`, { mode: 0o600 });
        const server = startOwned(
          assets.kubeApiserver,
          [
            ...(await standaloneFlags(dir, `http://127.0.0.1:${clientPort}`, port!)),
            `--token-auth-file=${tokens}`,
          ],
          { onLine: lines('kube-apiserver') },
        );
        closers.push(async () => void (await server.stop('SIGTERM', 10_000)));
        const dialect: DialectName = spec.flags.dialect ?? 'kubernetes';
        // its serving certificate is self-signed in its own folder
        const target: Target = { url: `https://127.0.0.1:${port}`, token, insecure: true, dialect };
        await waitReady(target, 'kube-apiserver', [etcd, server]);
        sides.push({
          target,
          about: `${assets.version} kube-apiserver at ${target.url} with its own etcd (dialect ${dialect})`,
          credentials: 'TOKEN=<the admin token> INSECURE=1',
        });
      }
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { sides, close };
}
