// A fake API server for tests, envtest style: `startServer()` starts the reference in this
// process (in memory, HTTPS on a free loopback port, every controller running) and resolves to
// its URL, a kubeconfig file for its admin and a stop function. In Kubernetes' words with
// `{ dialect: 'kubernetes' }`, for clients that hard-code Kubernetes' groups and paths.
//
//   const api = await startServer({ dialect: 'kubernetes' });
//   const kc = new KubeConfig(); kc.loadFromFile(api.kubeconfig);
//   ...
//   await api.stop();
//
// From the command line: `orch-conformance serve --dialect kubernetes --in-memory --port 0
// --kubeconfig PATH --quiet` prints nothing and writes PATH once the server answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerOptionsInput } from './config.ts';
import { build, type OrchServer } from './index.ts';
import { writeKubeconfig } from './kubeconfig.ts';

export interface StartServerOptions {
  /** The words the API speaks (default orch). */
  dialect?: 'orch' | 'kubernetes';
  /** Any other server option (feature gates, runtime config, admission plugins, ...). */
  options?: ServerOptionsInput;
}

export interface FakeServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** A kubeconfig file for the admin (bearer token, the server's CA), removed at stop. */
  kubeconfig: string;
  token: string;
  /** PEM of the CA that issued the serving certificate. */
  caPem: string;
  server: OrchServer;
  /** Closes the server and removes the kubeconfig. */
  stop(): Promise<void>;
}

export async function startServer(o: StartServerOptions = {}): Promise<FakeServer> {
  const server = await build({
    ...o.options,
    ...(o.dialect ? { dialect: o.dialect } : {}),
    inMemory: true,
    tls: true,
    host: '127.0.0.1',
    port: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'orch-fake-server-'));
  try {
    const { url } = await server.listen();
    const kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, { server: url, caPem: server.caPem, token: server.adminToken });
    return {
      url,
      kubeconfig,
      token: server.adminToken,
      caPem: server.caPem!,
      server,
      async stop() {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await server.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
