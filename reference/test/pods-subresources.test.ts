// The core subresources a Kubernetes 1.28 server lists that reach past storage: pod binding,
// ephemeral containers, and the connect ones (log, exec, attach, portforward, the pod, service
// and node proxies). There is no node agent here: a request that needs one is answered as a
// 1.28 server answers when it cannot reach one, and the proxies reach real HTTP servers.
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issue, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { readFact } from './k8s-facts.ts';

let ts: TestServer;
let backend: Server;
let backendPort = 0;
let ns = '';

/** An address of this machine that is not loopback (what the pod and node proxies accept). */
const EXTERNAL_IP = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

beforeAll(async () => {
  ts = await startServer();
  backend = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-backend': 'yes' });
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
  });
  await new Promise<void>((r) => backend.listen(0, '0.0.0.0', r));
  backendPort = (backend.address() as AddressInfo).port;
  ns = uniqueName('sub');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await new Promise((r) => backend?.close(r));
  await ts?.close();
});

const podsPath = () => `/api/v1/namespaces/${ns}/pods`;

async function createPod(
  name: string,
  containers: Record<string, unknown>[] = [{ name: 'app', image: 'nginx' }],
  extra: Record<string, unknown> = {},
) {
  const r = await ts.req('POST', podsPath(), { metadata: { name }, spec: { containers, ...extra } });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function setPodIP(name: string, ip: string) {
  const cur = (await ts.req('GET', `${podsPath()}/${name}`)).json;
  cur.status = { ...cur.status, podIP: ip, podIPs: [{ ip }] };
  const r = await ts.req('PUT', `${podsPath()}/${name}/status`, cur);
  expect(r.status, r.text).toBe(200);
}

async function bind(pod: string, node: string) {
  const r = await ts.req('POST', `${podsPath()}/${pod}/binding`, {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: pod },
    target: { kind: 'Node', name: node },
  });
  expect(r.status, r.text).toBe(201);
}

async function createNode(name: string, status: Record<string, unknown>) {
  const r = await ts.req('POST', '/api/v1/nodes', { metadata: { name } });
  expect(r.status, r.text).toBe(201);
  const s = await ts.req(
    'PATCH',
    `/api/v1/nodes/${name}/status`,
    { status },
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  expect(s.status, s.text).toBe(200);
}

describe('discovery lists the subresources as 1.28 does', () => {
  const NAMES = [
    'bindings',
    'pods/binding',
    'pods/ephemeralcontainers',
    'pods/log',
    'pods/exec',
    'pods/attach',
    'pods/portforward',
    'pods/proxy',
    'nodes/proxy',
    'services/proxy',
  ];
  it.each(NAMES)('%s', async (name) => {
    const want = ((readFact('discovery.json') as any).resources.v1 as any[]).find((x) => x.name === name);
    const r = await ts.req('GET', '/api/v1');
    const got = r.json.resources.find((x: any) => x.name === name);
    expect(got, name).toBeDefined();
    expect(got.kind).toBe(want.kind);
    expect(got.namespaced).toBe(want.namespaced);
    expect(got.singularName).toBe(want.singularName);
    expect(got.group).toBe(want.group);
    expect(got.version).toBe(want.version);
    expect([...got.verbs].sort()).toEqual([...want.verbs].sort());
  });
});

describe('binding', () => {
  it('through bindings: sets the node once, the PodScheduled condition and the annotations', async () => {
    await createPod('b1');
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/bindings`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'b1', annotations: { 'example.com/by': 'test' } },
      target: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const pod = (await ts.req('GET', `${podsPath()}/b1`)).json;
    expect(pod.spec.nodeName).toBe('n1');
    expect(pod.metadata.annotations['example.com/by']).toBe('test');
    const cond = pod.status.conditions.find((c: any) => c.type === 'PodScheduled');
    expect(cond.status).toBe('True');
    expect(typeof cond.lastTransitionTime).toBe('string');
    // a second binding: 409 naming the node it is on
    const again = await ts.req('POST', `${podsPath()}/b1/binding`, {
      metadata: { name: 'b1' },
      target: { kind: 'Node', name: 'n2' },
    });
    expect(again.status).toBe(409);
    expect(again.json.reason).toBe('Conflict');
    expect(again.json.message).toBe(
      'Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "n1"',
    );
    expect((await ts.req('GET', `${podsPath()}/b1`)).json.spec.nodeName).toBe('n1');
  });

  it('a missing pod: 404', async () => {
    const r = await ts.req('POST', `${podsPath()}/nope/binding`, {
      metadata: { name: 'nope' },
      target: { name: 'n1' },
    });
    expect(r.status).toBe(404);
    expect(r.json.message).toBe('pods "nope" not found');
  });

  it('a target that is not a Node, or has no name: refused, the pod unchanged', async () => {
    await createPod('b2');
    const r = await ts.req('POST', `${podsPath()}/b2/binding`, {
      metadata: { name: 'b2' },
      target: { kind: 'Pod', name: 'x' },
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toContainEqual({
      reason: 'FieldValueNotSupported',
      field: 'target.kind',
      message: 'Unsupported value: "Pod": supported values: "Node", "<empty>"',
    });
    const r2 = await ts.req('POST', `${podsPath()}/b2/binding`, { metadata: { name: 'b2' }, target: {} });
    expect(r2.status).toBe(422);
    expect(r2.json.details.causes.map((c: any) => c.field)).toContain('target.name');
    expect((await ts.req('GET', `${podsPath()}/b2`)).json.spec.nodeName).toBeUndefined();
  });

  it('the name in the URL and in the binding must agree', async () => {
    const r = await ts.req('POST', `${podsPath()}/b2/binding`, {
      metadata: { name: 'other' },
      target: { name: 'n1' },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('name in URL does not match name in Binding object');
  });

  it('a pod held by scheduling gates is not bound', async () => {
    await createPod('b3', undefined, { schedulingGates: [{ name: 'example.com/wait' }] });
    const r = await ts.req('POST', `${podsPath()}/b3/binding`, {
      metadata: { name: 'b3' },
      target: { name: 'n1' },
    });
    expect(r.status).toBe(409);
    expect(r.json.message).toContain('pod b3 has non-empty .spec.schedulingGates');
  });

  it('a dry run binds nothing; a binding with no name: 400', async () => {
    await createPod('b5');
    const r = await ts.req('POST', `${podsPath()}/b5/binding?dryRun=All`, {
      metadata: { name: 'b5' },
      target: { name: 'n1' },
    });
    expect(r.status, r.text).toBe(201);
    expect((await ts.req('GET', `${podsPath()}/b5`)).json.spec.nodeName).toBeUndefined();
    const noName = await ts.req('POST', `/api/v1/namespaces/${ns}/bindings`, { target: { name: 'n1' } });
    expect(noName.status).toBe(400);
    expect(noName.json.message).toBe('Name parameter required.');
  });

  it('a stale uid precondition: 409', async () => {
    await createPod('b4');
    const r = await ts.req('POST', `${podsPath()}/b4/binding`, {
      metadata: { name: 'b4', uid: 'not-the-uid' },
      target: { name: 'n1' },
    });
    expect(r.status).toBe(409);
  });
});

describe('ephemeral containers', () => {
  const debug = { name: 'debug', image: 'busybox', targetContainerName: 'app', stdin: true };

  it('get answers the pod; update adds one; existing ones may be neither changed nor removed', async () => {
    await createPod('e1');
    const path = `${podsPath()}/e1/ephemeralcontainers`;
    const got = await ts.req('GET', path);
    expect(got.status).toBe(200);
    expect(got.json.kind).toBe('Pod');
    const pod = got.json;
    pod.spec.ephemeralContainers = [debug];
    pod.metadata.labels = { changed: 'no' };
    const put = await ts.req('PUT', path, pod);
    expect(put.status, put.text).toBe(200);
    expect(put.json.spec.ephemeralContainers[0]).toMatchObject({
      name: 'debug',
      image: 'busybox',
      terminationMessagePath: '/dev/termination-log',
    });
    // only the ephemeral containers change through the subresource
    expect(put.json.metadata.labels).toBeUndefined();
    const changed = structuredClone(put.json);
    changed.spec.ephemeralContainers[0].image = 'alpine';
    const c = await ts.req('PUT', path, changed);
    expect(c.status).toBe(422);
    expect(c.json.details.causes[0].field).toBe('spec.ephemeralContainers[debug]');
    expect(c.json.details.causes[0].message).toContain(
      'existing ephemeral containers "debug" may not be changed',
    );
    const removed = structuredClone(put.json);
    removed.spec.ephemeralContainers = [];
    const d = await ts.req('PUT', path, removed);
    expect(d.status).toBe(422);
    expect(d.json.details.causes[0].message).toContain(
      'existing ephemeral containers "debug" may not be removed',
    );
  });

  it('patch adds one; the main resource still refuses them', async () => {
    await createPod('e2');
    const r = await ts.req(
      'PATCH',
      `${podsPath()}/e2/ephemeralcontainers`,
      { spec: { ephemeralContainers: [debug] } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.ephemeralContainers.map((c: any) => c.name)).toEqual(['debug']);
    const main = await ts.req(
      'PATCH',
      `${podsPath()}/e2`,
      { spec: { ephemeralContainers: [debug, { name: 'd2', image: 'x' }] } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(main.status).toBe(422);
  });

  it.each([
    [
      'ports',
      { ports: [{ containerPort: 80 }] },
      'spec.ephemeralContainers[0].ports',
      'Forbidden: cannot be set for an Ephemeral Container',
    ],
    [
      'resources',
      { resources: { limits: { cpu: '1' } } },
      'spec.ephemeralContainers[0].resources',
      'Forbidden: cannot be set for an Ephemeral Container',
    ],
    [
      'a probe',
      { readinessProbe: { exec: { command: ['true'] } } },
      'spec.ephemeralContainers[0].readinessProbe',
      'Forbidden: cannot be set for an Ephemeral Container',
    ],
    [
      'lifecycle',
      { lifecycle: { preStop: { exec: { command: ['true'] } } } },
      'spec.ephemeralContainers[0].lifecycle',
      'Forbidden: cannot be set for an Ephemeral Container',
    ],
    [
      'a name of another container',
      { name: 'app' },
      'spec.ephemeralContainers[0].name',
      'Duplicate value: "app"',
    ],
    [
      'a target that is no container',
      { targetContainerName: 'nope' },
      'spec.ephemeralContainers[0].targetContainerName',
      'Not found: "nope"',
    ],
  ])('%s: 422', async (_what, fields, field, message) => {
    const name = uniqueName('e');
    await createPod(name);
    const r = await ts.req(
      'PATCH',
      `${podsPath()}/${name}/ephemeralcontainers`,
      { spec: { ephemeralContainers: [{ ...debug, ...fields }] } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(r.status, r.text).toBe(422);
    expect(r.json.details.causes).toContainEqual(expect.objectContaining({ field, message }));
  });
});

describe('log, exec, attach, portforward without a node agent', () => {
  beforeAll(async () => {
    await createPod('c1');
    await createPod(
      'c2',
      [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'x' },
      ],
      { initContainers: [{ name: 'i', image: 'x' }] },
    );
  });

  it('exec, attach, portforward of a pod on no node: 400', async () => {
    for (const [method, path] of [
      ['POST', 'exec?command=ls&stdout=true'],
      ['GET', 'exec?command=ls&stdout=true'],
      ['POST', 'attach?stdout=true'],
      ['POST', 'portforward?ports=80'],
    ] as const) {
      const r = await ts.req(method, `${podsPath()}/c1/${path}`);
      expect(r.status, path).toBe(400);
      expect(r.json).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        message: 'pod c1 does not have a host assigned',
      });
    }
  });

  it('a log of a pod on no node is empty', async () => {
    const r = await ts.req('GET', `${podsPath()}/c1/log`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });

  it("the container must be named when there are several, and be the pod's", async () => {
    const e = await ts.req('POST', `${podsPath()}/c2/exec?command=ls`);
    expect(e.status).toBe(400);
    expect(e.json.message).toBe(
      'a container name must be specified for pod c2, choose one of: [a b] or one of the init containers: [i]',
    );
    const l = await ts.req('GET', `${podsPath()}/c2/log`);
    expect(l.status).toBe(400);
    expect(l.json.message).toBe('a container name must be specified for pod c2, choose one of: [i a b]');
    for (const p of ['log?container=z', 'exec?container=z&command=ls', 'attach?container=z']) {
      const r = await ts.req(p.startsWith('log') ? 'GET' : 'POST', `${podsPath()}/c2/${p}`);
      expect(r.status, p).toBe(400);
      expect(r.json.message).toBe('container z is not valid for pod c2');
    }
  });

  it('only a proxy takes a path past the subresource', async () => {
    for (const p of ['log/x', 'exec/x?command=ls', 'status/x', 'binding/x'])
      expect(
        (
          await ts.req(
            p.startsWith('log') || p.startsWith('status') ? 'GET' : 'POST',
            `${podsPath()}/c1/${p}`,
          )
        ).status,
        p,
      ).toBe(404);
  });

  it('a missing pod: 404', async () => {
    for (const p of ['log', 'exec?command=ls', 'attach', 'portforward']) {
      const r = await ts.req(p === 'log' ? 'GET' : 'POST', `${podsPath()}/nope/${p}`);
      expect(r.status, p).toBe(404);
      expect(r.json.message).toBe('pods "nope" not found');
    }
  });

  it('bad log options: 422 naming PodLogOptions, or 400 when they do not parse', async () => {
    const r = await ts.req('GET', `${podsPath()}/c1/log?tailLines=-1`);
    expect(r.status).toBe(422);
    expect(r.json.details.kind).toBe('PodLogOptions');
    expect((await ts.req('GET', `${podsPath()}/c1/log?follow=maybe`)).status).toBe(400);
  });

  it("on a node: exec without a command 400; a node without an address: 1.28's error; an unreachable agent 503", async () => {
    const node = uniqueName('node');
    await createNode(node, { addresses: [] });
    await createPod('c3');
    await bind('c3', node);
    const noCmd = await ts.req('POST', `${podsPath()}/c3/exec?stdout=true`);
    expect(noCmd.status).toBe(400);
    expect(noCmd.json.message).toBe('you must specify at least 1 command');
    const noAddr = await ts.req('POST', `${podsPath()}/c3/exec?command=ls`);
    expect(noAddr.json.message).toBe(
      'Internal error occurred: no preferred addresses found; known addresses: []',
    );
    // a node whose agent port answers nothing
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const node2 = uniqueName('node');
    await createNode(node2, {
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
    });
    await createPod('c4');
    await bind('c4', node2);
    const r = await ts.req('GET', `${podsPath()}/c4/log`);
    expect(r.status).toBe(503);
    expect(r.json.reason).toBe('ServiceUnavailable');
    expect(r.json.message).toContain('connection refused');
  });
});

describe('proxies', () => {
  // Endpoints refuse loopback addresses (as 1.28 does): the backend is reached on another address of this machine
  it.runIf(EXTERNAL_IP)(
    'services/proxy: to an endpoint backed by a pod, path, query and method passed on, credentials not',
    async () => {
      await createPod('web', [{ name: 'app', image: 'x', ports: [{ containerPort: backendPort }] }]);
      await setPodIP('web', EXTERNAL_IP!);
      const svc = await ts.req('POST', `/api/v1/namespaces/${ns}/services`, {
        metadata: { name: 'web' },
        spec: { ports: [{ name: 'http', port: 80, targetPort: backendPort }] },
      });
      expect(svc.status, svc.text).toBe(201);
      const none = await ts.req('GET', `/api/v1/namespaces/${ns}/services/web/proxy/`);
      expect(none.status).toBe(404); // no Endpoints object yet
      const ep = await ts.req('POST', `/api/v1/namespaces/${ns}/endpoints`, {
        metadata: { name: 'web' },
        subsets: [
          {
            addresses: [{ ip: EXTERNAL_IP, targetRef: { kind: 'Pod', name: 'web', namespace: ns } }],
            ports: [{ name: 'http', port: backendPort }],
          },
        ],
      });
      expect(ep.status, ep.text).toBe(201);
      for (const name of ['web:http', 'http:web:http', 'web:80']) {
        const r = await ts.req('POST', `/api/v1/namespaces/${ns}/services/${name}/proxy/a/b/?x=1`, 'hello', {
          'content-type': 'text/plain',
        });
        expect(r.status, `${name}: ${r.text}`).toBe(201);
        expect(r.headers['x-backend']).toBe('yes');
        expect(r.json).toMatchObject({ method: 'POST', url: '/a/b/?x=1', body: 'hello' });
        expect(r.json.headers.authorization).toBeUndefined();
      }
      const put = await ts.req('PUT', `/api/v1/namespaces/${ns}/services/web:http/proxy/x`, 'y', {
        'content-type': 'text/plain',
      });
      expect(put.json.method).toBe('PUT');
      const port = await ts.req('GET', `/api/v1/namespaces/${ns}/services/web:81/proxy/`);
      expect(port.status).toBe(503);
      expect(port.json.message).toBe('no service port 81 found for service "web"');
      const other = await ts.req('GET', `/api/v1/namespaces/${ns}/services/web:other/proxy/`);
      expect(other.status).toBe(503);
      expect(other.json.message).toBe('no endpoints available for service "web:other"');
      expect((await ts.req('GET', `/api/v1/namespaces/${ns}/services/ftp:web:http/proxy/`)).status).toBe(400);
    },
  );

  it('services/proxy: no endpoints: 503', async () => {
    await ts.req('POST', `/api/v1/namespaces/${ns}/services`, {
      metadata: { name: 'empty' },
      spec: { ports: [{ port: 80 }] },
    });
    const ep = await ts.req('POST', `/api/v1/namespaces/${ns}/endpoints`, { metadata: { name: 'empty' } });
    expect(ep.status, ep.text).toBe(201);
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/services/empty/proxy/`);
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({
      reason: 'ServiceUnavailable',
      message: 'no endpoints available for service "empty"',
    });
  });

  it('pods/proxy: a loopback pod IP is not proxied to', async () => {
    await createPod('loop', [{ name: 'app', image: 'x', ports: [{ containerPort: backendPort }] }]);
    await setPodIP('loop', '127.0.0.1');
    const r = await ts.req('GET', `${podsPath()}/loop/proxy/`);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('address not allowed');
    expect((await ts.req('GET', `${podsPath()}/nope/proxy/`)).status).toBe(404);
  });

  it.runIf(EXTERNAL_IP)(
    'pods/proxy: to the pod IP and its first container port, or the port named',
    async () => {
      await createPod('web2', [{ name: 'app', image: 'x', ports: [{ containerPort: backendPort }] }]);
      await setPodIP('web2', EXTERNAL_IP!);
      const r = await ts.req('GET', `${podsPath()}/web2/proxy/p?q=1`);
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({ method: 'GET', url: '/p?q=1' });
      const named = await ts.req('DELETE', `${podsPath()}/http:web2:${backendPort}/proxy/z`);
      expect(named.json).toMatchObject({ method: 'DELETE', url: '/z' });
    },
  );

  it.runIf(EXTERNAL_IP)('nodes/proxy: to the node address, at a port named', async () => {
    const node = uniqueName('node');
    await createNode(node, {
      addresses: [{ type: 'InternalIP', address: EXTERNAL_IP }],
      daemonEndpoints: { kubeletEndpoint: { Port: 1 } },
    });
    const r = await ts.req('GET', `/api/v1/nodes/http:${node}:${backendPort}/proxy/stats/summary`);
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ method: 'GET', url: '/stats/summary' });
  });

  it("nodes/proxy: a loopback node address is not proxied to; a node without an address: 1.28's error", async () => {
    const node = uniqueName('node');
    await createNode(node, { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] });
    const r = await ts.req('GET', `/api/v1/nodes/${node}/proxy/`);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('address not allowed');
    const bare = uniqueName('node');
    await createNode(bare, { addresses: [{ type: 'Other', address: '10.0.0.1' }] });
    const b = await ts.req('GET', `/api/v1/nodes/${bare}/proxy/`);
    expect(b.json.message).toBe(
      'Internal error occurred: no preferred addresses found; known addresses: [{Other 10.0.0.1}]',
    );
    expect((await ts.req('GET', '/api/v1/nodes/nope/proxy/')).status).toBe(404);
  });
});

describe('authorization of the subresources, as 1.28 asks it', () => {
  const RBAC = '/apis/rbac.authorization.orch.io/v1';
  const as = (method: string, path: string, body?: unknown) =>
    ts.req(method, path, body, {
      'impersonate-user': 'erin',
      ...(body ? { 'content-type': 'application/json' } : {}),
    });

  beforeAll(async () => {
    const role = await ts.req('POST', `${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: 'connect' },
      rules: [
        { verbs: ['create'], apiGroups: [''], resources: ['pods/exec', 'pods/binding'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods/log', 'services/proxy'] },
      ],
    });
    expect(role.status, role.text).toBe(201);
    const rb = await ts.req('POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: 'erin-connect' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'connect' },
      subjects: [{ apiGroup: 'rbac.authorization.orch.io', kind: 'User', name: 'erin' }],
    });
    expect(rb.status, rb.text).toBe(201);
    await createPod('z1');
  });

  it('exec by POST is create on pods/exec; by GET it is get', async () => {
    const post = await as('POST', `${podsPath()}/z1/exec?command=ls`);
    expect(post.status, post.text).toBe(400); // allowed: the pod has no node
    const get = await as('GET', `${podsPath()}/z1/exec?command=ls`);
    expect(get.status).toBe(403);
    expect(get.json.message).toBe(
      `pods "z1" is forbidden: User "erin" cannot get resource "pods/exec" in API group "" in the namespace "${ns}"`,
    );
  });

  it('log and service proxy by GET are get; a proxy POST is create', async () => {
    expect((await as('GET', `${podsPath()}/z1/log`)).status).toBe(200);
    expect((await as('GET', `/api/v1/namespaces/${ns}/services/none/proxy/`)).status).toBe(404);
    const post = await as('POST', `/api/v1/namespaces/${ns}/services/none/proxy/`, {});
    expect(post.status).toBe(403);
    expect(post.json.message).toContain('cannot create resource "services/proxy"');
    // neither pods nor pods/attach
    expect((await as('GET', `${podsPath()}/z1`)).status).toBe(403);
    expect((await as('POST', `${podsPath()}/z1/attach`)).status).toBe(403);
  });

  it('a binding is create on pods/binding; the bindings resource is another', async () => {
    const sub = await as('POST', `${podsPath()}/z1/binding`, {
      metadata: { name: 'z1' },
      target: { name: 'n9' },
    });
    expect(sub.status, sub.text).toBe(201);
    const res = await as('POST', `/api/v1/namespaces/${ns}/bindings`, {
      metadata: { name: 'z1' },
      target: { name: 'n9' },
    });
    expect(res.status).toBe(403);
    expect(res.json.message).toContain('cannot create resource "bindings"');
  });
});

describe('OpenAPI names the operations as 1.28 does', () => {
  it('every path of these subresources, with its methods and operation ids', async () => {
    const facts = readFact('openapi-v3/api_v1.json') as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const r = await ts.req('GET', '/openapi/v3/api/v1');
    expect(r.status).toBe(200);
    const ids = (paths: Record<string, Record<string, { operationId?: string }>>, p: string) =>
      Object.entries(paths[p] ?? {})
        .filter(([m]) => m !== 'parameters')
        .map(([m, o]) => `${m} ${o.operationId}`)
        .sort();
    const wanted = Object.keys(facts.paths).filter((p) =>
      /\/(bindings|binding|ephemeralcontainers|log|exec|attach|portforward|proxy)(\/\{path\})?$/.test(p),
    );
    expect(wanted.length).toBe(13);
    for (const p of wanted) expect(ids(r.json.paths, p), p).toEqual(ids(facts.paths, p));
  });
});

describe('through a node agent', () => {
  let agent: HttpsServer;
  let agentPort = 0;
  let node = '';
  beforeAll(async () => {
    const ca = await makeCa('agent-ca');
    const cert = await issue(ca, { subject: 'CN=agent', usages: ['1.3.6.1.5.5.7.3.1'] });
    agent = createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.method} ${req.url}`);
    });
    await new Promise<void>((r) => agent.listen(0, '0.0.0.0', r));
    agentPort = (agent.address() as AddressInfo).port;
    node = uniqueName('agent');
    await createNode(node, {
      addresses: [{ type: 'InternalIP', address: EXTERNAL_IP ?? '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: agentPort } },
    });
    await createPod('g1');
    await bind('g1', node);
  });
  afterAll(async () => {
    await new Promise((r) => agent?.close(r));
  });

  it('log, exec and portforward reach the agent at its https endpoint with the options as it names them', async () => {
    const log = await ts.req('GET', `${podsPath()}/g1/log?tailLines=3&timestamps=true`);
    expect(log.status, log.text).toBe(200);
    expect(log.text).toBe(`GET /containerLogs/${ns}/g1/app?tailLines=3&timestamps=true`);
    const exec = await ts.req('POST', `${podsPath()}/g1/exec?command=ls&command=-l&stdout=true&stdin=1`);
    expect(exec.text).toBe(`POST /exec/${ns}/g1/app?command=ls&command=-l&input=1&output=1`);
    const attach = await ts.req('POST', `${podsPath()}/g1/attach?container=app&stderr=true`);
    expect(attach.text).toBe(`POST /attach/${ns}/g1/app?error=1`);
    const pf = await ts.req('POST', `${podsPath()}/g1/portforward?ports=8080`);
    expect(pf.text).toBe(`POST /portForward/${ns}/g1?port=8080`);
  });

  it.runIf(EXTERNAL_IP)('nodes/proxy without a port goes to the agent endpoint over https', async () => {
    const r = await ts.req('GET', `/api/v1/nodes/${node}/proxy/metrics/cadvisor`);
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe('GET /metrics/cadvisor');
  });
});
