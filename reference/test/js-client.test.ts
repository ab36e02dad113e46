// The JavaScript Kubernetes client (@kubernetes/client-node) against the reference server
// over real HTTPS: the client trusts the server's generated CA through a kubeconfig.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  CoreV1Api,
  type KubernetesObject,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_NAME, writeKubeconfig } from '../src/kubeconfig.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

let ts: TestServer;
let dir: string;
let kubeconfigPath: string;
let kc: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  ts = await startServer({ tls: true });
  dir = mkdtempSync(join(tmpdir(), 'orch-js-client-'));
  kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, { server: ts.url, caPem: ts.server.caPem!, token: ts.token });
  kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await ts?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The HTTP status of a failed call (the client throws ApiException). */
async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof ApiException) return e.code;
    throw e;
  }
}

function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (cond()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

const configMap = (name: string, data: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

describe('connecting', () => {
  it('a kubeconfig file: verified TLS with the CA data, the bearer token, the orch-reference context', async () => {
    expect(kc.getCurrentContext()).toBe(CONTEXT_NAME);
    const cluster = kc.getCurrentCluster()!;
    expect(cluster.server).toBe(ts.url);
    expect(cluster.caData).toBeTruthy();
    expect(cluster.skipTLSVerify).toBe(false);
    const list = await core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toContain('default');
  });

  it('loadFromOptions with the CA data and the token', async () => {
    const k = new KubeConfig();
    k.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: ts.url,
          caData: Buffer.from(ts.server.caPem!).toString('base64'),
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'u', token: ts.token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const ns = await k.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.uid).toBeTruthy();
  });

  it('without the CA the TLS handshake fails; a wrong token is 401', async () => {
    const untrusted = new KubeConfig();
    untrusted.loadFromOptions({
      clusters: [{ name: 'c', server: ts.url, skipTLSVerify: false }],
      users: [{ name: 'u', token: ts.token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    await expect(untrusted.makeApiClient(CoreV1Api).listNamespace()).rejects.toThrow(/certificate/i);
    const wrong = new KubeConfig();
    wrong.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: ts.url,
          caData: Buffer.from(ts.server.caPem!).toString('base64'),
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'u', token: 'not-the-token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    expect(await statusOf(wrong.makeApiClient(CoreV1Api).listNamespace())).toBe(401);
  });
});

describe('CRUD', () => {
  it('Namespaces: create, read, patch, list by label, delete', async () => {
    const name = uniqueName('jsns');
    const created = await core.createNamespace({
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { suite: 'js' } } },
    });
    expect(created.metadata?.name).toBe(name);
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.status?.phase).toBe('Active');
    expect((await core.readNamespace({ name })).metadata?.uid).toBe(created.metadata?.uid);
    const patched = await core.patchNamespace(
      { name, body: { metadata: { labels: { extra: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.metadata?.labels).toMatchObject({ suite: 'js', extra: 'yes' });
    const listed = await core.listNamespace({ labelSelector: `extra=yes` });
    expect(listed.items.map((n) => n.metadata?.name)).toContain(name);
    await core.deleteNamespace({ name });
    await expect
      .poll(async () => {
        try {
          return (await core.readNamespace({ name })).status?.phase;
        } catch (e) {
          return e instanceof ApiException ? e.code : String(e);
        }
      })
      .toSatisfy((v) => v === 404 || v === 'Terminating');
    expect(
      await statusOf(
        core.createNamespace({
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube_bad' } },
        }),
      ),
    ).toBe(422);
  });

  it('ConfigMaps: create, read, replace (with and without a stale resourceVersion), patch three ways, delete', async () => {
    const namespace = uniqueName('jscm');
    await core.createNamespace({
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    const created = await core.createNamespacedConfigMap({ namespace, body: configMap('app', { a: '1' }) });
    expect(created.metadata?.namespace).toBe(namespace);
    expect(await statusOf(core.createNamespacedConfigMap({ namespace, body: configMap('app', {}) }))).toBe(
      409,
    );

    const read = await core.readNamespacedConfigMap({ name: 'app', namespace });
    expect(read.data).toEqual({ a: '1' });

    const replaced = await core.replaceNamespacedConfigMap({
      name: 'app',
      namespace,
      body: { ...read, data: { a: '2' } },
    });
    expect(replaced.data).toEqual({ a: '2' });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(
      Number(read.metadata?.resourceVersion),
    );
    // `read` carries the old resourceVersion now: a conflict
    expect(
      await statusOf(
        core.replaceNamespacedConfigMap({ name: 'app', namespace, body: { ...read, data: { a: '3' } } }),
      ),
    ).toBe(409);

    await core.patchNamespacedConfigMap(
      { name: 'app', namespace, body: { data: { b: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap(
      { name: 'app', namespace, body: [{ op: 'add', path: '/data/c', value: '3' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    const smp = await core.patchNamespacedConfigMap(
      { name: 'app', namespace, body: { data: { d: '4' } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(smp.data).toEqual({ a: '2', b: '2', c: '3', d: '4' });

    const dry = await core.deleteNamespacedConfigMap({ name: 'app', namespace, dryRun: 'All' });
    expect(dry).toBeTruthy();
    expect((await core.readNamespacedConfigMap({ name: 'app', namespace })).data?.a).toBe('2');
    await core.deleteNamespacedConfigMap({ name: 'app', namespace });
    expect(await statusOf(core.readNamespacedConfigMap({ name: 'app', namespace }))).toBe(404);
    expect(await statusOf(core.deleteNamespacedConfigMap({ name: 'app', namespace }))).toBe(404);
  });
});

describe('list paging', () => {
  it('limit and continue: every page, one resourceVersion, later changes not mixed in', async () => {
    const namespace = uniqueName('jspage');
    await core.createNamespace({
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    const names = Array.from({ length: 7 }, (_, i) => `cm-${i}`);
    for (const n of names) await core.createNamespacedConfigMap({ namespace, body: configMap(n, { i: n }) });

    const seen: string[] = [];
    const versions = new Set<string>();
    const remaining: (number | undefined)[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({ namespace, limit: 3, _continue: token });
      pages++;
      seen.push(...page.items.map((i) => i.metadata!.name!));
      versions.add(page.metadata!.resourceVersion!);
      remaining.push(page.metadata?.remainingItemCount);
      token = page.metadata?._continue || undefined;
      // created after the first page: a consistent list must not show it
      if (pages === 1) await core.createNamespacedConfigMap({ namespace, body: configMap('cm-late', {}) });
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(names);
    expect(versions.size).toBe(1);
    expect(remaining).toEqual([4, 1, undefined]);
    const all = await core.listNamespacedConfigMap({ namespace });
    expect(all.items.map((i) => i.metadata!.name)).toEqual([...names, 'cm-late']);
    expect(Number(all.metadata!.resourceVersion)).toBeGreaterThan(Number([...versions][0]));
  });
});

describe('informer', () => {
  it('sees add, update and delete', async () => {
    const namespace = uniqueName('jsinf');
    await core.createNamespace({
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    await core.createNamespacedConfigMap({ namespace, body: configMap('before', { x: '0' }) });

    const informer = makeInformer<V1ConfigMap & KubernetesObject>(
      kc,
      `/api/v1/namespaces/${namespace}/configmaps`,
      () => core.listNamespacedConfigMap({ namespace }),
    );
    const events: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => events.push(`add ${o.metadata?.name} ${JSON.stringify(o.data)}`));
    informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${JSON.stringify(o.data)}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      // the initial list
      await waitFor(() => events.includes('add before {"x":"0"}'), 'the listed object');

      await core.createNamespacedConfigMap({ namespace, body: configMap('live', { v: '1' }) });
      await waitFor(() => events.includes('add live {"v":"1"}'), 'add');

      await core.patchNamespacedConfigMap(
        { name: 'live', namespace, body: { data: { v: '2' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await waitFor(() => events.includes('update live {"v":"2"}'), 'update');

      await core.deleteNamespacedConfigMap({ name: 'live', namespace });
      await waitFor(() => events.includes('delete live'), 'delete');

      expect(events).toEqual([
        'add before {"x":"0"}',
        'add live {"v":"1"}',
        'update live {"v":"2"}',
        'delete live',
      ]);
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });
});
