// NodeRestriction (doc3 plugin table; the messages as Kubernetes 1.28): a node agent writes its
// own Node (no taint edits, no reserved labels), mirror pods bound to itself, the status of its
// own pods, and its own lease. The node agent's permissions come from RBAC (granted here), so
// each refusal below is the plugin's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

let ts: TestServer;
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: { taints },
});
const asNode = (n: string) => ({
  'impersonate-user': `system:node:${n}`,
  'impersonate-group': 'system:nodes',
});
const merge = { 'content-type': 'application/merge-patch+json' };

beforeAll(async () => {
  ts = await startServer({ enableAdmissionPlugins: ['NodeRestriction'] });
  const rules = [
    {
      apiGroups: ['', 'coordination.orch.io'],
      resources: ['nodes', 'pods', 'pods/status', 'leases'],
      verbs: ['*'],
    },
  ];
  expect(
    (
      await ts.req('POST', `${RBAC}/clusterroles`, {
        apiVersion: 'rbac.authorization.orch.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'nodes-all' },
        rules,
      })
    ).status,
  ).toBe(201);
  const b = await ts.req('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'nodes-all' },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'nodes-all' },
    subjects: [{ kind: 'Group', name: 'system:nodes', apiGroup: 'rbac.authorization.orch.io' }],
  });
  expect(b.status).toBe(201);
});
afterAll(async () => ts?.close());

describe('nodes', () => {
  it('a node agent creates and changes only its own Node', async () => {
    const n = uniqueName('n');
    expect((await ts.req('POST', '/api/v1/nodes', node(n), asNode(n))).status).toBe(201);
    const other = await ts.req('POST', '/api/v1/nodes', node(`${n}-x`), asNode(n));
    expect(other.status).toBe(403);
    expect(other.json.message).toBe(
      `nodes "${n}-x" is forbidden: node "${n}" is not allowed to modify node "${n}-x"`,
    );
  });
  it('no taint edits, no reserved or foreign orch.io labels; its well-known labels are fine', async () => {
    const n = uniqueName('n');
    const bad = await ts.req(
      'POST',
      '/api/v1/nodes',
      node(n, { 'node-restriction.orch.io/pool': 'a', 'orch.io/hostname': n }),
      asNode(n),
    );
    expect(bad.status).toBe(403);
    expect(bad.json.message).toBe(
      `nodes "${n}" is forbidden: node "${n}" is not allowed to set the following labels: node-restriction.orch.io/pool`,
    );
    expect(
      (
        await ts.req(
          'POST',
          '/api/v1/nodes',
          node(n, { 'orch.io/hostname': n, 'kubelet.orch.io/x': 'y', team: 'a' }),
          asNode(n),
        )
      ).status,
    ).toBe(201);
    const taint = await ts.req(
      'PATCH',
      `/api/v1/nodes/${n}`,
      { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } },
      { ...merge, ...asNode(n) },
    );
    expect(taint.status).toBe(403);
    expect(taint.json.message).toContain('is not allowed to modify taints');
    const label = await ts.req(
      'PATCH',
      `/api/v1/nodes/${n}`,
      { metadata: { labels: { 'node-role.orch.io/master': '' } } },
      { ...merge, ...asNode(n) },
    );
    expect(label.status).toBe(403);
    expect(label.json.message).toContain(`is not allowed to modify labels: node-role.orch.io/master`);
    // the admin may
    expect(
      (
        await ts.req(
          'PATCH',
          `/api/v1/nodes/${n}`,
          { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } },
          merge,
        )
      ).status,
    ).toBe(200);
  });
});

describe('pods and leases', () => {
  const pod = (name: string, nodeName: string, annotations: Record<string, string> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, annotations },
    spec: { nodeName, containers: [{ name: 'c', image: 'i' }] },
  });
  it('only mirror pods bound to itself; status and delete of its own pods only', async () => {
    const n = uniqueName('n');
    const plain = await ts.req('POST', '/api/v1/namespaces/default/pods', pod(uniqueName('p'), n), asNode(n));
    expect(plain.status).toBe(403);
    expect(plain.json.message).toContain(
      `pod does not have "orch.io/config.mirror" annotation, node "${n}" can only create mirror pods`,
    );
    const elsewhere = await ts.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod(uniqueName('p'), 'other', { 'orch.io/config.mirror': 'x' }),
      asNode(n),
    );
    expect(elsewhere.status).toBe(403);
    const mine = uniqueName('p');
    const mirror = (owners: unknown[]) => {
      const body = pod(mine, n, { 'orch.io/config.mirror': 'x' }) as any;
      return { ...body, metadata: { ...body.metadata, ownerReferences: owners } };
    };
    // kube-apiserver 1.28 (run --kubernetes-assets): a mirror pod needs one controller owner
    // reference to its node's Node object, with the node's uid
    const unowned = await ts.req('POST', '/api/v1/namespaces/default/pods', mirror([]), asNode(n));
    expect(unowned.status).toBe(403);
    expect(unowned.json.message).toContain(
      `node "${n}" can only create pods with an owner reference set to itself`,
    );
    const self = { apiVersion: 'v1', kind: 'Node', name: n, controller: true };
    const noNode = await ts.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      mirror([{ ...self, uid: 'u' }]),
      asNode(n),
    );
    expect(noNode.status).toBe(404);
    const node = await ts.req('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n },
    });
    expect(node.status, node.text).toBe(201);
    const wrongUid = await ts.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      mirror([{ ...self, uid: 'u' }]),
      asNode(n),
    );
    expect(wrongUid.status).toBe(403);
    expect(wrongUid.json.message).toContain(
      `node ${n} UID mismatch: expected u got ${node.json.metadata.uid}`,
    );
    const notController = await ts.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      mirror([{ ...self, controller: false, uid: node.json.metadata.uid }]),
      asNode(n),
    );
    expect(notController.json.message).toContain(
      'can only create pods with a controller owner reference set to itself',
    );
    const created = await ts.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      mirror([{ ...self, uid: node.json.metadata.uid }]),
      asNode(n),
    );
    expect(created.status, created.text).toBe(201);
    const theirs = uniqueName('p');
    expect((await ts.req('POST', '/api/v1/namespaces/default/pods', pod(theirs, 'other'))).status).toBe(201);
    const st = await ts.req(
      'PATCH',
      `/api/v1/namespaces/default/pods/${theirs}/status`,
      { status: { phase: 'Running' } },
      { ...merge, ...asNode(n) },
    );
    expect(st.status).toBe(403);
    expect(st.json.message).toContain('can only update pod status for pods with spec.nodeName set to itself');
    expect(
      (
        await ts.req(
          'PATCH',
          `/api/v1/namespaces/default/pods/${mine}/status`,
          { status: { phase: 'Running' } },
          { ...merge, ...asNode(n) },
        )
      ).status,
    ).toBe(200);
    const del = await ts.req('DELETE', `/api/v1/namespaces/default/pods/${theirs}`, undefined, asNode(n));
    expect(del.status).toBe(403);
    expect(del.json.message).toContain('can only delete pods with spec.nodeName set to itself');
    expect(
      (await ts.req('DELETE', `/api/v1/namespaces/default/pods/${mine}`, undefined, asNode(n))).status,
    ).toBe(200);
  });
  it('its own lease in orch-node-lease only', async () => {
    const n = uniqueName('n');
    await ts.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'orch-node-lease' },
    });
    const lease = (name: string) => ({
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: { holderIdentity: n },
    });
    expect(
      (
        await ts.req(
          'POST',
          '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases',
          lease(n),
          asNode(n),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await ts.req(
          'POST',
          '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases',
          lease(`${n}-x`),
          asNode(n),
        )
      ).status,
    ).toBe(403);
    expect(
      (await ts.req('POST', '/apis/coordination.orch.io/v1/namespaces/default/leases', lease(n), asNode(n)))
        .status,
    ).toBe(403);
  });
});
