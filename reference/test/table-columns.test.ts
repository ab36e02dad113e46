// The Table form of every built-in kind against what a real Kubernetes 1.28 server answers
// (shared/kubernetes-1.28/table-columns.json), column descriptions as Kubernetes' printers write
// them, and the Table media type under Kubernetes' own group name, `meta.k8s.io`, which kubectl
// and client-go ask for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinKinds } from '../src/registry/kinds/index.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, factKey } from './k8s-facts.ts';
import { POLICY_GROUP_VERSIONS } from '../src/registry/kinds/policy-common.ts';

const K8S_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const K8S_TABLE_BETA = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
const ORCH_TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
/** What kubectl 1.28 sends for `kubectl get` (the Table forms, then JSON). */
const KUBECTL_ACCEPT = `${K8S_TABLE},${K8S_TABLE_BETA},application/json`;

// the kinds only, never used to serve: the registry they would reach is never asked for
const RESOURCES = builtinKinds(() => {
  throw new Error('not used');
})
  // the capture has the columns of listable resources only (core bindings are create-only)
  .filter((def) => def.verbs.includes('list'))
  .flatMap((def) =>
    // group versions a default server does not serve (the policy API) have no captured columns
    def.versions
      .filter((v) => !POLICY_GROUP_VERSIONS.includes(`${def.group}/${v}`))
      .map((version) => ({
        key: factKey(def.group, version, def.plural),
        path: def.group ? `/apis/${def.group}/${version}/${def.plural}` : `/api/${version}/${def.plural}`,
        group: def.group,
        version,
        plural: def.plural,
      })),
  );

/**
 * Columns Kubernetes 1.28 describes with the empty string: printers.go describes RuntimeClass's
 * Handler as `metav1.ObjectMeta{}.SwaggerDoc()["handler"]`, a field ObjectMeta has not.
 */
const EMPTY = ['node.k8s.io/v1/runtimeclasses Handler'];

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.orch.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/**
 * Descriptions as Kubernetes 1.28 answers them (pkg/printers/internalversion/printers.go): a
 * literal, or `Type{}.SwaggerDoc()["field"]`, the field's whole documentation (from the API
 * package's types_swagger_doc_generated.go), in the orch words (`k8s.io` is `orch.io`).
 */
const DESCRIPTIONS: [path: string, column: string, description: string][] = [
  ['/api/v1/pods', 'Name', NAME_DOC],
  ['/api/v1/pods', 'Age', AGE_DOC],
  ['/api/v1/pods', 'Ready', 'The aggregate readiness state of this pod for accepting traffic.'],
  [
    '/api/v1/pods',
    'IP',
    'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
  ],
  ['/api/v1/podtemplates', 'Pod Labels', 'The labels for the pod template.'],
  [
    '/apis/policy/v1/poddisruptionbudgets',
    'Min Available',
    'The minimum number of pods that must be available.',
  ],
  [
    '/apis/policy/v1/poddisruptionbudgets',
    'Allowed Disruptions',
    'Calculated number of pods that may be disrupted at this time.',
  ],
  [
    '/api/v1/replicationcontrollers',
    'Desired',
    'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  ],
  // extensions/v1beta1's ReplicaSetStatus, not apps/v1's
  ['/apis/apps/v1/replicasets', 'Ready', 'The number of ready replicas for this replica set.'],
  ['/apis/apps/v1/replicasets', 'Containers', 'Names of each container in the template.'],
  [
    '/apis/apps/v1/deployments',
    'Up-to-date',
    'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
  ],
  [
    '/api/v1/events',
    'Subobject',
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
  ],
  ['/api/v1/events', 'Name', NAME_DOC],
  [
    '/api/v1/nodes',
    'Internal-IP',
    "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.orch.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
  ],
  ['/apis/rbac.authorization.orch.io/v1/rolebindings', 'Users', 'Users in the roleBinding'],
  ['/apis/rbac.authorization.orch.io/v1/clusterrolebindings', 'Users', 'Users in the clusterRoleBinding'],
  [
    '/apis/apiregistration.orch.io/v1/apiservices',
    'Service',
    'The reference to the service that hosts this API endpoint.',
  ],
  ['/apis/node.orch.io/v1/runtimeclasses', 'Handler', ''],
];

const shape = (defs: any[]) =>
  defs.map((c) => ({ name: c.name, type: c.type, format: c.format, priority: c.priority }));

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

describe('Table columns: every built-in kind as a Kubernetes 1.28 server prints it', () => {
  it('covers at least the kinds the reference serves today', () => {
    expect(RESOURCES.map((r) => r.key)).toEqual(
      expect.arrayContaining([
        'v1/namespaces',
        'v1/configmaps',
        'v1/secrets',
        'v1/pods',
        'v1/services',
        'v1/nodes',
        'v1/serviceaccounts',
        'v1/events',
        'events.k8s.io/v1/events',
        'coordination.k8s.io/v1/leases',
        'apps/v1/deployments',
        'apiextensions.k8s.io/v1/customresourcedefinitions',
      ]),
    );
  });

  it.each(RESOURCES)(
    '$key: names, types, formats and priorities of table-columns.json, in order',
    async (r) => {
      const want = columnsOf(r.group, r.version, r.plural);
      const res = await ts.req('GET', r.path, undefined, { accept: K8S_TABLE });
      expect(res.status, res.text).toBe(200);
      expect(res.json.kind).toBe('Table');
      expect(shape(res.json.columnDefinitions), `GET ${r.path} as a meta.k8s.io Table`).toEqual(want);
      for (const c of res.json.columnDefinitions)
        expect(
          typeof c.description === 'string' &&
            (c.description.length > 0 || EMPTY.includes(`${r.key} ${c.name}`)),
          `a description for ${c.name}`,
        ).toBe(true);
      // the orch name of the group gives the same columns
      const orch = await ts.req('GET', r.path, undefined, { accept: ORCH_TABLE });
      expect(orch.json.apiVersion).toBe('meta.orch.io/v1');
      expect(orch.json.columnDefinitions).toEqual(res.json.columnDefinitions);
    },
  );
});

describe("Table column descriptions: Kubernetes 1.28's own", () => {
  it.each(DESCRIPTIONS)('%s %s', async (path, column, description) => {
    const res = await ts.req('GET', path, undefined, { accept: K8S_TABLE });
    expect(res.status, res.text).toBe(200);
    const c = res.json.columnDefinitions.find((d: { name: string }) => d.name === column);
    expect(c?.description).toBe(description);
  });
});

describe('Table media type: Kubernetes group name meta.k8s.io', () => {
  let ns: string;
  beforeAll(async () => {
    ns = uniqueName('tbl');
    expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    const cm = { metadata: { name: 'c1' }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } };
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, cm)).status).toBe(201);
  });

  it("kubectl's Accept gets a meta.k8s.io/v1 Table, named so in apiVersion and Content-Type", async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps?limit=500`, undefined, {
      accept: KUBECTL_ACCEPT,
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(K8S_TABLE);
    expect(r.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.json.rows).toHaveLength(1);
    // Data counts data and binaryData entries, as Kubernetes' printer does
    expect(r.json.rows[0].cells.slice(0, 2)).toEqual(['c1', 3]);
    expect(r.json.rows[0].object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'c1', namespace: ns },
    });
  });

  it('v1beta1 is answered as meta.k8s.io/v1beta1', async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/c1`, undefined, {
      accept: K8S_TABLE_BETA,
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(K8S_TABLE_BETA);
    expect(r.json.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(r.json.rows[0].object.apiVersion).toBe('meta.k8s.io/v1beta1');
  });

  it('includeObject=Object carries the object in its own version; None carries nothing', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const obj = await ts.req('GET', `${path}?includeObject=Object`, undefined, { accept: K8S_TABLE });
    expect(obj.json.rows[0].object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      data: { a: '1', b: '2' },
    });
    const none = await ts.req('GET', `${path}?includeObject=None`, undefined, { accept: K8S_TABLE });
    expect(none.json.rows[0].object).toBeUndefined();
  });

  it('the spec name meta.orch.io is still answered as meta.orch.io/v1', async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, { accept: ORCH_TABLE });
    expect(r.headers['content-type']).toBe(ORCH_TABLE);
    expect(r.json.apiVersion).toBe('meta.orch.io/v1');
    expect(r.json.rows[0].object.apiVersion).toBe('meta.orch.io/v1');
  });

  it('another group is not a Table: the JSON fallback, or 406 without one', async () => {
    const other = 'application/json;as=Table;v=v1;g=meta.example.com';
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      accept: `${other},application/json`,
    });
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json.kind).toBe('ConfigMapList');
    const refused = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, { accept: other });
    expect(refused.status).toBe(406);
  });

  it('writes are not answered as Tables: a create asked with the Table type gets the object', async () => {
    const r = await ts.req(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      { metadata: { name: 'c2' } },
      { accept: KUBECTL_ACCEPT },
    );
    expect(r.status).toBe(201);
    expect(r.json.kind).toBe('ConfigMap');
  });
});
