// kubectl against the reference server: an in-process HTTPS server with a generated CA, a
// kubeconfig that trusts it, and kubectl run as a real child process.
//
// kubectl is found through $KUBECTL, then the 1.28 binary of the Google Cloud SDK, then
// PATH (Debian's kubernetes-client is kubectl 1.20): kubectl-bin.ts. When $KUBECTL is unset
// and the SDK has a newer kubectl too (1.33 on CI's machine), the same tests run with the newest one as well. No
// kubectl fails the run (it says how to install one).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SERVER_VERSION } from '../src/index.ts';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import { builtinKinds } from '../src/registry/kinds/index.ts';
import { POLICY_GROUP_VERSIONS } from '../src/registry/kinds/policy-common.ts';
import { type Run, runKubectl } from './kubectl-run.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, factKey, kubectlHeaders, readFact } from './k8s-facts.ts';
import { csrPem } from './cert-helpers.ts';
import { executable, findKubectl, kubectlMissing, SDK_BIN } from './kubectl-bin.ts';

function newestSdkKubectl(): string | undefined {
  let best: { minor: number; path: string } | undefined;
  try {
    for (const f of readdirSync(SDK_BIN)) {
      const m = /^kubectl\.1\.(\d+)$/.exec(f);
      if (m && executable(join(SDK_BIN, f)) && (!best || Number(m[1]) > best.minor))
        best = { minor: Number(m[1]), path: join(SDK_BIN, f) };
    }
  } catch {
    return undefined;
  }
  return best?.path;
}

const primary = findKubectl();
const binaries: string[] = primary ? [primary] : [];
const newest = process.env.KUBECTL ? undefined : newestSdkKubectl();
if (newest && newest !== primary) binaries.push(newest);

/** The rows of the catch-all configuration objects, as 1.28 makes them. */
const FLOW_SCHEMA_ROW = {
  PRIORITYLEVEL: 'catch-all',
  MATCHINGPRECEDENCE: '10000',
  DISTINGUISHERMETHOD: 'ByUser',
  MISSINGPL: 'False',
};
const PRIORITY_LEVEL_ROW = {
  TYPE: 'Limited',
  NOMINALCONCURRENCYSHARES: '5',
  QUEUES: '<none>',
  HANDSIZE: '<none>',
  QUEUELENGTHLIMIT: '<none>',
};

// no kubectl fails here (it is not a reason to skip the tests below)
describe('kubectl for the tests below', () => {
  it('is installed', () => {
    const why = kubectlMissing(primary);
    expect(why, why).toBeUndefined();
  });
});

function until(cond: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (cond()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting: ${what()}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

// What kubectl and client-go send, checked without kubectl: aggregated discovery is not served
// and falls back to plain JSON; the Table is served under Kubernetes' group name too.
describe('requests kubectl makes', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer();
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('aggregated discovery Accept headers get the plain discovery documents', async () => {
    const accept =
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    const apis = await ts.req('GET', '/apis', undefined, { accept });
    expect(apis.status).toBe(200);
    expect(apis.headers['content-type']).toBe('application/json');
    expect(apis.json.kind).toBe('APIGroupList');
    const api = await ts.req('GET', '/api', undefined, { accept });
    expect(api.json.kind).toBe('APIVersions');
  });

  it("kubectl get's Accept is answered with a meta.k8s.io/v1 Table (kubectl checks the group)", async () => {
    const accept =
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const r = await ts.req('GET', '/api/v1/namespaces/default/configmaps?limit=500', undefined, { accept });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(r.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
  });
});

describe.each(binaries)('kubectl %s', (bin) => {
  let ts: TestServer;
  let dir: string;
  let kubeconfig: string;
  let minor = 0;
  const ns = uniqueName('kc');
  const children: ChildProcess[] = [];

  const env = () => ({ ...process.env, HOME: dir, KUBECONFIG: kubeconfig });
  const common = () => [
    '--kubeconfig',
    kubeconfig,
    '--cache-dir',
    join(dir, 'cache'),
    '--request-timeout',
    '20s',
  ];

  /** Runs kubectl to completion; never rejects. */
  const kubectl = (...args: string[]): Promise<Run> =>
    runKubectl(bin, [...common(), ...args], { env: env(), timeout: 25_000, maxBuffer: 16 * 1024 * 1024 });

  /** Like kubectl(), but expects success. */
  const ok = async (...args: string[]): Promise<string> => {
    const r = await kubectl(...args);
    if (r.code !== 0)
      throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r.stdout;
  };

  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  const cm = async (name: string) => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
    return r;
  };

  beforeAll(async () => {
    ts = await startServer({ tls: true });
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-'));
    kubeconfig = join(dir, 'kubeconfig');
    expect(ts.url.startsWith('https://127.0.0.1:')).toBe(true);
    writeKubeconfig(kubeconfig, { server: ts.url, caPem: ts.server.caPem!, token: ts.token });
    const v = JSON.parse(await ok('version', '--client', '-o', 'json')) as {
      clientVersion: { minor: string };
    };
    minor = Number.parseInt(v.clientVersion.minor, 10);
  });

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await ts?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('version: the server version', async () => {
    const text = await ok('version');
    expect(text).toContain(SERVER_VERSION.gitVersion);
    const j = JSON.parse(await ok('version', '-o', 'json')) as { serverVersion: Record<string, string> };
    expect(j.serverVersion).toMatchObject({ major: '1', minor: '28', gitVersion: SERVER_VERSION.gitVersion });
  });

  it('api-resources: the served resources from discovery', async () => {
    const lines = (await ok('api-resources')).split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND/);
    const row = (name: string) => lines.find((l) => l.split(/\s+/)[0] === name)?.split(/\s+/);
    expect(row('configmaps')).toEqual(['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
    expect(row('namespaces')).toEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
    expect(row('daemonsets')).toEqual(['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet']);
    expect(row('statefulsets')).toEqual(['statefulsets', 'sts', 'apps/v1', 'true', 'StatefulSet']);
    expect(row('replicasets')).toEqual(['replicasets', 'rs', 'apps/v1', 'true', 'ReplicaSet']);
    expect(row('controllerrevisions')).toEqual([
      'controllerrevisions',
      'apps/v1',
      'true',
      'ControllerRevision',
    ]);
    expect(row('replicationcontrollers')).toEqual([
      'replicationcontrollers',
      'rc',
      'v1',
      'true',
      'ReplicationController',
    ]);
    expect(row('podtemplates')).toEqual(['podtemplates', 'v1', 'true', 'PodTemplate']);
  });

  it('create -f: a Namespace and a ConfigMap from one YAML file', async () => {
    const p = file(
      'objects.yaml',
      `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
  namespace: ${ns}
  labels:
    app: demo
data:
  a: "1"
`,
    );
    const out = await ok('create', '-f', p);
    expect(out).toContain(`namespace/${ns} created`);
    expect(out).toContain('configmap/cm1 created');
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    const r = await cm('cm1');
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: '1' });
    // again: AlreadyExists, reported as kubectl does
    const again = await kubectl('create', '-f', p);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('AlreadyExists');
  });

  it('get: table output from the server-side Table', async () => {
    const r = await kubectl('get', 'configmaps', '-n', ns);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header!.trim().split(/\s{2,}/)).toEqual(['NAME', 'DATA', 'AGE']);
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(['cm1']);
    const nsOut = await ok('get', 'namespace', ns);
    expect(nsOut.trim().split('\n')[1]!.split(/\s+/)[0]).toBe(ns);
    const labels = await ok('get', 'cm', '-n', ns, '-l', 'app=demo', '--show-labels');
    expect(labels).toContain('app=demo');
    const missing = await kubectl('get', 'configmap', 'nope', '-n', ns);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('configmaps "nope" not found');
  });

  describe('get: every built-in kind prints the columns a Kubernetes 1.28 cluster prints', () => {
    const tns = uniqueName('kc-tables');
    const KINDS = builtinKinds(() => {
      throw new Error('not used');
    })
      // listable kinds only (core bindings are create-only: nothing to get)
      .filter((def) => def.verbs.includes('list'))
      .flatMap((def) =>
        // group versions a default server does not serve (the policy API) have no captured columns
        def.versions
          .filter((v) => !POLICY_GROUP_VERSIONS.includes(`${def.group}/${v}`))
          .map((version) => ({
            key: factKey(def.group, version, def.plural),
            // `plural.version.group` names the one resource even where two groups share a plural (events)
            resource: def.group ? `${def.plural}.${version}.${def.group}` : def.plural,
            namespaced: def.namespaced,
            cols: columnsOf(def.group, version, def.plural),
          })),
      );
    const ago = (minutes: number) =>
      new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const nodeName = `${tns}-node`;
    const crdName = `widgets.${tns}.example.orch.io`;

    const post = async (path: string, body: unknown) => {
      const r = await ts.req('POST', path, body);
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
      return r.json;
    };
    const patchStatus = async (path: string, status: unknown) => {
      const r = await ts.req(
        'PATCH',
        `${path}/status`,
        { status },
        { 'content-type': 'application/merge-patch+json' },
      );
      if (r.status !== 200) throw new Error(`PATCH ${path}/status: ${r.status} ${r.text}`);
      return r.json;
    };
    const inNs = (plural: string, group = '') =>
      group ? `/apis/${group}/namespaces/${tns}/${plural}` : `/api/v1/namespaces/${tns}/${plural}`;

    /** One object of each kind, by the fixture key of its resource; the name its row has. */
    const SAMPLES: Record<string, () => Promise<string>> = {
      'v1/namespaces': async () => tns,
      'v1/configmaps': async () => {
        await post(inNs('configmaps'), {
          metadata: { name: 'settings' },
          data: { a: '1', b: '2' },
          binaryData: { c: 'AA==' },
        });
        return 'settings';
      },
      'v1/secrets': async () => {
        await post(inNs('secrets'), { metadata: { name: 'creds' }, stringData: { user: 'u', pass: 'p' } });
        return 'creds';
      },
      'v1/pods': async () => {
        const base = inNs('pods');
        await post(base, {
          metadata: { name: 'web-0' },
          spec: {
            nodeName,
            containers: [
              { name: 'app', image: 'nginx:1.25' },
              { name: 'sidecar', image: 'busybox:1.36' },
            ],
          },
        });
        await patchStatus(`${base}/web-0`, {
          phase: 'Running',
          podIP: '10.244.1.7',
          conditions: [{ type: 'Ready', status: 'False' }],
          containerStatuses: [
            {
              name: 'app',
              ready: true,
              restartCount: 1,
              image: 'nginx:1.25',
              imageID: '',
              state: { running: {} },
            },
            {
              name: 'sidecar',
              ready: false,
              restartCount: 4,
              image: 'busybox:1.36',
              imageID: '',
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(30) } },
            },
          ],
        });
        return 'web-0';
      },
      'v1/services': async () => {
        await post(inNs('services'), {
          metadata: { name: 'web' },
          spec: {
            selector: { app: 'web' },
            ports: [
              { name: 'http', port: 80 },
              { name: 'dns', port: 53, protocol: 'UDP' },
            ],
          },
        });
        return 'web';
      },
      'v1/nodes': async () => {
        await post('/api/v1/nodes', {
          metadata: { name: nodeName, labels: { 'node-role.orch.io/worker': '' } },
          status: {
            conditions: [{ type: 'Ready', status: 'True' }],
            nodeInfo: {
              kubeletVersion: 'v1.28.0',
              osImage: 'Debian 12',
              kernelVersion: '6.1.0',
              containerRuntimeVersion: 'containerd://1.7.0',
            },
            addresses: [{ type: 'InternalIP', address: '192.0.2.10' }],
          },
        });
        return nodeName;
      },
      'v1/serviceaccounts': async () => {
        await post(inNs('serviceaccounts'), { metadata: { name: 'builder' }, secrets: [{ name: 'creds' }] });
        return 'builder';
      },
      'v1/events': async () => {
        await post(inNs('events'), {
          metadata: { name: 'web-0.pulled' },
          involvedObject: { kind: 'Pod', namespace: tns, name: 'web-0', fieldPath: 'spec.containers{app}' },
          reason: 'Pulled',
          message: 'Container image pulled',
          source: { component: 'agent', host: nodeName },
          type: 'Normal',
          firstTimestamp: ago(20),
          lastTimestamp: ago(10),
          count: 2,
        });
        return 'web-0.pulled';
      },
      'events.k8s.io/v1/events': async () => {
        await post(inNs('events', 'events.orch.io/v1'), {
          metadata: { name: 'web-0.scheduled' },
          eventTime: new Date().toISOString(),
          type: 'Normal',
          action: 'Binding',
          reason: 'Scheduled',
          note: 'Assigned to a node',
          reportingController: 'orch.io/scheduler',
          reportingInstance: 'scheduler-1',
          regarding: { kind: 'Pod', namespace: tns, name: 'web-0' },
        });
        return 'web-0.scheduled';
      },
      'coordination.k8s.io/v1/leases': async () => {
        await post(inNs('leases', 'coordination.orch.io/v1'), {
          metadata: { name: 'leader' },
          spec: { holderIdentity: 'web-0', leaseDurationSeconds: 15 },
        });
        return 'leader';
      },
      'apps/v1/deployments': async () => {
        const base = inNs('deployments', 'apps/v1');
        await post(base, {
          metadata: { name: 'web' },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: {
                containers: [
                  { name: 'app', image: 'nginx:1.25' },
                  { name: 'sidecar', image: 'busybox:1.36' },
                ],
              },
            },
          },
        });
        await patchStatus(`${base}/web`, {
          replicas: 3,
          updatedReplicas: 3,
          readyReplicas: 2,
          availableReplicas: 1,
        });
        return 'web';
      },
      'apps/v1/replicasets': async () => {
        const base = inNs('replicasets', 'apps/v1');
        await post(base, {
          metadata: { name: 'web-rs' },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: 'web-rs' } },
            template: {
              metadata: { labels: { app: 'web-rs' } },
              spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
            },
          },
        });
        await patchStatus(`${base}/web-rs`, { replicas: 2, readyReplicas: 1 });
        return 'web-rs';
      },
      'apps/v1/daemonsets': async () => {
        const base = inNs('daemonsets', 'apps/v1');
        await post(base, {
          metadata: { name: 'agent' },
          spec: {
            selector: { matchLabels: { app: 'agent' } },
            template: {
              metadata: { labels: { app: 'agent' } },
              spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'agent', image: 'busybox:1.36' }] },
            },
          },
        });
        await patchStatus(`${base}/agent`, {
          desiredNumberScheduled: 3,
          currentNumberScheduled: 3,
          numberReady: 2,
          updatedNumberScheduled: 3,
          numberAvailable: 2,
        });
        return 'agent';
      },
      'apps/v1/statefulsets': async () => {
        const base = inNs('statefulsets', 'apps/v1');
        await post(base, {
          metadata: { name: 'db' },
          spec: {
            replicas: 3,
            serviceName: 'db',
            selector: { matchLabels: { app: 'db' } },
            template: {
              metadata: { labels: { app: 'db' } },
              spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
            },
          },
        });
        await patchStatus(`${base}/db`, { replicas: 3, readyReplicas: 2, availableReplicas: 2 });
        return 'db';
      },
      'apps/v1/controllerrevisions': async () => {
        await post(inNs('controllerrevisions', 'apps/v1'), {
          metadata: {
            name: 'db-7d4b9c',
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'StatefulSet',
                name: 'db',
                uid: '6f1c0a9e-0000-4000-8000-000000000001',
                controller: true,
              },
            ],
          },
          data: { spec: { template: { spec: {} } } },
          revision: 1,
        });
        return 'db-7d4b9c';
      },
      'v1/replicationcontrollers': async () => {
        const base = inNs('replicationcontrollers');
        await post(base, {
          metadata: { name: 'legacy' },
          spec: {
            replicas: 2,
            template: {
              metadata: { labels: { app: 'legacy' } },
              spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
            },
          },
        });
        await patchStatus(`${base}/legacy`, { replicas: 2, readyReplicas: 2 });
        return 'legacy';
      },
      'v1/podtemplates': async () => {
        await post(inNs('podtemplates'), {
          metadata: { name: 'tpl' },
          template: {
            metadata: { labels: { app: 'tpl' } },
            spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
          },
        });
        return 'tpl';
      },
      'apiextensions.k8s.io/v1/customresourcedefinitions': async () => {
        await post('/apis/apiextensions.orch.io/v1/customresourcedefinitions', {
          metadata: { name: crdName },
          spec: {
            group: `${tns}.example.orch.io`,
            scope: 'Namespaced',
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
              },
            ],
          },
        });
        return crdName;
      },
      'certificates.k8s.io/v1/certificatesigningrequests': async () => {
        const { pem } = await csrPem(`CN=${tns}-csr`);
        await post('/apis/certificates.orch.io/v1/certificatesigningrequests', {
          metadata: { name: `${tns}-csr` },
          spec: {
            request: Buffer.from(pem).toString('base64'),
            signerName: 'orch.io/kube-apiserver-client',
            expirationSeconds: 86400,
            usages: ['client auth'],
          },
        });
        return `${tns}-csr`;
      },
      'rbac.authorization.k8s.io/v1/roles': async () => {
        await post(inNs('roles', 'rbac.authorization.orch.io/v1'), {
          metadata: { name: 'reader' },
          rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
        });
        return 'reader';
      },
      'rbac.authorization.k8s.io/v1/clusterroles': async () => {
        await post('/apis/rbac.authorization.orch.io/v1/clusterroles', {
          metadata: { name: `${tns}-reader` },
          rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
        });
        return `${tns}-reader`;
      },
      'rbac.authorization.k8s.io/v1/rolebindings': async () => {
        await post(inNs('rolebindings', 'rbac.authorization.orch.io/v1'), {
          metadata: { name: 'readers' },
          roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'reader' },
          subjects: [
            { kind: 'User', name: 'alice' },
            { kind: 'Group', name: 'devs' },
            { kind: 'ServiceAccount', name: 'robot', namespace: tns },
          ],
        });
        return 'readers';
      },
      'rbac.authorization.k8s.io/v1/clusterrolebindings': async () => {
        await post('/apis/rbac.authorization.orch.io/v1/clusterrolebindings', {
          metadata: { name: `${tns}-readers` },
          roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: `${tns}-reader` },
          subjects: [
            { kind: 'User', name: 'alice' },
            { kind: 'User', name: 'bob' },
          ],
        });
        return `${tns}-readers`;
      },
      'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': async () => {
        await post('/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations', {
          metadata: { name: `${tns}-checks` },
          webhooks: ['a', 'b'].map((n) => ({
            name: `${n}.checks.example.orch.io`,
            clientConfig: { url: 'https://hooks.example.com/check' },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          })),
        });
        return `${tns}-checks`;
      },
      'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations': async () => {
        await post('/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations', {
          metadata: { name: `${tns}-defaults` },
          webhooks: [
            {
              name: 'defaults.example.orch.io',
              clientConfig: { service: { namespace: tns, name: 'hooks' } },
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
            },
          ],
        });
        return `${tns}-defaults`;
      },
      'v1/limitranges': async () => {
        await post(inNs('limitranges'), {
          metadata: { name: 'limits' },
          spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] },
        });
        return 'limits';
      },
      'v1/resourcequotas': async () => {
        await post(inNs('resourcequotas'), {
          metadata: { name: 'quota' },
          spec: { hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi' } },
        });
        return 'quota';
      },
      'v1/persistentvolumes': async () => {
        await post('/api/v1/persistentvolumes', {
          metadata: { name: `${tns}-pv` },
          spec: {
            capacity: { storage: '5Gi' },
            accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
            storageClassName: 'fast',
            hostPath: { path: '/data' },
          },
        });
        return `${tns}-pv`;
      },
      'v1/persistentvolumeclaims': async () => {
        await post(inNs('persistentvolumeclaims'), {
          metadata: { name: 'data' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: 'fast',
            resources: { requests: { storage: '1Gi' } },
          },
        });
        return 'data';
      },
      'scheduling.k8s.io/v1/priorityclasses': async () => {
        await post('/apis/scheduling.orch.io/v1/priorityclasses', {
          metadata: { name: `${tns}-high` },
          value: 1000,
        });
        return `${tns}-high`;
      },
      'node.k8s.io/v1/runtimeclasses': async () => {
        await post('/apis/node.orch.io/v1/runtimeclasses', {
          metadata: { name: `${tns}-kata` },
          handler: 'kata',
        });
        return `${tns}-kata`;
      },
      'networking.k8s.io/v1/ingressclasses': async () => {
        await post('/apis/networking.orch.io/v1/ingressclasses', {
          metadata: { name: `${tns}-nginx` },
          spec: {
            controller: 'example.com/ingress',
            parameters: { apiGroup: 'example.com', kind: 'Config', name: 'main' },
          },
        });
        return `${tns}-nginx`;
      },
      'networking.k8s.io/v1/ingresses': async () => {
        await post(inNs('ingresses', 'networking.orch.io/v1'), {
          metadata: { name: 'web' },
          spec: {
            ingressClassName: `${tns}-nginx`,
            tls: [{ hosts: ['a.example.com'] }],
            rules: ['a.example.com', 'b.example.com'].map((host) => ({
              host,
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'web', port: { number: 80 } } },
                  },
                ],
              },
            })),
          },
        });
        return 'web';
      },
      'storage.k8s.io/v1/storageclasses': async () => {
        await post('/apis/storage.orch.io/v1/storageclasses', {
          metadata: { name: `${tns}-fast` },
          provisioner: 'example.com/disk',
          allowVolumeExpansion: true,
        });
        return `${tns}-fast`;
      },
      'storage.k8s.io/v1/csidrivers': async () => {
        await post('/apis/storage.orch.io/v1/csidrivers', {
          metadata: { name: `${tns}.csi.example.com` },
          spec: { tokenRequests: [{ audience: 'vault' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] },
        });
        return `${tns}.csi.example.com`;
      },
      'storage.k8s.io/v1/csinodes': async () => {
        await post('/apis/storage.orch.io/v1/csinodes', {
          metadata: { name: nodeName },
          spec: {
            drivers: [
              { name: 'a.csi.example.com', nodeID: 'n1' },
              { name: 'b.csi.example.com', nodeID: 'n1' },
            ],
          },
        });
        return nodeName;
      },
      'storage.k8s.io/v1/csistoragecapacities': async () => {
        await post(inNs('csistoragecapacities', 'storage.orch.io/v1'), {
          metadata: { name: 'fast-zone-a' },
          storageClassName: 'fast',
          capacity: '10Gi',
        });
        return 'fast-zone-a';
      },
      'storage.k8s.io/v1/volumeattachments': async () => {
        const path = '/apis/storage.orch.io/v1/volumeattachments';
        await post(path, {
          metadata: { name: `${tns}-va` },
          spec: { attacher: 'a.csi.example.com', nodeName, source: { persistentVolumeName: 'pv-1' } },
        });
        await patchStatus(`${path}/${tns}-va`, { attached: true });
        return `${tns}-va`;
      },
      'v1/endpoints': async () => {
        await post(inNs('endpoints'), {
          metadata: { name: 'web' },
          subsets: [
            {
              addresses: [
                { ip: '10.244.1.7' },
                { ip: '10.244.1.8' },
                { ip: '10.244.1.9' },
                { ip: '10.244.2.1' },
              ],
              ports: [{ port: 8080 }],
            },
          ],
        });
        return 'web';
      },
      'discovery.k8s.io/v1/endpointslices': async () => {
        await post(inNs('endpointslices', 'discovery.orch.io/v1'), {
          metadata: { name: 'web-abcde', labels: { 'orch.io/service-name': 'web' } },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['10.244.1.7'] }, { addresses: ['10.244.1.8'] }],
          ports: [{ name: 'http', port: 8080 }],
        });
        return 'web-abcde';
      },
      'batch/v1/jobs': async () => {
        const base = inNs('jobs', 'batch/v1');
        await post(base, {
          metadata: { name: 'backup' },
          spec: {
            completions: 3,
            template: {
              spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36' }] },
            },
          },
        });
        await patchStatus(`${base}/backup`, { succeeded: 1 });
        return 'backup';
      },
      'batch/v1/cronjobs': async () => {
        await post(inNs('cronjobs', 'batch/v1'), {
          metadata: { name: 'nightly' },
          spec: {
            schedule: '*/5 * * * *',
            jobTemplate: {
              spec: {
                template: {
                  spec: { restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'busybox:1.36' }] },
                },
              },
            },
          },
        });
        return 'nightly';
      },
      'autoscaling/v2/horizontalpodautoscalers': async () => {
        await post(inNs('horizontalpodautoscalers', 'autoscaling/v2'), {
          metadata: { name: 'web' },
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
            maxReplicas: 5,
            metrics: [
              {
                type: 'Resource',
                resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
              },
            ],
          },
        });
        return 'web';
      },
      'autoscaling/v1/horizontalpodautoscalers': async () => {
        await post(inNs('horizontalpodautoscalers', 'autoscaling/v1'), {
          metadata: { name: 'web-v1' },
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
            maxReplicas: 4,
            targetCPUUtilizationPercentage: 70,
          },
        });
        return 'web-v1';
      },
      'policy/v1/poddisruptionbudgets': async () => {
        await post(inNs('poddisruptionbudgets', 'policy/v1'), {
          metadata: { name: 'web' },
          spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
        });
        return 'web';
      },
      'networking.k8s.io/v1/networkpolicies': async () => {
        await post(inNs('networkpolicies', 'networking.orch.io/v1'), {
          metadata: { name: 'web' },
          spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 80 }] }] },
        });
        return 'web';
      },
      // objects the server keeps: the mandatory catch-all configuration, a local APIService
      'flowcontrol.apiserver.k8s.io/v1beta3/flowschemas': async () => 'catch-all',
      'flowcontrol.apiserver.k8s.io/v1beta2/flowschemas': async () => 'catch-all',
      'flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations': async () => 'catch-all',
      'flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations': async () => 'catch-all',
      'apiregistration.k8s.io/v1/apiservices': async () => 'v1.apps',
      'v1/componentstatuses': async () => 'etcd-0',
    };

    /** The cells kubectl prints for some kinds (the rest: the row is there, with every column). */
    const ROWS: Record<string, (wide: boolean) => Record<string, string | RegExp>> = {
      'v1/namespaces': () => ({ STATUS: 'Active' }),
      'v1/configmaps': () => ({ DATA: '3' }),
      'v1/secrets': () => ({ TYPE: 'Opaque', DATA: '2' }),
      'v1/pods': (wide) => ({
        READY: '1/2',
        STATUS: 'CrashLoopBackOff',
        RESTARTS: '5 (30m ago)',
        ...(wide
          ? { IP: '10.244.1.7', NODE: nodeName, 'NOMINATED NODE': '<none>', 'READINESS GATES': '<none>' }
          : {}),
      }),
      'v1/services': (wide) => ({
        TYPE: 'ClusterIP',
        'CLUSTER-IP': /^10\.\d+\.\d+\.\d+$/,
        'EXTERNAL-IP': '<none>',
        'PORT(S)': '80/TCP,53/UDP',
        ...(wide ? { SELECTOR: 'app=web' } : {}),
      }),
      'v1/nodes': (wide) => ({
        STATUS: 'Ready',
        ROLES: 'worker',
        VERSION: 'v1.28.0',
        ...(wide ? { 'INTERNAL-IP': '192.0.2.10', 'EXTERNAL-IP': '<none>', 'OS-IMAGE': 'Debian 12' } : {}),
      }),
      'v1/serviceaccounts': () => ({ SECRETS: '1' }),
      'v1/events': () => ({
        'LAST SEEN': '10m',
        TYPE: 'Normal',
        REASON: 'Pulled',
        OBJECT: 'pod/web-0',
        MESSAGE: 'Container image pulled',
      }),
      'coordination.k8s.io/v1/leases': () => ({ HOLDER: 'web-0' }),
      'apps/v1/deployments': (wide) => ({
        READY: '2/3',
        'UP-TO-DATE': '3',
        AVAILABLE: '1',
        ...(wide
          ? { CONTAINERS: 'app,sidecar', IMAGES: 'nginx:1.25,busybox:1.36', SELECTOR: 'app=web' }
          : {}),
      }),
      'apps/v1/replicasets': (wide) => ({
        DESIRED: '2',
        CURRENT: '2',
        READY: '1',
        ...(wide ? { CONTAINERS: 'app', IMAGES: 'nginx:1.25', SELECTOR: 'app=web-rs' } : {}),
      }),
      'apps/v1/daemonsets': (wide) => ({
        DESIRED: '3',
        CURRENT: '3',
        READY: '2',
        'UP-TO-DATE': '3',
        AVAILABLE: '2',
        'NODE SELECTOR': 'disk=ssd',
        ...(wide ? { CONTAINERS: 'agent', IMAGES: 'busybox:1.36', SELECTOR: 'app=agent' } : {}),
      }),
      'apps/v1/statefulsets': (wide) => ({
        READY: '2/3',
        ...(wide ? { CONTAINERS: 'db', IMAGES: 'postgres:16' } : {}),
      }),
      'apps/v1/controllerrevisions': () => ({ CONTROLLER: 'statefulset.apps/db', REVISION: '1' }),
      'v1/replicationcontrollers': (wide) => ({
        DESIRED: '2',
        CURRENT: '2',
        READY: '2',
        ...(wide ? { CONTAINERS: 'app', IMAGES: 'nginx:1.25', SELECTOR: 'app=legacy' } : {}),
      }),
      'v1/podtemplates': () => ({ CONTAINERS: 'app', IMAGES: 'nginx:1.25', 'POD LABELS': 'app=tpl' }),
      'apiextensions.k8s.io/v1/customresourcedefinitions': () => ({
        'CREATED AT': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
      }),
      'rbac.authorization.k8s.io/v1/rolebindings': (wide) => ({
        ROLE: 'Role/reader',
        ...(wide ? { USERS: 'alice', GROUPS: 'devs', SERVICEACCOUNTS: `${tns}/robot` } : {}),
      }),
      'rbac.authorization.k8s.io/v1/clusterrolebindings': (wide) => ({
        ROLE: `ClusterRole/${tns}-reader`,
        ...(wide ? { USERS: 'alice, bob', GROUPS: '', SERVICEACCOUNTS: '' } : {}),
      }),
      'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': () => ({ WEBHOOKS: '2' }),
      'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations': () => ({ WEBHOOKS: '1' }),
      // the namespace's pod web-0 counts; it asks for no cpu and sets no memory limit
      'v1/resourcequotas': () => ({
        REQUEST: 'pods: 1/10, requests.cpu: 0/4',
        LIMIT: 'limits.memory: 0/8Gi',
      }),
      'v1/persistentvolumes': (wide) => ({
        CAPACITY: '5Gi',
        'ACCESS MODES': 'RWO,ROX',
        'RECLAIM POLICY': 'Retain',
        STATUS: 'Pending',
        STORAGECLASS: 'fast',
        ...(wide ? { VOLUMEMODE: 'Filesystem' } : {}),
      }),
      'v1/persistentvolumeclaims': () => ({ STATUS: 'Pending', STORAGECLASS: 'fast' }),
      'scheduling.k8s.io/v1/priorityclasses': () => ({ VALUE: '1000', 'GLOBAL-DEFAULT': 'false' }),
      'node.k8s.io/v1/runtimeclasses': () => ({ HANDLER: 'kata' }),
      'networking.k8s.io/v1/ingressclasses': () => ({
        CONTROLLER: 'example.com/ingress',
        PARAMETERS: 'Config.example.com/main',
      }),
      'networking.k8s.io/v1/ingresses': () => ({ HOSTS: 'a.example.com,b.example.com', PORTS: '80, 443' }),
      'storage.k8s.io/v1/storageclasses': () => ({
        PROVISIONER: 'example.com/disk',
        RECLAIMPOLICY: 'Delete',
        VOLUMEBINDINGMODE: 'Immediate',
        ALLOWVOLUMEEXPANSION: 'true',
      }),
      'storage.k8s.io/v1/csidrivers': () => ({
        ATTACHREQUIRED: 'true',
        PODINFOONMOUNT: 'false',
        STORAGECAPACITY: 'false',
        TOKENREQUESTS: 'vault',
        REQUIRESREPUBLISH: 'false',
        MODES: 'Persistent,Ephemeral',
      }),
      'storage.k8s.io/v1/csinodes': () => ({ DRIVERS: '2' }),
      'storage.k8s.io/v1/volumeattachments': () => ({
        ATTACHER: 'a.csi.example.com',
        PV: 'pv-1',
        NODE: nodeName,
        ATTACHED: 'true',
      }),
      'v1/endpoints': () => ({ ENDPOINTS: '10.244.1.7:8080,10.244.1.8:8080,10.244.1.9:8080 + 1 more...' }),
      'discovery.k8s.io/v1/endpointslices': () => ({
        ADDRESSTYPE: 'IPv4',
        PORTS: '8080',
        ENDPOINTS: '10.244.1.7,10.244.1.8',
      }),
      'batch/v1/jobs': (wide) => ({
        COMPLETIONS: '1/3',
        ...(wide
          ? {
              CONTAINERS: 'app',
              IMAGES: 'busybox:1.36',
              SELECTOR: /^batch\.orch\.io\/controller-uid=[0-9a-f-]+$/,
            }
          : {}),
      }),
      'batch/v1/cronjobs': (wide) => ({
        SCHEDULE: '*/5 * * * *',
        SUSPEND: 'False',
        ACTIVE: '0',
        'LAST SCHEDULE': '<none>',
        ...(wide ? { CONTAINERS: 'app', IMAGES: 'busybox:1.36', SELECTOR: '<none>' } : {}),
      }),
      'autoscaling/v2/horizontalpodautoscalers': () => ({
        REFERENCE: 'Deployment/web',
        TARGETS: '<unknown>/60%',
        MINPODS: '1',
        MAXPODS: '5',
        REPLICAS: '0',
      }),
      'autoscaling/v1/horizontalpodautoscalers': () => ({
        REFERENCE: 'Deployment/web',
        TARGETS: '<unknown>/70%',
        MAXPODS: '4',
      }),
      'policy/v1/poddisruptionbudgets': () => ({
        'MIN AVAILABLE': '1',
        'MAX UNAVAILABLE': 'N/A',
        'ALLOWED DISRUPTIONS': '0',
      }),
      'networking.k8s.io/v1/networkpolicies': () => ({ 'POD-SELECTOR': 'app=web' }),
      'flowcontrol.apiserver.k8s.io/v1beta3/flowschemas': () => FLOW_SCHEMA_ROW,
      'flowcontrol.apiserver.k8s.io/v1beta2/flowschemas': () => FLOW_SCHEMA_ROW,
      'flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations': () => PRIORITY_LEVEL_ROW,
      'flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations': () => PRIORITY_LEVEL_ROW,
      'apiregistration.k8s.io/v1/apiservices': () => ({ SERVICE: 'Local', AVAILABLE: 'True' }),
      'v1/componentstatuses': () => ({ STATUS: 'Healthy' }),
    };

    /** What kubectl prints on stderr for a deprecated version: 1.28's warning (deprecation-warnings.json). */
    const WARNINGS = readFact('deprecation-warnings.json') as Record<string, string>;
    const stderrOf = (key: string) => {
      const w = WARNINGS[key];
      return w ? `Warning: ${JSON.parse(w.replace(/^299 - /, '')).replaceAll('k8s.io', 'orch.io')}\n` : '';
    };

    /** Events print no NAME but with -o wide: their rows are told apart by REASON. */
    const ROW_ID: Record<string, [string, string]> = {
      'v1/events': ['REASON', 'Pulled'],
      'events.k8s.io/v1/events': ['REASON', 'Scheduled'],
    };
    const names: Record<string, string> = {};
    beforeAll(async () => {
      await post('/api/v1/namespaces', { metadata: { name: tns } });
      for (const k of KINDS) {
        const make = SAMPLES[k.key];
        if (!make)
          throw new Error(`no sample object for ${k.key}: add one to SAMPLES so kubectl has a row to print`);
        names[k.key] = await make();
      }
    });

    /** kubectl's text table: the header's column starts cut every line (cells may be empty). */
    const parse = (text: string) => {
      const [head, ...lines] = text.replace(/\n+$/, '').split('\n');
      const starts = [...head!.matchAll(/(?:^|\s{2,})(\S+(?: \S+)*)/g)].map(
        (m) => m.index! + m[0].length - m[1]!.length,
      );
      const headers = starts.map((st, i) => head!.slice(st, starts[i + 1]).trim());
      const rows = lines.map((l) =>
        Object.fromEntries(
          headers.map((h, i) => [
            h,
            l.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim(),
          ]),
        ),
      );
      return { headers, rows };
    };

    for (const wide of [false, true])
      it(`kubectl get <kind>${wide ? ' -o wide' : ''}: the fixture's headers in order, and the row's cells`, async () => {
        for (const k of KINDS) {
          const args = [
            'get',
            k.resource,
            ...(k.namespaced ? ['-n', tns] : []),
            ...(wide ? ['-o', 'wide'] : []),
          ];
          const r = await kubectl(...args);
          expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
          expect(r.stderr, `kubectl ${args.join(' ')}`).toBe(stderrOf(k.key));
          const t = parse(r.stdout);
          expect(t.headers, `kubectl ${args.join(' ')} headers`).toEqual(kubectlHeaders(k.cols, wide));
          const [idCol, id] = t.headers.includes('NAME') ? ['NAME', names[k.key]] : ROW_ID[k.key]!;
          const row = t.rows.find((x) => x[idCol] === id);
          expect(row, `kubectl ${args.join(' ')}: a row with ${idCol} ${id}\n${r.stdout}`).toBeDefined();
          const want = ROWS[k.key]?.(wide) ?? {};
          for (const [col, v] of Object.entries(want))
            if (typeof v === 'string') expect(row![col], `${k.key} ${col}`).toBe(v);
            else expect(row![col], `${k.key} ${col}`).toMatch(v);
        }
      });

    it('get all: the kinds of the `all` category, the workloads among them', async () => {
      const out = await ok('get', 'all', '-n', tns);
      const names = out.split('\n').map((l) => l.split(/\s+/)[0]);
      for (const n of [
        'deployment.apps/web',
        'replicaset.apps/web-rs',
        'daemonset.apps/agent',
        'statefulset.apps/db',
        'replicationcontroller/legacy',
      ])
        expect(names, out).toContain(n);
      expect(out).not.toContain('controllerrevision');
      expect(out).not.toContain('podtemplate');
    });

    it('scale: statefulsets, replica sets and replication controllers through their scale subresource', async () => {
      for (const [resource, name, path] of [
        ['statefulset', 'db', `/apis/apps/v1/namespaces/${tns}/statefulsets/db`],
        ['rs', 'web-rs', `/apis/apps/v1/namespaces/${tns}/replicasets/web-rs`],
        ['rc', 'legacy', `/api/v1/namespaces/${tns}/replicationcontrollers/legacy`],
      ] as const) {
        const out = await ok('scale', resource, name, '-n', tns, '--replicas=4');
        expect(out).toContain(`/${name} scaled`);
        expect((await ts.req('GET', path)).json.spec.replicas).toBe(4);
      }
    });
  });

  it('get -o yaml and -o json', async () => {
    const y = parseYaml(await ok('get', 'configmap', 'cm1', '-n', ns, '-o', 'yaml'));
    expect(y).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm1', namespace: ns },
      data: { a: '1' },
    });
    expect(y.metadata.resourceVersion).toMatch(/^\d+$/);
    const j = JSON.parse(await ok('get', 'configmap', 'cm1', '-n', ns, '-o', 'json'));
    expect(j).toEqual(y);
    const n = JSON.parse(await ok('get', 'namespace', ns, '-o', 'json'));
    expect(n).toMatchObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  it('list: every page of a chunked list', async () => {
    for (const name of ['cm2', 'cm3', 'cm4']) {
      const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { n: name },
      });
      expect(r.status).toBe(201);
    }
    const r = await kubectl('get', 'configmaps', '-n', ns, '-o', 'json', '--chunk-size=2', '-v=6');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('List');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['cm1', 'cm2', 'cm3', 'cm4']);
    // it took more than one request: the later ones carry the continue token
    expect(r.stderr).toMatch(/limit=2/);
    expect(r.stderr).toMatch(/continue=/);
    const table = await ok('get', 'configmaps', '-n', ns, '--chunk-size=1');
    expect(
      table
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['cm1', 'cm2', 'cm3', 'cm4']);
  });

  it('get --watch: an object created meanwhile shows up', async () => {
    const child = spawn(bin, [...common(), 'get', 'configmaps', '-n', ns, '--watch'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    try {
      // the initial list is printed before the watch starts from its resourceVersion
      await until(
        () => /^cm4\s/m.test(out),
        15_000,
        () => `initial list; stdout: ${out} stderr: ${err}`,
      );
      const p = file(
        'watched.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n  namespace: ${ns}\ndata:\n  w: "1"\n`,
      );
      expect(await ok('create', '-f', p)).toContain('configmap/watched created');
      await until(
        () => /^watched\s/m.test(out),
        15_000,
        () => `watch event; stdout: ${out} stderr: ${err}`,
      );
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(err).toBe('');
  });

  it('patch: merge, JSON and strategic merge (the default)', async () => {
    expect(
      await ok('patch', 'configmap', 'cm1', '-n', ns, '--type', 'merge', '-p', '{"data":{"b":"2"}}'),
    ).toContain('configmap/cm1 patched');
    expect(
      await ok(
        'patch',
        'configmap',
        'cm1',
        '-n',
        ns,
        '--type',
        'json',
        '-p',
        '[{"op":"add","path":"/data/c","value":"3"}]',
      ),
    ).toContain('configmap/cm1 patched');
    const smp = await kubectl(
      'patch',
      'configmap',
      'cm1',
      '-n',
      ns,
      '-p',
      '{"data":{"d":"4","a":null}}',
      '-v=8',
    );
    expect(smp.code).toBe(0);
    expect(smp.stderr).toContain('application/strategic-merge-patch+json');
    expect((await cm('cm1')).json.data).toEqual({ b: '2', c: '3', d: '4' });
    const failed = await kubectl(
      'patch',
      'configmap',
      'cm1',
      '-n',
      ns,
      '--type',
      'json',
      '-p',
      '[{"op":"test","path":"/data/b","value":"x"}]',
    );
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/Invalid|test/);
    expect((await cm('cm1')).json.data).toEqual({ b: '2', c: '3', d: '4' });
  });

  it('apply: client-side apply with the last-applied annotation and a three-way merge', async () => {
    const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
    const manifest = (data: Record<string, string>) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: ${ns}\ndata:\n${Object.entries(
        data,
      )
        .map(([k, v]) => `  ${k}: "${v}"\n`)
        .join('')}`;
    const p = join(dir, 'applied.yaml');
    writeFileSync(p, manifest({ a: '1', b: '2' }));
    expect(await ok('apply', '-f', p)).toContain('configmap/applied created');
    let r = await cm('applied');
    expect(r.json.data).toEqual({ a: '1', b: '2' });
    expect(JSON.parse(r.json.metadata.annotations[LAST])).toMatchObject({
      kind: 'ConfigMap',
      data: { a: '1', b: '2' },
    });

    // a change made by someone else survives the next apply
    expect(
      (
        await ts.req(
          'PATCH',
          `/api/v1/namespaces/${ns}/configmaps/applied`,
          { data: { extra: 'keep' } },
          { 'content-type': 'application/merge-patch+json' },
        )
      ).status,
    ).toBe(200);

    writeFileSync(p, manifest({ a: '10', c: '3' }));
    const second = await kubectl('apply', '-f', p, '-v=8');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('configmap/applied configured');
    expect(second.stderr).toContain('application/strategic-merge-patch+json');
    r = await cm('applied');
    expect(r.json.data).toEqual({ a: '10', c: '3', extra: 'keep' });
    expect(JSON.parse(r.json.metadata.annotations[LAST]).data).toEqual({ a: '10', c: '3' });

    expect(await ok('apply', '-f', p)).toContain('configmap/applied unchanged');
  });

  it('field validation: Strict by default, and warnings arrive as Warning headers', async () => {
    const bad = file(
      'bad.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: ${ns}\nbogus: 1\ndata:\n  a: "1"\n`,
    );
    if (minor >= 25) {
      // kubectl >= 1.25 sends fieldValidation=Strict unless told otherwise
      const strict = await kubectl('create', '-f', bad);
      expect(strict.code).not.toBe(0);
      expect(strict.stderr).toContain('strict decoding error: unknown field "bogus"');
      expect((await cm('bad')).status).toBe(404);
    }
    // older kubectl sends no fieldValidation: the server's default is Warn
    const warn = await kubectl('create', '-f', bad, minor >= 25 ? '--validate=warn' : '--validate=false');
    expect(warn.code).toBe(0);
    expect(warn.stdout).toContain('configmap/bad created');
    expect(warn.stderr).toContain('Warning: unknown field "bogus"');
  });

  it('delete: a ConfigMap, then the Namespace', async () => {
    expect(await ok('delete', 'configmap', 'cm2', '-n', ns)).toContain('configmap "cm2" deleted');
    expect((await cm('cm2')).status).toBe(404);
    const gone = await kubectl('delete', 'configmap', 'cm2', '-n', ns);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('configmaps "cm2" not found');
    expect(await ok('delete', 'namespace', ns)).toContain(`namespace "${ns}" deleted`);
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}`);
    // kubectl waited for the namespace to go (or it is finishing its finalization)
    expect(r.status === 404 || r.json?.status?.phase === 'Terminating').toBe(true);
  });

  it('TLS: a kubeconfig without the CA is refused', async () => {
    const other = join(dir, 'untrusted');
    writeKubeconfig(other, { server: ts.url, token: ts.token });
    const r = await new Promise<Run>((resolve) =>
      execFile(
        bin,
        ['--kubeconfig', other, '--cache-dir', join(dir, 'cache2'), 'get', 'namespaces'],
        { env: env(), timeout: 25_000 },
        (e, so, se) => resolve({ code: e ? 1 : 0, stdout: String(so), stderr: String(se) }),
      ),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/x509|certificate/);
  });
});
