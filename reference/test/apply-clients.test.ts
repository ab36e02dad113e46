// Server-side apply from real clients against the reference server over HTTPS:
// `kubectl apply --server-side` (with and without --force-conflicts, the conflict message
// when another manager owns a field, server dry run, a scale in between) and the JavaScript
// client (@kubernetes/client-node: KubernetesObjectApi.patch with
// PatchStrategy.ServerSideApply, and a typed API call with the apply content type).
//
// kubectl is found as reference/test/kubectl.test.ts finds it (kubectl-bin.ts): $KUBECTL, then
// kubectl 1.28 of the Google Cloud SDK, then PATH; without one these tests fail.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import { entry, owners } from './apply-helpers.ts';
import { type Run, runKubectl } from './kubectl-run.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';

let ts: TestServer;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  ts = await startServer({ tls: true });
  dir = mkdtempSync(join(tmpdir(), 'orch-apply-clients-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, { server: ts.url, caPem: ts.server.caPem!, token: ts.token });
});

afterAll(async () => {
  await ts?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function namespace(): Promise<string> {
  const ns = uniqueName('ssa');
  const r = await ts.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  expect(r.status, r.text).toBe(201);
  return ns;
}

const kubectlBin = findKubectl();

describe(`kubectl apply --server-side (${kubectlBin ?? 'no kubectl'})`, () => {
  // no kubectl fails every test here, saying how to install one (never a skip)
  beforeAll(() => {
    const why = kubectlMissing(kubectlBin);
    if (why) throw new Error(why);
  });

  const kubectl = (...args: string[]): Promise<Run> =>
    runKubectl(
      kubectlBin!,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '20s', ...args],
      { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 25_000 },
    );
  const ok = async (...args: string[]) => {
    const r = await kubectl(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const cmYaml = (name: string, ns: string, data: Record<string, string>) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n${Object.entries(
      data,
    )
      .map(([k, v]) => `  ${k}: "${v}"\n`)
      .join('')}`;

  it('creates, then re-applies, as the manager "kubectl" with an Apply entry', async () => {
    const ns = await namespace();
    const p = file('cm-a.yaml', cmYaml('applied', ns, { a: '1' }));
    expect(await ok('apply', '--server-side', '-f', p)).toContain('configmap/applied serverside-applied');
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/applied`);
    expect(r.json.data).toEqual({ a: '1' });
    expect(entry(r.json, 'kubectl')?.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    // the same file again: success, nothing changes
    expect(await ok('apply', '--server-side', '-f', p)).toContain('configmap/applied serverside-applied');
    const again = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/applied`);
    expect(again.json.metadata.resourceVersion).toBe(r.json.metadata.resourceVersion);
    // kubectl shows managedFields only when asked
    const shown = parseYaml(
      await ok('get', 'configmap', 'applied', '-n', ns, '-o', 'yaml', '--show-managed-fields'),
    );
    expect(shown.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply' });
    const hidden = parseYaml(await ok('get', 'configmap', 'applied', '-n', ns, '-o', 'yaml'));
    expect(hidden.metadata.managedFields).toBeUndefined();
  });

  it('reports the conflict with the manager that created the field; --force-conflicts takes it over', async () => {
    const ns = await namespace();
    expect(await ok('create', '-f', file('cm-b1.yaml', cmYaml('shared', ns, { a: '1', b: '1' })))).toContain(
      'configmap/shared created',
    );
    const p = file('cm-b2.yaml', cmYaml('shared', ns, { a: '2' }));
    const conflict = await kubectl('apply', '--server-side', '-f', p);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a',
    );
    // kubectl explains the ways out (its own text, printed for a Conflict with FieldManagerConflict causes)
    expect(conflict.stderr).toContain('--force-conflicts');
    const before = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/shared`);
    expect(before.json.data).toEqual({ a: '1', b: '1' });

    expect(await ok('apply', '--server-side', '--force-conflicts', '-f', p)).toContain(
      'configmap/shared serverside-applied',
    );
    const after = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/shared`);
    expect(after.json.data).toEqual({ a: '2', b: '1' });
    expect(owners(after.json, ['f:data', 'f:a'])).toEqual(['kubectl/Apply']);
    expect(owners(after.json, ['f:data', 'f:b'])).toEqual(['kubectl-create/Update']);
  });

  it('--dry-run=server shows the result and persists nothing', async () => {
    const ns = await namespace();
    const p = file('cm-c.yaml', cmYaml('dry', ns, { a: '1' }));
    const out = await ok('apply', '--server-side', '--dry-run=server', '-f', p);
    expect(out).toContain('configmap/dry serverside-applied (server dry run)');
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/dry`)).status).toBe(404);
  });

  it('a Deployment scaled by another manager: the next apply of replicas conflicts with it', async () => {
    const ns = await namespace();
    const deploy = (replicas: number) =>
      file(
        `deploy-${replicas}.yaml`,
        `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - containerPort: 80
`,
      );
    expect(await ok('apply', '--server-side', '-f', deploy(2))).toContain(
      'deployment.apps/web serverside-applied',
    );
    await ok('scale', 'deployment/web', '-n', ns, '--replicas=4');
    const scaled = await ts.req('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    expect(scaled.json.spec.replicas).toBe(4);
    const scaler = scaled.json.metadata.managedFields.find((e: any) => e.subresource === 'scale');
    expect(scaler).toMatchObject({
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    const conflict = await kubectl('apply', '--server-side', '-f', deploy(3));
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain(
      `Apply failed with 1 conflict: conflict with "${scaler.manager}" using apps/v1: .spec.replicas`,
    );
    await ok('apply', '--server-side', '--force-conflicts', '-f', deploy(3));
    const forced = await ts.req('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    expect(forced.json.spec.replicas).toBe(3);
    expect(owners(forced.json, ['f:spec', 'f:replicas'])).toEqual(['kubectl/Apply']);
  });
});

describe('@kubernetes/client-node: server-side apply', () => {
  let kc: KubeConfig;
  let objects: KubernetesObjectApi;
  let core: CoreV1Api;

  beforeAll(() => {
    kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    objects = KubernetesObjectApi.makeApiClient(kc);
    core = kc.makeApiClient(CoreV1Api);
  });

  const cm = (name: string, ns: string, data: Record<string, string>): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns },
    data,
  });

  it('KubernetesObjectApi.patch with PatchStrategy.ServerSideApply creates, conflicts (409) and forces', async () => {
    const ns = await namespace();
    const created = await objects.patch(
      cm('js', ns, { a: '1' }),
      undefined,
      undefined,
      'js-a',
      false,
      PatchStrategy.ServerSideApply,
    );
    expect(created.data).toEqual({ a: '1' });
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ manager: 'js-a', operation: 'Apply' });

    let err: unknown;
    try {
      await objects.patch(
        cm('js', ns, { a: '2' }),
        undefined,
        undefined,
        'js-b',
        false,
        PatchStrategy.ServerSideApply,
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiException);
    const ex = err as ApiException<unknown>;
    expect(ex.code).toBe(409);
    const status = typeof ex.body === 'string' ? JSON.parse(ex.body) : ex.body;
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "js-a": .data.a');

    const forced = await objects.patch(
      cm('js', ns, { a: '2' }),
      undefined,
      undefined,
      'js-b',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(forced.data).toEqual({ a: '2' });
    expect(forced.metadata?.managedFields?.map((e) => e.manager)).toEqual(['js-b']);
  });

  it('a typed call with the apply content type (setHeaderOptions) and a dry run', async () => {
    const ns = await namespace();
    const body = cm('typed', ns, { x: '1' });
    const dry = await core.patchNamespacedConfigMap(
      { name: 'typed', namespace: ns, body, fieldManager: 'js-typed', dryRun: 'All' },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    expect(dry.metadata?.managedFields?.[0]?.manager).toBe('js-typed');
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/typed`)).status).toBe(404);
    const real = await core.patchNamespacedConfigMap(
      { name: 'typed', namespace: ns, body, fieldManager: 'js-typed' },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    expect(real.data).toEqual({ x: '1' });
    expect(real.metadata?.managedFields?.[0]).toMatchObject({
      manager: 'js-typed',
      operation: 'Apply',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:x': {} } },
    });
  });
});
