// `kubectl logs`, `kubectl exec` and `kubectl attach` against the reference server, run as real
// child processes: without a node agent, kubectl prints the errors a Kubernetes 1.28 server
// gives (a pod on no node, a container that is not the pod's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import { type Run, runKubectl } from './kubectl-run.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';

const bin = findKubectl();

describe('kubectl logs and exec of pods without a node agent', () => {
  let ts: TestServer;
  let dir: string;
  let kubeconfig: string;
  const ns = uniqueName('kx');

  const kubectl = (...args: string[]): Promise<Run> =>
    runKubectl(
      bin!,
      [
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        join(dir, 'cache'),
        '--request-timeout',
        '20s',
        '-n',
        ns,
        ...args,
      ],
      { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 25_000 },
    );

  beforeAll(async () => {
    ts = await startServer({ tls: true });
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-connect-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, { server: ts.url, caPem: ts.server.caPem!, token: ts.token });
    expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    for (const [name, containers] of [
      ['one', [{ name: 'app', image: 'nginx' }]],
      [
        'two',
        [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'x' },
        ],
      ],
    ] as const) {
      const r = await ts.req('POST', `/api/v1/namespaces/${ns}/pods`, {
        metadata: { name },
        spec: { containers },
      });
      expect(r.status, r.text).toBe(201);
    }
  });
  afterAll(async () => {
    await ts?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl is installed', () => {
    const why = kubectlMissing(bin);
    expect(why, why).toBeUndefined();
  });

  it('kubectl exec: the pod has no host', async () => {
    const r = await kubectl('exec', 'one', '--', 'ls');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (BadRequest): pod one does not have a host assigned');
  });

  it("kubectl exec -c: a container that is not the pod's", async () => {
    const r = await kubectl('exec', 'two', '-c', 'zz', '--', 'ls');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (BadRequest): container zz is not valid for pod two');
  });

  it("kubectl logs -c: a container that is not the pod's", async () => {
    // kubectl reads the pod first and prints the same words as its own error
    const r = await kubectl('logs', 'two', '-c', 'zz');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('container zz is not valid for pod two');
  });

  it('kubectl logs: a pod on no node has an empty log', async () => {
    const r = await kubectl('logs', 'one');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('kubectl logs of a missing pod: NotFound', async () => {
    const r = await kubectl('logs', 'nope');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (NotFound): pods "nope" not found');
  });
});
