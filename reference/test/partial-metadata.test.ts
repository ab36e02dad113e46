// `as=PartialObjectMetadata` and `as=PartialObjectMetadataList` (JSON), as a controller
// manager's metadata informers ask for them: a get, a list and a watch answer the objects'
// metadata alone, of built-in and custom resources alike, in the meta group version asked for;
// a Protobuf request for them falls to the JSON the Accept header also names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const PARTIAL = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** The Accept header of client-go's metadata client (a controller manager's garbage collector). */
const METADATA_CLIENT = `application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${LIST},application/json`;

let ts: TestServer;
let ns: string;
beforeAll(async () => {
  ts = await startServer({ dialect: 'kubernetes' });
  ns = uniqueName('pm');
  await ts.req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'one', labels: { a: 'b' } },
    data: { secret: 'not shown' },
  });
});
afterAll(() => ts?.close());

describe('PartialObjectMetadata', () => {
  it('a get answers the metadata alone', async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/one`, undefined, { accept: PARTIAL });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(PARTIAL);
    expect(r.json).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(r.json.metadata).toMatchObject({ name: 'one', namespace: ns, labels: { a: 'b' } });
    expect(r.json.data).toBeUndefined();
  });

  it("a list answers a PartialObjectMetadataList to the metadata client's Accept header", async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      accept: METADATA_CLIENT,
    });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('PartialObjectMetadataList');
    expect(r.json.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    const one = r.json.items.find((i: any) => i.metadata.name === 'one');
    expect(one).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: expect.any(Object),
    });
  });

  it('a watch sends each event object as PartialObjectMetadata, of a custom resource definition too', async () => {
    const r = await ts.req(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=true&timeoutSeconds=1',
      undefined,
      { accept: PARTIAL },
    );
    const rc = await ts.req(
      'GET',
      `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=1`,
      undefined,
      {
        accept: PARTIAL,
      },
    );
    for (const res of [r, rc]) {
      expect(res.status).toBe(200);
      const events = res.text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      for (const e of events) expect(e.object.kind, e.type).toBe('PartialObjectMetadata');
    }
    expect(rc.text).toContain('"name":"one"');
  });
});
