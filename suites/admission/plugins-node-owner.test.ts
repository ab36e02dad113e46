// doc3 § Webhook configuration objects, plugin table rows NodeRestriction ("limits a node agent
// (user `system:node:<node-name>`, group `system:nodes`) to its own node and its bound workload
// units; no taint edits; reserved label prefixes") and OwnerReferencesPermissionEnforcement
// ("only holders of delete permission change `metadata.ownerReferences`; `blockOwnerDeletion`
// needs update on the owner's finalizers subresource"). Both are off by default: the cases run on
// a target that has them on. Node agents and users act through impersonation with RBAC grants, so
// each refusal is the plugin's. Message wording is Kubernetes 1.28's (checked by BEYOND cases).
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { actingAs } from '../../harness/src/auth/impersonation.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import { grant, namespace, row, settle } from './plugin-helpers.ts';
import { pluginCase } from './plugin-support.ts';

const NODE_ROW = row(
  'NodeRestriction',
  'V',
  'Limits a node agent (user `system:node:<node-name>`, group `system:nodes`) to its own node and its bound workload units; no taint edits; reserved label prefixes',
);
const OWNER_ROW = row(
  'OwnerReferencesPermissionEnforcement',
  'V',
  "Only holders of delete permission change `metadata.ownerReferences`; `blockOwnerDeletion` needs update on the owner's finalizers subresource",
);
const def = pluginCase;
const MERGE = 'application/merge-patch+json';

const nodeBody = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: {},
});
const podBody = (name: string, nodeName: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, annotations },
  spec: { nodeName, containers: [{ name: 'c', image: 'registry.example/app:1' }] },
});
const NODE_RULES = [
  {
    apiGroups: [''],
    resources: ['nodes', 'pods', 'pods/status'],
    verbs: ['get', 'create', 'update', 'patch', 'delete'],
  },
];
const asNode = (t: { client: any }, node: string) =>
  actingAs(t.client, { user: `system:node:${node}`, groups: ['system:nodes'] });

describe('admission: NodeRestriction', () => {
  const needs = { admissionPlugins: ['NodeRestriction'] };

  conformance(
    def(
      'node-restriction/own-node',
      "A node agent may create its own Node and not another node's (403)",
      NODE_ROW,
      'MUST',
    ),
    async (t) => {
      const node = uniqueName('plugin-node');
      const undo = await grant(t.client, { kind: 'Group', name: 'system:nodes' }, NODE_RULES);
      const as = asNode(t, node);
      try {
        const own = await settle(
          () => as.post('/api/v1/nodes', nodeBody(node)),
          (r) => r.status !== 403,
        );
        checkStatus(own, 201, undefined, 'its own Node');
        const other = await as.post('/api/v1/nodes', nodeBody(`${node}-other`));
        checkStatus(other, 403, 'Forbidden', "another node's Node");
        const want = `node "${node}" is not allowed to modify node "${node}-other"`;
        check(
          String(other.statusObj?.message).endsWith(want),
          `a message ending ${show(want)} (Kubernetes 1.28)`,
          show(other.statusObj?.message),
        );
      } finally {
        await t.client.delete(`/api/v1/nodes/${node}`);
        await t.client.delete(`/api/v1/nodes/${node}-other`);
        await undo();
      }
    },
    { needs },
  );

  conformance(
    def(
      'node-restriction/no-taint-edits',
      'A node agent may not change the taints of its own Node (403); the cluster administrator may',
      NODE_ROW,
      'MUST',
    ),
    async (t) => {
      const node = uniqueName('plugin-node');
      const undo = await grant(t.client, { kind: 'Group', name: 'system:nodes' }, NODE_RULES);
      const as = asNode(t, node);
      try {
        checkStatus(
          await settle(
            () => as.post('/api/v1/nodes', nodeBody(node)),
            (r) => r.status !== 403,
          ),
          201,
        );
        const taint = { spec: { taints: [{ key: 'conformance', effect: 'NoSchedule' }] } };
        const r = await as.request({
          method: 'PATCH',
          path: `/api/v1/nodes/${node}`,
          body: taint,
          contentType: MERGE,
        });
        checkStatus(r, 403, 'Forbidden', 'no taint edits');
        check(
          String(r.statusObj?.message).includes('is not allowed to modify taints'),
          'a message saying taints may not be modified (Kubernetes 1.28)',
          show(r.statusObj?.message),
        );
        checkStatus(
          await t.client.patch(`/api/v1/nodes/${node}`, taint, MERGE),
          200,
          undefined,
          'others are not restricted',
        );
      } finally {
        await t.client.delete(`/api/v1/nodes/${node}`);
        await undo();
      }
    },
    { needs },
  );

  conformance(
    def(
      'node-restriction/reserved-labels',
      'A node agent may not set labels under node-restriction.orch.io/ on its Node (403), while its own well-known labels are accepted',
      NODE_ROW,
      'MUST',
    ),
    async (t) => {
      const node = uniqueName('plugin-node');
      const undo = await grant(t.client, { kind: 'Group', name: 'system:nodes' }, NODE_RULES);
      const as = asNode(t, node);
      try {
        const bad = await settle(
          () => as.post('/api/v1/nodes', nodeBody(node, { 'node-restriction.orch.io/pool': 'a' })),
          (r) => !(r.status === 403 && String(r.statusObj?.message).includes('cannot')),
        );
        checkStatus(bad, 403, 'Forbidden', 'a reserved label');
        check(
          String(bad.statusObj?.message).includes(
            'is not allowed to set the following labels: node-restriction.orch.io/pool',
          ),
          'a message naming the label (Kubernetes 1.28)',
          show(bad.statusObj?.message),
        );
        checkStatus(
          await as.post(
            '/api/v1/nodes',
            nodeBody(node, { 'orch.io/hostname': node, 'conformance-team': 'a' }),
          ),
          201,
          undefined,
          'well-known and unprefixed labels',
        );
        const relabel = await as.request({
          method: 'PATCH',
          path: `/api/v1/nodes/${node}`,
          body: { metadata: { labels: { 'node-restriction.orch.io/pool': 'b' } } },
          contentType: MERGE,
        });
        checkStatus(relabel, 403, 'Forbidden', 'adding a reserved label later');
      } finally {
        await t.client.delete(`/api/v1/nodes/${node}`);
        await undo();
      }
    },
    { needs },
  );

  conformance(
    def(
      'node-restriction/bound-pods',
      'A node agent creates only mirror pods bound to itself, and deletes and updates the status of only the pods bound to it (403 otherwise)',
      NODE_ROW,
      'MUST',
    ),
    async (t) => {
      const node = uniqueName('plugin-node');
      const ns = await namespace(t.client, 'plugin-node');
      const undo = await grant(t.client, { kind: 'Group', name: 'system:nodes' }, NODE_RULES);
      const as = asNode(t, node);
      const pods = `/api/v1/namespaces/${ns.name}/pods`;
      try {
        const plain = await settle(
          () => as.post(pods, podBody('plain', node)),
          (r) => !(r.status === 403 && String(r.statusObj?.message).includes('cannot')),
        );
        checkStatus(plain, 403, 'Forbidden', 'a pod that is not a mirror pod');
        const elsewhere = await as.post(
          pods,
          podBody('elsewhere', `${node}-other`, { 'orch.io/config.mirror': 'x' }),
        );
        checkStatus(elsewhere, 403, 'Forbidden', 'a mirror pod bound to another node');
        // a node agent owns its mirror pods through its Node object, as a 1.28 node agent does
        const self = await t.client.post('/api/v1/nodes', {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: node },
        });
        checkStatus(self, 201, undefined, 'setup: the node agent registers its Node');
        const body = podBody('mine', node, { 'orch.io/config.mirror': 'x' });
        const ownerReferences = [
          { apiVersion: 'v1', kind: 'Node', name: node, uid: self.json?.metadata?.uid, controller: true },
        ];
        const mirror = { ...body, metadata: { ...body.metadata, ownerReferences } };
        // Kubernetes' plugin finds the Node through its informer's cache, which may not hold the
        // Node yet right after it was created: a 404 naming the node is waited out
        const created = await settle(
          () => as.post(pods, mirror),
          (r) => !(r.status === 404 && String(r.statusObj?.message).includes(`node "${node}" not found`)),
        );
        checkStatus(created, 201, undefined, 'a mirror pod bound to itself, owned by its Node');
        checkStatus(
          await t.client.post(pods, podBody('theirs', `${node}-other`)),
          201,
          undefined,
          'setup: a pod on another node',
        );
        const status = await as.request({
          method: 'PATCH',
          path: `${pods}/theirs/status`,
          body: { status: { phase: 'Running' } },
          contentType: MERGE,
        });
        checkStatus(status, 403, 'Forbidden', 'the status of a pod of another node');
        checkStatus(
          await as.request({
            method: 'PATCH',
            path: `${pods}/mine/status`,
            body: { status: { phase: 'Running' } },
            contentType: MERGE,
          }),
          200,
          undefined,
          'the status of its own pod',
        );
        checkStatus(await as.delete(`${pods}/theirs`), 403, 'Forbidden', 'deleting a pod of another node');
        checkStatus(await as.delete(`${pods}/mine`), 200, undefined, 'deleting its own pod');
      } finally {
        await t.client.delete(`/api/v1/nodes/${node}`);
        await ns.remove();
        await undo();
      }
    },
    { needs },
  );

  conformance(
    def(
      'node-restriction/others-untouched',
      'Users that are not node agents (a system:node: name without the system:nodes group) are not restricted by the plugin',
      NODE_ROW,
      'BEYOND',
    ),
    async (t) => {
      const name = uniqueName('plugin-node');
      const user = `system:node:${name}`;
      const undo = await grant(t.client, { kind: 'User', name: user }, [
        { apiGroups: [''], resources: ['nodes'], verbs: ['create'] },
      ]);
      try {
        const r = await settle(
          () => actingAs(t.client, { user }).post('/api/v1/nodes', nodeBody(`${name}-x`)),
          (x) => x.status !== 403,
        );
        checkStatus(r, 201, undefined, 'without the system:nodes group the user is not a node agent');
      } finally {
        await t.client.delete(`/api/v1/nodes/${name}-x`);
        await undo();
      }
    },
    { needs },
  );
});

describe('admission: OwnerReferencesPermissionEnforcement', () => {
  const needs = { admissionPlugins: ['OwnerReferencesPermissionEnforcement'] };
  const cm = (name: string, ownerReferences: unknown[]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ownerReferences },
    data: {},
  });
  const owner = (block?: boolean) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'owner',
    uid: '6f1b7c4e-0000-4000-8000-000000000001',
    ...(block === undefined ? {} : { blockOwnerDeletion: block }),
  });
  const WRITE = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update', 'patch'] }];

  conformance(
    def(
      'owner-references/needs-delete',
      'Changing owner references by an update without delete permission on the object is refused (403); with delete it is admitted',
      OWNER_ROW,
      'MUST',
    ),
    async (t) => {
      const user = uniqueName('plugin-owner');
      const ns = await namespace(t.client, 'plugin-owner');
      const as = actingAs(t.client, { user });
      const undo = [await grant(t.client, { kind: 'User', name: user }, WRITE)];
      const path = `/api/v1/namespaces/${ns.name}/configmaps`;
      const addOwner = () =>
        as.request({
          method: 'PATCH',
          path: `${path}/plain`,
          body: { metadata: { ownerReferences: [owner(false)] } },
          contentType: MERGE,
        });
      try {
        checkStatus(
          await settle(
            () => as.post(path, cm('plain', [])),
            (r) => r.status !== 403,
          ),
          201,
          undefined,
          'setup: no owner references',
        );
        const refused = await addOwner();
        checkStatus(refused, 403, 'Forbidden', 'adding owner references by update needs delete');
        check(
          String(refused.statusObj?.message).includes(
            "cannot set an ownerRef on a resource you can't delete",
          ),
          'the message of Kubernetes 1.28',
          show(refused.statusObj?.message),
        );
        undo.push(
          await grant(t.client, { kind: 'User', name: user }, [
            { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] },
          ]),
        );
        checkStatus(await settle(addOwner, (r) => r.status !== 403), 200, undefined, 'with delete');
      } finally {
        await ns.remove();
        for (const u of undo) await u();
      }
    },
    { needs },
  );

  conformance(
    def(
      'owner-references/create-free',
      'Creating an object with owner references needs no delete permission (whoever may create it could also not have made it)',
      `${OWNER_ROW} (creation: not shown; Kubernetes 1.28 checks only changes of an existing object)`,
      'BEYOND',
    ),
    async (t) => {
      const user = uniqueName('plugin-owner');
      const ns = await namespace(t.client, 'plugin-owner');
      const as = actingAs(t.client, { user });
      const undo = [await grant(t.client, { kind: 'User', name: user }, WRITE)];
      try {
        checkStatus(
          await settle(
            () => as.post(`/api/v1/namespaces/${ns.name}/configmaps`, cm('owned', [owner(false)])),
            (r) => r.status !== 403 || String(r.statusObj?.message).includes('ownerRef'),
          ),
          201,
          undefined,
          'a creation with owner references, without delete',
        );
      } finally {
        await ns.remove();
        for (const u of undo) await u();
      }
    },
    { needs },
  );

  conformance(
    def(
      'owner-references/block-owner-deletion',
      "blockOwnerDeletion: true needs update on the owner's finalizers subresource (403 without; admitted with)",
      OWNER_ROW,
      'MUST',
    ),
    async (t) => {
      const user = uniqueName('plugin-owner');
      const ns = await namespace(t.client, 'plugin-owner');
      const as = actingAs(t.client, { user });
      const undo = [
        await grant(t.client, { kind: 'User', name: user }, [
          { ...WRITE[0]!, verbs: [...WRITE[0]!.verbs, 'delete'] },
        ]),
      ];
      const path = `/api/v1/namespaces/${ns.name}/configmaps`;
      try {
        const refused = await settle(
          () => as.post(path, cm('blocking', [owner(true)])),
          (r) => !(r.status === 403 && !String(r.statusObj?.message).includes('blockOwnerDeletion')),
        );
        checkStatus(refused, 403, 'Forbidden', 'no update on configmaps/finalizers');
        check(
          String(refused.statusObj?.message).includes(
            "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
          ),
          'the message of Kubernetes 1.28',
          show(refused.statusObj?.message),
        );
        undo.push(
          await grant(t.client, { kind: 'User', name: user }, [
            {
              apiGroups: [''],
              resources: ['configmaps/finalizers'],
              verbs: ['update'],
              resourceNames: ['owner'],
            },
          ]),
        );
        checkStatus(
          await settle(
            () => as.post(path, cm('blocking', [owner(true)])),
            (r) => r.status !== 403,
          ),
          201,
          undefined,
          "update on the owner's finalizers",
        );
      } finally {
        await ns.remove();
        for (const u of undo) await u();
      }
    },
    { needs },
  );
});
