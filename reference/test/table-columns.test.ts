// The Table form of every built-in kind against what a real Kubernetes 1.28 server answers
// (shared/kubernetes-1.28/table-columns.json), and the Table media type under Kubernetes' own
// group name, `meta.k8s.io`, which kubectl and client-go ask for.
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
          typeof c.description === 'string' && c.description.length > 0,
          `a description for ${c.name}`,
        ).toBe(true);
      // the orch name of the group gives the same columns
      const orch = await ts.req('GET', r.path, undefined, { accept: ORCH_TABLE });
      expect(orch.json.apiVersion).toBe('meta.orch.io/v1');
      expect(orch.json.columnDefinitions).toEqual(res.json.columnDefinitions);
    },
  );
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
