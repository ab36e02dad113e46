// The reference in Kubernetes' words (`build({ dialect: 'kubernetes' })`, `serve --dialect
// kubernetes`): what a 1.28 kube-apiserver publishes (../shared/kubernetes-1.28: discovery,
// OpenAPI v3, the RBAC defaults) is what it publishes, a typed Kubernetes client reaches it by
// Kubernetes' paths, and the orch server built in the same process is unchanged.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { readFact } from './k8s-facts.ts';

let k8s: TestServer;
let orch: TestServer;
let dir: string;
let kc: KubeConfig;

beforeAll(async () => {
  [k8s, orch] = await Promise.all([
    startServer({ dialect: 'kubernetes', tls: true, controllers: ['*'] }),
    startServer({ tls: true }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'orch-dialect-'));
  writeKubeconfig(join(dir, 'kubeconfig'), { server: k8s.url, caPem: k8s.server.caPem!, token: k8s.token });
  kc = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
}, 60_000);

afterAll(async () => {
  await Promise.all([k8s?.close(), orch?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Where a text still says an orch word of the API (the server's version string aside). */
const orchWords = (text: string) =>
  [
    ...text
      .replaceAll('-orch.0', '')
      .matchAll(/.{0,30}(orch\.io|io\.orch|x-orch-|orch-system|vnd\.orch).{0,30}/g),
  ].map((m) => m[0]);

describe('discovery and OpenAPI in Kubernetes words', () => {
  it('prefers the group versions a 1.28 kube-apiserver prefers, by the same names', async () => {
    const fact = readFact('discovery.json') as { preferred: Record<string, string> };
    const r = await k8s.req('GET', '/apis');
    const served = Object.fromEntries(
      r.json.groups.map((g: any) => [g.name, g.preferredVersion.groupVersion]),
    ) as Record<string, string>;
    expect(served).toEqual(Object.fromEntries(Object.entries(fact.preferred).filter(([g]) => g !== 'v1')));
  });

  it('lists every resource of every group version a 1.28 server lists, as it lists it, storage version hash too', async () => {
    const fact = readFact('discovery.json') as { resources: Record<string, any[]> };
    for (const [gv, resources] of Object.entries(fact.resources)) {
      const r = await k8s.req('GET', gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
      expect(r.status, `GET ${gv}`).toBe(200);
      const byName = new Map(r.json.resources.map((x: any) => [x.name, x]));
      for (const want of resources) {
        expect(byName.has(want.name), `${gv} ${want.name}`).toBe(true);
        expectResourceAsFact(byName.get(want.name), want);
        // the hash of the version it is stored at, none for what is never stored
        expect(
          (byName.get(want.name) as any).storageVersionHash,
          `${gv} ${want.name} storageVersionHash`,
        ).toBe(want.storageVersionHash);
      }
    }
  });

  it("gives a custom resource's every version the storage version's hash", async () => {
    const group = `${uniqueName('g')}.example.com`;
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
      },
    };
    expect(
      (await k8s.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    const want = createHash('sha256').update(`${group}/v1/Widget`).digest().subarray(0, 8).toString('base64');
    for (const v of ['v1', 'v1beta1']) {
      let r = await k8s.req('GET', `/apis/${group}/${v}`);
      for (let i = 0; i < 100 && r.status !== 200; i++) {
        await new Promise((res) => setTimeout(res, 20));
        r = await k8s.req('GET', `/apis/${group}/${v}`);
      }
      const widgets = r.json.resources.find((x: any) => x.name === 'widgets');
      expect(widgets.storageVersionHash, v).toBe(want);
    }
  });

  it('names the schemas of apps/v1 as a 1.28 server does (io.k8s.*)', async () => {
    const fact = readFact('openapi-v3/apis_apps_v1.json') as any;
    const r = await k8s.req('GET', '/openapi/v3/apis/apps/v1');
    expect(r.status).toBe(200);
    const served = Object.keys(r.json.components.schemas);
    // every name is one 1.28 publishes there (the reference does not yet publish every type a
    // 1.28 document references: the rest of the list, not the names, differs)
    expect(served.filter((n) => !(n in fact.components.schemas))).toEqual([]);
    expect(served).toContain('io.k8s.api.apps.v1.Deployment');
    expect(served).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    // the title is Kubernetes'; the version stays the reference's own (v1.28.0-orch.0)
    expect(r.json.info.title).toBe(fact.info.title);
  });

  it('says no orch word of the API in discovery, OpenAPI or its system objects', async () => {
    for (const path of [
      '/apis',
      '/api/v1',
      '/openapi/v2',
      '/openapi/v3',
      '/api/v1/namespaces',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    ])
      expect(orchWords((await k8s.req('GET', path)).text), path).toEqual([]);
  });
});

describe('Kubernetes words in what the server does', () => {
  it('has the system namespaces of Kubernetes, and finalizes a namespace as `kubernetes`', async () => {
    for (const ns of ['kube-system', 'kube-public', 'kube-node-lease', 'default'])
      expect((await k8s.req('GET', `/api/v1/namespaces/${ns}`)).status, ns).toBe(200);
    const name = uniqueName('ns');
    const r = await k8s.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    expect(r.status).toBe(201);
    expect(r.json.spec.finalizers).toEqual(['kubernetes']);
  });

  it('speaks Protobuf as application/vnd.kubernetes.protobuf, and not as the orch type', async () => {
    const ok = await k8s.req('GET', '/api/v1/namespaces/default', undefined, {
      accept: 'application/vnd.kubernetes.protobuf',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(ok.body.subarray(0, 4)).toEqual(Buffer.from('k8s\0', 'latin1'));
    const orchType = await k8s.req('GET', '/api/v1/namespaces/default', undefined, {
      accept: 'application/vnd.orch.protobuf',
    });
    expect(orchType.status).toBe(406);
  });

  it('is reached by typed Kubernetes clients, and its RBAC defaults are 1.28 ones word for word', async () => {
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const admin = await rbac.readClusterRole({ name: 'admin' });
    const fact = (readFact('rbac-defaults.json') as any).clusterroles.find((c: any) => c.name === 'admin');
    expect(admin.metadata?.labels).toEqual(fact.labels);
    expect(admin.metadata?.annotations).toEqual(fact.annotations);
    expect(admin.aggregationRule).toEqual(fact.aggregationRule);
    const core = kc.makeApiClient(CoreV1Api);
    expect((await core.readNamespace({ name: 'kube-system' })).metadata?.name).toBe('kube-system');
    const hooks = kc.makeApiClient(AdmissionregistrationV1Api);
    expect(Array.isArray((await hooks.listValidatingWebhookConfiguration()).items)).toBe(true);
  });

  it('has its own Service `kubernetes` in default, as a 1.28 server makes it, made again when deleted', async () => {
    const path = '/api/v1/namespaces/default/services/kubernetes';
    const r = await k8s.req('GET', path);
    expect(r.status).toBe(200);
    expect(r.json.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    const port = Number(new URL(k8s.url).port);
    expect(r.json.spec).toMatchObject({
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }],
      clusterIP: '10.96.0.1',
      type: 'ClusterIP',
      sessionAffinity: 'None',
    });
    expect((await k8s.req('DELETE', path)).status).toBe(200);
    const deadline = Date.now() + 5000;
    let again: Awaited<ReturnType<TestServer['req']>> | undefined;
    while (Date.now() < deadline) {
      again = await k8s.req('GET', path);
      if (again.status === 200) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(again?.status).toBe(200);
    expect(again?.json.metadata.uid).not.toBe(r.json.metadata.uid);
    expect(again?.json.spec.clusterIP).toBe('10.96.0.1');
  });

  it('keeps a change to that Service: a 1.28 server only makes it when missing (so servers on one store do not write it back and forth)', async () => {
    const path = '/api/v1/namespaces/default/services/kubernetes';
    const before = (await k8s.req('GET', path)).json;
    const changed = structuredClone(before);
    changed.spec.ports[0].targetPort = 7443;
    const put = await k8s.req('PUT', path, changed);
    expect(put.status).toBe(200);
    // the controller reacts to events at once; give it time to (wrongly) write it back
    await new Promise((res) => setTimeout(res, 500));
    const after = (await k8s.req('GET', path)).json;
    expect(after.spec.ports[0].targetPort).toBe(7443);
    expect(after.metadata.resourceVersion).toBe(put.json.metadata.resourceVersion);
  });

  it('publishes the root CA as kube-root-ca.crt in each namespace', async () => {
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await k8s.req('GET', '/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  });
});

describe('the orch server beside it', () => {
  it('still speaks the spec words', async () => {
    const groups = (await orch.req('GET', '/apis')).json.groups.map((g: any) => g.name);
    expect(groups).toContain('rbac.authorization.orch.io');
    expect(groups).not.toContain('rbac.authorization.k8s.io');
    const ns = await orch.req('GET', '/api/v1/namespaces/orch-system');
    expect(ns.status).toBe(200);
    expect((await orch.req('GET', '/api/v1/namespaces/default/services/orch')).json.metadata.labels).toEqual({
      component: 'apiserver',
      provider: 'orch',
    });
  });
});
