// The real thing beside the reference: kube-apiserver 1.28 from ../shared/kubernetes-1.28/bin
// (or --kubernetes-assets) on an etcd of its own (Debian's etcd 3.4, fsync as etcd does by
// default), the API server alone as the reference's benchmark server runs alone (no controller
// manager writing meanwhile). A bearer token of system:masters (--token-auth-file) makes the
// requests the same as the reference's; its CPU comes from /proc.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import {
  assetsDir,
  HOW_TO_GET_ASSETS,
  resolveAssets,
  SHARED_ASSETS,
} from '../../harness/src/control-plane/assets.ts';
import { freePort } from '../../harness/src/free-port.ts';
import { startOwned } from '../../lifeline/owned.ts';
import { standaloneFlags } from '../kube-apiserver.ts';
import { cpuSecOf, startEtcdBench } from './etcd.ts';
import { agent } from './http.ts';
import { sleep } from './measure.ts';
import { type ServerProc, stopOwned, tempDir } from './process.ts';

/** A kube-apiserver with its etcd, as a side of a comparison; `version` as its binary says. */
export async function startKubeApiserver(assetsFlag?: string): Promise<ServerProc & { version: string }> {
  const dir = assetsDir(assetsFlag) ?? (existsSync(SHARED_ASSETS) ? SHARED_ASSETS : undefined);
  if (!dir) throw new Error(`the kube-apiserver rows need the Kubernetes binaries: ${HOW_TO_GET_ASSETS}`);
  const assets = resolveAssets(dir);
  const etcd = await startEtcdBench();
  const own = tempDir('orch-bench-kube-');
  const token = `bench-kube-${process.pid}-${Date.now().toString(36)}`;
  writeFileSync(join(own, 'tokens.csv'), `${token},bench-admin,bench-admin,"system:masters"\n`);
  const port = await freePort('127.0.0.1');
  const owned = startOwned(
    assets.kubeApiserver,
    [...(await standaloneFlags(own, etcd.etcd.url, port)), `--token-auth-file=${join(own, 'tokens.csv')}`],
    {},
  );
  const url = `https://127.0.0.1:${port}`;
  const stop = async () => {
    await stopOwned(owned);
    await etcd.stop();
  };
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (!owned.running())
        throw new Error(`kube-apiserver exited before it was ready:\n${owned.output().slice(-3000)}`);
      const r = await request(`${url}/readyz`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}` },
      }).catch(() => undefined);
      await r?.body.dump();
      if (r?.statusCode === 200) break;
      if (Date.now() > deadline)
        throw new Error(`kube-apiserver was not ready in 120 s:\n${owned.output().slice(-3000)}`);
      await sleep(250);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const pid = owned.child.pid;
  return {
    mode: 'kube',
    url,
    token,
    proc: owned.child,
    version: assets.version,
    // what the comparison asks of a server process: its CPU (microseconds, as process.cpuUsage)
    rpc: async () =>
      ({ cpu: { user: cpuSecOf(pid) * 1e6, system: 0 }, elu: { idle: 0, active: 0 } }) as never,
    stop,
  };
}
