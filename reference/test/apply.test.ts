// Server-side apply and field ownership (doc2 "managedFields entry", "Merge strategy
// markers", "States and transitions", "Endpoints", "Errors"), end to end over HTTP. Each
// case names the spec place it checks: the row of doc2's ownership table, the item of the
// conflict-resolution list, or "beyond the text" where doc2 says "not shown" and the
// expectation is Kubernetes 1.28's documented behaviour (status codes, message formats, the
// `k:`/`v:` keys of fieldsV1, Update entries with `.` for a map they created).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { apply, entries, entry, has, JSONP, MERGE, owners, paths, RFC3339, SMP } from './apply-helpers.ts';

let ts: TestServer;
const NS = 'default';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const DEPLOYS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const PODS = `/api/v1/namespaces/${NS}/pods`;

beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

const cmIntent = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...((extra.metadata as object) ?? {}) },
  data,
});

const get = async (path: string) => {
  const r = await ts.req('GET', path);
  expect(r.status, r.text).toBe(200);
  return r.json;
};

/** A configmap created by apply of `data` as `manager`. */
async function appliedCm(manager: string, data: Record<string, string>) {
  const name = uniqueName('cm');
  const r = await apply(ts, `${CMS}/${name}`, cmIntent(name, data), { manager });
  expect(r.status, r.text).toBe(201);
  return { name, path: `${CMS}/${name}`, obj: r.json };
}

function deployment(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
      },
      ...spec,
    },
  };
}

// ---------------------------------------------------------------------------------------

describe('doc2 Endpoints: the apply request', () => {
  it('creates the object when absent (201) and records an Apply entry of the manager (MUST)', async () => {
    // doc2 Endpoints: "Result | the object is created if absent, patched otherwise";
    // the 201 is beyond the text (Kubernetes answers a creating apply with 201 Created).
    const name = uniqueName('cm');
    const r = await apply(
      ts,
      `${CMS}/${name}`,
      cmIntent(name, { a: '1' }, { metadata: { labels: { app: 'x' } } }),
      {
        manager: 'tool-a',
      },
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.data).toEqual({ a: '1' });
    expect(r.json.metadata.labels).toEqual({ app: 'x' });
    expect(r.json.metadata.uid).toBeTruthy();
    const e = entries(r.json);
    expect(e).toHaveLength(1);
    // doc2 managedFields entry: manager, operation, apiVersion, time, fieldsType, fieldsV1
    expect(e[0]).toEqual({
      manager: 'tool-a',
      operation: 'Apply',
      apiVersion: 'v1',
      time: expect.stringMatching(RFC3339),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
    });
    expect((await get(`${CMS}/${name}`)).metadata.managedFields).toEqual(r.json.metadata.managedFields);
  });

  it('patches the object when present (200); the same intent again changes nothing (beyond the text)', async () => {
    const { name, path, obj } = await appliedCm('tool-a', { a: '1' });
    const again = await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'tool-a' });
    expect(again.status, again.text).toBe(200);
    // Kubernetes keeps the entry's time when nothing else changes: a repeated apply is no write
    expect(again.json.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    expect(again.json.metadata.managedFields).toEqual(obj.metadata.managedFields);
    const changed = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'tool-a' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.data).toEqual({ a: '2' });
    expect(changed.json.metadata.resourceVersion).not.toBe(obj.metadata.resourceVersion);
  });

  it('accepts a YAML body and a JSON body with the same content type (MUST)', async () => {
    // doc2 Endpoints: "Content-Type | application/apply-patch+yaml (also for JSON bodies)"
    const name = uniqueName('cm');
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`;
    const r1 = await apply(ts, `${CMS}/${name}`, yaml, { manager: 'yaml-tool' });
    expect(r1.status, r1.text).toBe(201);
    expect(r1.json.data).toEqual({ a: '1' });
    const r2 = await apply(ts, `${CMS}/${name}`, JSON.stringify(cmIntent(name, { a: '1', b: '2' })), {
      manager: 'yaml-tool',
    });
    expect(r2.status, r2.text).toBe(200);
    expect(r2.json.data).toEqual({ a: '1', b: '2' });
  });

  it("refuses an apply without fieldManager: 422 with Kubernetes' message (MUST; code beyond the text)", async () => {
    // doc2 Endpoints: "Query fieldManager | required". Kubernetes validates PatchOptions and
    // answers 422 Invalid (`PatchOptions.meta.k8s.io "" is invalid: ...`).
    const name = uniqueName('cm');
    const r = await apply(ts, `${CMS}/${name}`, cmIntent(name, { a: '1' }));
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.message).toBe(
      'PatchOptions.meta.orch.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(r.json.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
    expect((await ts.req('GET', `${CMS}/${name}`)).status).toBe(404);
  });

  it('refuses `force` on a non-apply patch (beyond the text: 422 Forbidden)', async () => {
    const { path } = await appliedCm('tool-a', { a: '1' });
    const r = await ts.req('PATCH', `${path}?force=true`, { data: { a: '2' } }, MERGE);
    expect(r.status, r.text).toBe(422);
    expect(r.json.message).toContain('force: Forbidden: may not be specified for non-apply patch');
  });

  it('refuses an intent carrying managedFields: 400 (MUST)', async () => {
    // doc2 managedFields entry: "An apply request must not contain managedFields"
    const name = uniqueName('cm');
    for (const mf of [[], [{ manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' }]]) {
      const r = await apply(
        ts,
        `${CMS}/${name}`,
        cmIntent(name, { a: '1' }, { metadata: { managedFields: mf } }),
        { manager: 'tool-a' },
      );
      expect(r.status, r.text).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
      expect(r.json.message).toBe('metadata.managedFields must be nil');
    }
    expect((await ts.req('GET', `${CMS}/${name}`)).status).toBe(404);
  });

  it("refuses an intent without the endpoint's apiVersion and kind: 400 (MUST)", async () => {
    // doc2 Endpoints: "Body | the partial object (apiVersion, kind and wanted fields)"
    const name = uniqueName('cm');
    const cases: [unknown, string][] = [
      [{ metadata: { name }, data: { a: '1' } }, 'invalid object type: /, Kind='],
      [{ apiVersion: 'v1', kind: 'Secret', metadata: { name } }, 'invalid object type: /v1, Kind=Secret'],
      [
        { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name } },
        'invalid object type: apps/v1, Kind=ConfigMap',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await apply(ts, `${CMS}/${name}`, body, { manager: 'tool-a' });
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toBe(message);
    }
  });

  it('an intent that does not produce a valid object fails with 422 and changes nothing (MUST)', async () => {
    // doc2 Errors: "An intent that does not produce a valid object makes the request fail."
    const name = uniqueName('d');
    const bad = await apply(ts, `${DEPLOYS}/${name}`, deployment(name, { replicas: -1 }), {
      manager: 'tool-a',
    });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.json.reason).toBe('Invalid');
    expect(bad.json.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.replicas',
      message: 'Invalid value: -1: must be greater than or equal to 0',
    });
    expect((await ts.req('GET', `${DEPLOYS}/${name}`)).status).toBe(404);
    const ok = await apply(ts, `${DEPLOYS}/${name}`, deployment(name, { replicas: 2 }), {
      manager: 'tool-a',
    });
    expect(ok.status, ok.text).toBe(201);
    const again = await apply(ts, `${DEPLOYS}/${name}`, deployment(name, { replicas: -3 }), {
      manager: 'tool-a',
    });
    expect(again.status).toBe(422);
    expect((await get(`${DEPLOYS}/${name}`)).spec.replicas).toBe(2);
  });

  it('a keyed list item without its key field is refused: 400 (beyond the text)', async () => {
    const name = uniqueName('d');
    const intent = deployment(name);
    (intent.spec.template.spec as any).containers = [{ image: 'nginx' }];
    const r = await apply(ts, `${DEPLOYS}/${name}`, intent, { manager: 'tool-a' });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain(
      '.spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name"',
    );
  });

  it('dry run: nothing is persisted and the reply shows the would-be managedFields (MUST)', async () => {
    // doc1 Dry run: every stage runs except persisting; doc2: apply records ownership
    const name = uniqueName('cm');
    const created = await apply(ts, `${CMS}/${name}`, cmIntent(name, { a: '1' }), {
      manager: 'dry-tool',
      dryRun: true,
    });
    expect(created.status, created.text).toBe(201);
    expect(entry(created.json, 'dry-tool')?.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    expect((await ts.req('GET', `${CMS}/${name}`)).status).toBe(404);

    const { path, obj } = await appliedCm('owner', { a: '1' });
    const dry = await apply(ts, path, cmIntent(obj.metadata.name, { b: '2' }), {
      manager: 'dry-tool',
      dryRun: true,
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json.data).toEqual({ a: '1', b: '2' });
    expect(owners(dry.json, ['f:data', 'f:b'])).toEqual(['dry-tool/Apply']);
    const after = await get(path);
    expect(after.data).toEqual({ a: '1' });
    expect(after.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    expect(after.metadata.managedFields).toEqual(obj.metadata.managedFields);
  });
});

describe('doc2 States and transitions: the field ownership table', () => {
  it('row 1: a field owned by nobody: any write naming it makes the writer its manager (MUST)', async () => {
    // by apply
    const { obj } = await appliedCm('first', { a: '1' });
    expect(owners(obj, ['f:data', 'f:a'])).toEqual(['first/Apply']);
    // by create (POST), as an Update of the manager named by fieldManager
    const name = uniqueName('cm');
    const c = await ts.req('POST', `${CMS}?fieldManager=creator`, cmIntent(name, { a: '1' }));
    expect(c.status, c.text).toBe(201);
    expect(owners(c.json, ['f:data', 'f:a'])).toEqual(['creator/Update']);
    // by a merge patch naming a field nobody owned
    const p = await ts.req('PATCH', `${CMS}/${name}?fieldManager=patcher`, { data: { b: '2' } }, MERGE);
    expect(p.status, p.text).toBe(200);
    expect(owners(p.json, ['f:data', 'f:b'])).toEqual(['patcher/Update']);
    expect(owners(p.json, ['f:data', 'f:a'])).toEqual(['creator/Update']);
  });

  it('row 2: owned by A, B applies a different value without force: 409 Conflict; value and ownership unchanged (MUST)', async () => {
    const { name, path, obj } = await appliedCm('manager-a', { a: '1' });
    const r = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(409);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 });
    // beyond the text: Kubernetes' message and one cause per field and manager
    expect(r.json.message).toBe('Apply failed with 1 conflict: conflict with "manager-a": .data.a');
    expect(r.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.data.a' },
    ]);
    const after = await get(path);
    expect(after.data).toEqual({ a: '1' });
    expect(after.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    expect(after.metadata.managedFields).toEqual(obj.metadata.managedFields);
  });

  it('row 3: owned by A, B applies a different value with force=true: value changes, B sole manager, A loses the field (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1', keep: 'x' });
    const r = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'manager-b', force: true });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toEqual({ a: '2', keep: 'x' });
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['manager-b/Apply']);
    expect(entry(r.json, 'manager-a')?.fieldsV1).toEqual({ 'f:data': { 'f:keep': {} } });
  });

  it('row 4: owned by A, B writes a different value by PUT or non-apply PATCH: no conflict, ownership moves to B (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1', b: '1', c: '1' });
    // PUT
    const cur = await get(path);
    const put = await ts.req('PUT', `${path}?fieldManager=putter`, { ...cur, data: { ...cur.data, a: '2' } });
    expect(put.status, put.text).toBe(200);
    expect(owners(put.json, ['f:data', 'f:a'])).toEqual(['putter/Update']);
    // merge patch
    const mp = await ts.req('PATCH', `${path}?fieldManager=merger`, { data: { b: '2' } }, MERGE);
    expect(mp.status, mp.text).toBe(200);
    expect(owners(mp.json, ['f:data', 'f:b'])).toEqual(['merger/Update']);
    // JSON patch
    const jp = await ts.req(
      'PATCH',
      `${path}?fieldManager=jsoner`,
      [{ op: 'replace', path: '/data/c', value: '2' }],
      JSONP,
    );
    expect(jp.status, jp.text).toBe(200);
    expect(owners(jp.json, ['f:data', 'f:c'])).toEqual(['jsoner/Update']);
    expect(jp.json.data).toEqual({ a: '2', b: '2', c: '2' });
    // A owned only those three fields: it owns nothing now and its entry is gone
    expect(entry(jp.json, 'manager-a')).toBeUndefined();
    expect(name).toBeTruthy();
  });

  it('row 5: owned by A, B applies the same value: A and B share ownership (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1' });
    const r = await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['manager-a/Apply', 'manager-b/Apply']);
  });

  it('row 6: shared by A and B, either applies a changed value: conflict with the other (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1' });
    expect((await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-b' })).status).toBe(200);
    const byA = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'manager-a' });
    expect(byA.status, byA.text).toBe(409);
    expect(byA.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "manager-b"', field: '.data.a' },
    ]);
    const byB = await apply(ts, path, cmIntent(name, { a: '3' }), { manager: 'manager-b' });
    expect(byB.status, byB.text).toBe(409);
    expect(byB.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.data.a' },
    ]);
    expect((await get(path)).data).toEqual({ a: '1' });
  });

  it('row 7: shared, one applier omits the field: it gives up ownership, the value stays (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1', other: 'x' });
    expect((await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-b' })).status).toBe(200);
    const r = await apply(ts, path, cmIntent(name, { other: 'x' }), { manager: 'manager-a' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toEqual({ a: '1', other: 'x' });
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['manager-b/Apply']);
    expect(owners(r.json, ['f:data', 'f:other'])).toEqual(['manager-a/Apply']);
  });

  it('row 8: owned by A only, A applies without the field: the field is deleted (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1', b: '2' });
    const r = await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-a' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toEqual({ a: '1' });
    expect(entry(r.json, 'manager-a')?.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
  });

  it('row 8: owned by A only, A applies without a field that has a default: it is reset to the default (MUST)', async () => {
    const name = uniqueName('d');
    const r1 = await apply(ts, `${DEPLOYS}/${name}`, deployment(name, { replicas: 3 }), {
      manager: 'manager-a',
    });
    expect(r1.status, r1.text).toBe(201);
    expect(r1.json.spec.replicas).toBe(3);
    expect(owners(r1.json, ['f:spec', 'f:replicas'])).toEqual(['manager-a/Apply']);
    const r2 = await apply(ts, `${DEPLOYS}/${name}`, deployment(name), { manager: 'manager-a' });
    expect(r2.status, r2.text).toBe(200);
    // a Deployment's replicas default to 1 (Kubernetes' defaulting); the default is nobody's
    expect(r2.json.spec.replicas).toBe(1);
    expect(owners(r2.json, ['f:spec', 'f:replicas'])).toEqual([]);
  });

  it('row 8 does not apply to a field another manager also owns: it stays (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1', b: '2' });
    expect((await ts.req('PATCH', `${path}?fieldManager=updater`, { data: { b: '3' } }, MERGE)).status).toBe(
      200,
    );
    const r = await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-a' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toEqual({ a: '1', b: '3' });
  });

  it('row 9: an applied set shrinks: the item only that manager owned is removed, one another owns stays (MUST)', async () => {
    // metadata.finalizers is a set (listType=set)
    const name = uniqueName('cm');
    const path = `${CMS}/${name}`;
    const fin = (f: string[]) => cmIntent(name, { a: '1' }, { metadata: { finalizers: f } });
    expect(
      (await apply(ts, path, fin(['x.io/one', 'x.io/two', 'x.io/three']), { manager: 'manager-a' })).status,
    ).toBe(201);
    // B applies x.io/three too (the same item: shared)
    const shared = await apply(ts, path, cmIntent(name, {}, { metadata: { finalizers: ['x.io/three'] } }), {
      manager: 'manager-b',
    });
    expect(shared.status, shared.text).toBe(200);
    const r = await apply(ts, path, fin(['x.io/one']), { manager: 'manager-a' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['x.io/one', 'x.io/three']);
    expect(owners(r.json, ['f:metadata', 'f:finalizers', 'v:"x.io/three"'])).toEqual(['manager-b/Apply']);
    // clean up: the finalizers would hold a deletion
    await apply(ts, path, fin([]), { manager: 'manager-a' });
    await apply(ts, path, cmIntent(name, {}), { manager: 'manager-b' });
    expect((await get(path)).metadata.finalizers).toBeUndefined();
  });

  it('row 9 for keyed list items: a container the applier no longer applies is removed (MUST)', async () => {
    const name = uniqueName('d');
    const two = deployment(name);
    (two.spec.template.spec as any).containers = [
      { name: 'main', image: 'nginx:1.25' },
      { name: 'sidecar', image: 'busybox:1.36' },
    ];
    expect((await apply(ts, `${DEPLOYS}/${name}`, two, { manager: 'manager-a' })).status).toBe(201);
    const r = await apply(ts, `${DEPLOYS}/${name}`, deployment(name), { manager: 'manager-a' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['main']);
  });

  // rows 10 and 11 (a field's topology changed by a schema change): apply-custom.test.ts
});

describe('doc2 States and transitions: conflict resolution by the applier', () => {
  it('(1) overwrite with force=true and become sole manager (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1' });
    expect((await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-c' })).status).toBe(200);
    const r = await apply(ts, path, cmIntent(name, { a: '9' }), { manager: 'manager-b', force: true });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.a).toBe('9');
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['manager-b/Apply']);
    // A and C owned nothing else: their entries are gone
    expect(entries(r.json).map((e) => e.manager)).toEqual(['manager-b']);
  });

  it('(2) drop the field from its own intent: no conflict, the value stays with its owner (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1' });
    const conflict = await apply(ts, path, cmIntent(name, { a: '2', b: '1' }), { manager: 'manager-b' });
    expect(conflict.status).toBe(409);
    const r = await apply(ts, path, cmIntent(name, { b: '1' }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toEqual({ a: '1', b: '1' });
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['manager-a/Apply']);
  });

  it('(3) change its intent to the server value: it becomes a shared owner (MUST)', async () => {
    const { name, path } = await appliedCm('manager-a', { a: '1' });
    expect((await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'manager-b' })).status).toBe(409);
    const r = await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['manager-a/Apply', 'manager-b/Apply']);
  });

  it('a conflict with an Update manager names its apiVersion; several are listed per manager (beyond the text)', async () => {
    const name = uniqueName('cm');
    const path = `${CMS}/${name}`;
    expect(
      (await ts.req('POST', `${CMS}?fieldManager=kubectl-create`, cmIntent(name, { a: '1', b: '1' }))).status,
    ).toBe(201);
    const one = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'ssa' });
    expect(one.status).toBe(409);
    expect(one.json.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a',
    );
    expect(one.json.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-create" using v1',
        field: '.data.a',
      },
    ]);
    expect((await apply(ts, path, cmIntent(name, { c: '1' }), { manager: 'applier-x' })).status).toBe(200);
    const three = await apply(ts, path, cmIntent(name, { a: '2', b: '2', c: '2' }), { manager: 'ssa' });
    expect(three.status).toBe(409);
    expect(three.json.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "applier-x":\n- .data.c\n' +
        'conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b',
    );
    expect(three.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "applier-x"', field: '.data.c' },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-create" using v1',
        field: '.data.a',
      },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-create" using v1',
        field: '.data.b',
      },
    ]);
  });
});

describe('doc2 States and transitions: managers and hand-offs', () => {
  it('a temporary manager that owns no fields is removed automatically (MUST)', async () => {
    const { name, path } = await appliedCm('temp', { a: '1' });
    const r = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'keeper', force: true });
    expect(entries(r.json).map((e) => e.manager)).toEqual(['keeper']);
    // an apply of nothing but the object's identity owns nothing: no entry at all
    const empty = await apply(ts, path, cmIntent(name, {}), { manager: 'nothing' });
    expect(empty.status, empty.text).toBe(200);
    expect(entry(empty.json, 'nothing')).toBeUndefined();
  });

  it('hand-off between managers: both set the same value, then one drops it (MUST)', async () => {
    const { name, path } = await appliedCm('old-owner', { a: '1', x: 'x' });
    expect((await apply(ts, path, cmIntent(name, { a: '1' }), { manager: 'new-owner' })).status).toBe(200);
    const r = await apply(ts, path, cmIntent(name, { x: 'x' }), { manager: 'old-owner' });
    expect(r.status).toBe(200);
    expect(r.json.data.a).toBe('1');
    expect(owners(r.json, ['f:data', 'f:a'])).toEqual(['new-owner/Apply']);
    // the new owner may now change it without conflict
    const next = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'new-owner' });
    expect(next.status, next.text).toBe(200);
  });

  it('hand-off from a user to a controller through a private manager name (MUST)', async () => {
    const name = uniqueName('d');
    const path = `${DEPLOYS}/${name}`;
    expect((await apply(ts, path, deployment(name, { replicas: 2 }), { manager: 'kubectl' })).status).toBe(
      201,
    );
    // apply only the field with a private manager name
    const handover = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 2 },
    };
    expect((await apply(ts, path, handover, { manager: 'handover-to-hpa' })).status).toBe(200);
    // then remove it from the main intent: the value stays
    const main = await apply(ts, path, deployment(name), { manager: 'kubectl' });
    expect(main.status, main.text).toBe(200);
    expect(main.json.spec.replicas).toBe(2);
    expect(owners(main.json, ['f:spec', 'f:replicas'])).toEqual(['handover-to-hpa/Apply']);
    // the controller writes the field (scale subresource): ownership moves, the private manager is gone
    const scale = await ts.req(
      'PATCH',
      `${path}/scale?fieldManager=hpa-controller`,
      { spec: { replicas: 5 } },
      MERGE,
    );
    expect(scale.status, scale.text).toBe(200);
    const after = await get(path);
    expect(after.spec.replicas).toBe(5);
    expect(owners(after, ['f:spec', 'f:replicas'])).toEqual(['hpa-controller/Update']);
    expect(entry(after, 'hpa-controller', 'Update', 'scale')).toMatchObject({ apiVersion: 'apps/v1' });
    expect(entry(after, 'handover-to-hpa')).toBeUndefined();
    // the user's main intent, without replicas, no longer touches it
    const again = await apply(ts, path, deployment(name), { manager: 'kubectl' });
    expect(again.status, again.text).toBe(200);
    expect(again.json.spec.replicas).toBe(5);
  });
});

describe('doc2: ownership recorded by every write (non-apply writes are Update operations)', () => {
  it('create records the fields the creator set; a map it created is owned with `.` (beyond the text)', async () => {
    const name = uniqueName('cm');
    const r = await ts.req(
      'POST',
      `${CMS}?fieldManager=kubectl-create`,
      cmIntent(name, { a: '1' }, { metadata: { labels: { app: 'x' } } }),
    );
    expect(r.status, r.text).toBe(201);
    expect(entries(r.json)).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.stringMatching(RFC3339),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:a': {} },
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        },
      },
    ]);
  });

  it('a created Deployment: `.` on the maps, lists and structs the create made, none on those always present (beyond the text)', async () => {
    // Kubernetes compares a create with the kind's zero value, where spec, spec.strategy,
    // spec.template and its metadata and spec exist (not pointers) and containers is null
    const name = uniqueName('d');
    const d = deployment(name, { replicas: 1 });
    (d.spec.template.spec as any).containers = [
      { name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] },
    ];
    const r = await ts.req('POST', `${DEPLOYS}?fieldManager=kubectl-create`, d);
    expect(r.status, r.text).toBe(201);
    const spec = (entry(r.json, 'kubectl-create', 'Update')!.fieldsV1 as any)['f:spec'];
    expect(Object.keys(spec)).not.toContain('.');
    expect(spec['f:selector']).toEqual({});
    expect(Object.keys(spec['f:strategy'])).not.toContain('.');
    expect(spec['f:strategy']['f:rollingUpdate']).toEqual({
      '.': {},
      'f:maxSurge': {},
      'f:maxUnavailable': {},
    });
    expect(Object.keys(spec['f:template'])).not.toContain('.');
    expect(spec['f:template']['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    const containers = spec['f:template']['f:spec']['f:containers'];
    expect(Object.keys(containers)).toEqual(['k:{"name":"web"}']);
    expect(containers['k:{"name":"web"}']['.']).toEqual({});
    expect(containers['k:{"name":"web"}']['f:ports']).toEqual({
      '.': {},
      'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
    });
  });

  it('values the server fills in at create (not defaults) are owned by nobody (beyond the text)', async () => {
    // Kubernetes: a namespace's finalizers (its strategy) and a pod's service account (an
    // admission plugin) are set after ownership is recorded
    const ns = uniqueName('ns');
    const r = await ts.req(
      'POST',
      '/api/v1/namespaces',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      {
        'user-agent': 'kubectl/v1.28.0 (linux/amd64) kubernetes/abcdef',
      },
    );
    expect(r.status, r.text).toBe(201);
    expect(entries(r.json)).toEqual([
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.stringMatching(RFC3339),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:orch.io/metadata.name': {} } } },
      },
    ]);
    const name = uniqueName('p');
    const p = await ts.req('POST', `${PODS}?fieldManager=creator`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] },
    });
    expect(p.status, p.text).toBe(201);
    expect(p.json.spec.serviceAccountName).toBe('default');
    expect(owners(p.json, ['f:spec', 'f:serviceAccountName'])).toEqual([]);
    expect(owners(p.json, ['f:spec', 'f:dnsPolicy'])).toEqual(['creator/Update']);
  });

  it('the manager comes from fieldManager, else from the User-Agent up to its first "/" (MUST)', async () => {
    // doc2 Endpoints: "the server infers the manager from the User-Agent header when present"
    const n1 = uniqueName('cm');
    const r1 = await ts.req('POST', CMS, cmIntent(n1, { a: '1' }), {
      'user-agent': 'my-tool/1.2.3 (linux/amd64) orch/abcdef',
    });
    expect(r1.status, r1.text).toBe(201);
    expect(entries(r1.json).map((e) => e.manager)).toEqual(['my-tool']);
    const n2 = uniqueName('cm');
    const r2 = await ts.req('POST', `${CMS}?fieldManager=explicit`, cmIntent(n2, { a: '1' }), {
      'user-agent': 'my-tool/1.2.3',
    });
    expect(entries(r2.json).map((e) => e.manager)).toEqual(['explicit']);
    const p = await ts.req(
      'PATCH',
      `${CMS}/${n1}`,
      { data: { b: '2' } },
      { ...MERGE, 'user-agent': 'other-agent/9' },
    );
    expect(owners(p.json, ['f:data', 'f:b'])).toEqual(['other-agent/Update']);
  });

  it('Update entries of the same manager and apiVersion are one entry (beyond the text)', async () => {
    const name = uniqueName('cm');
    const path = `${CMS}/${name}`;
    expect((await ts.req('POST', `${CMS}?fieldManager=writer`, cmIntent(name, { a: '1' }))).status).toBe(201);
    const r = await ts.req('PATCH', `${path}?fieldManager=writer`, { data: { b: '2' } }, MERGE);
    expect(r.status, r.text).toBe(200);
    const mine = entries(r.json).filter((e) => e.manager === 'writer');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } });
  });

  it('managedFields and server-set metadata are never owned (MUST)', async () => {
    const name = uniqueName('cm');
    const r = await ts.req('POST', `${CMS}?fieldManager=creator`, cmIntent(name, { a: '1' }));
    const all = entries(r.json).flatMap((e) => paths(e.fieldsV1));
    for (const f of [
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'generation',
      'managedFields',
      'name',
      'namespace',
    ])
      expect(all).not.toContain(`f:metadata f:${f}`);
    expect(all).not.toContain('f:apiVersion');
    expect(all).not.toContain('f:kind');
    // a PUT sending the managedFields it read does not make them owned either
    const cur = await get(`${CMS}/${name}`);
    const put = await ts.req('PUT', `${CMS}/${name}?fieldManager=putter`, { ...cur, data: { a: '2' } });
    expect(put.status, put.text).toBe(200);
    for (const e of entries(put.json))
      expect(paths(e.fieldsV1).some((p) => p.includes('managedFields'))).toBe(false);
  });

  it('status of a kind with a status subresource is owned by nobody through the main resource (beyond the text)', async () => {
    const name = uniqueName('d');
    const intent = { ...deployment(name), status: { replicas: 7 } };
    const r = await apply(ts, `${DEPLOYS}/${name}`, intent, { manager: 'tool-a' });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status?.replicas).toBeUndefined();
    for (const e of entries(r.json)) expect(Object.keys(e.fieldsV1)).not.toContain('f:status');
  });

  it('a strategic merge patch still merges by key, and records an Update (MUST: unchanged)', async () => {
    const name = uniqueName('d');
    const path = `${DEPLOYS}/${name}`;
    expect((await apply(ts, path, deployment(name), { manager: 'applier' })).status).toBe(201);
    const patch = { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.26' }] } } } };
    const r = await ts.req('PATCH', `${path}?fieldManager=smp`, patch, SMP);
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.template.spec.containers).toHaveLength(1);
    expect(r.json.spec.template.spec.containers[0].image).toBe('nginx:1.26');
    const img = ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"main"}', 'f:image'];
    expect(owners(r.json, img)).toEqual(['smp/Update']);
  });
});

describe('doc2 managedFields entry: clearing', () => {
  it('[{}] through a merge patch resets ownership: nothing is owned afterwards (MUST)', async () => {
    const { path } = await appliedCm('manager-a', { a: '1' });
    const r = await ts.req(
      'PATCH',
      `${path}?fieldManager=resetter`,
      { metadata: { managedFields: [{}] } },
      MERGE,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.managedFields).toBeUndefined();
    expect((await get(path)).metadata.managedFields).toBeUndefined();
  });

  it('[{}] with other changes: the reset comes first, then the writer owns what it changed (MUST)', async () => {
    const { path } = await appliedCm('manager-a', { a: '1' });
    const r = await ts.req(
      'PATCH',
      `${path}?fieldManager=resetter`,
      { metadata: { managedFields: [{}], labels: { l: 'v' } } },
      MERGE,
    );
    expect(r.status, r.text).toBe(200);
    expect(entries(r.json)).toHaveLength(1);
    expect(entry(r.json, 'resetter', 'Update')?.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } },
    });
  });

  it('[{}] through a JSON patch replace and through PUT resets too (MUST)', async () => {
    const a = await appliedCm('manager-a', { a: '1' });
    const jp = await ts.req(
      'PATCH',
      a.path,
      [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }],
      JSONP,
    );
    expect(jp.status, jp.text).toBe(200);
    expect(jp.json.metadata.managedFields).toBeUndefined();
    const b = await appliedCm('manager-a', { a: '1' });
    const cur = await get(b.path);
    const put = await ts.req('PUT', b.path, { ...cur, metadata: { ...cur.metadata, managedFields: [{}] } });
    expect(put.status, put.text).toBe(200);
    expect(put.json.metadata.managedFields).toBeUndefined();
  });

  it('[] does not reset (deliberately) (MUST)', async () => {
    const { path, obj } = await appliedCm('manager-a', { a: '1' });
    const r = await ts.req(
      'PATCH',
      `${path}?fieldManager=clearer`,
      { metadata: { managedFields: [] } },
      MERGE,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.managedFields).toEqual(obj.metadata.managedFields);
    const cur = await get(path);
    const put = await ts.req('PUT', `${path}?fieldManager=clearer`, {
      ...cur,
      metadata: { ...cur.metadata, managedFields: [] },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.metadata.managedFields).toEqual(obj.metadata.managedFields);
  });

  it("after a reset the fields are owned by nobody: another manager's apply of a new value succeeds and owns them (MUST)", async () => {
    // doc2 table, row 1: "Field owned by nobody | any write naming it | none | writer becomes
    // manager". (Kubernetes' implementation first hands such fields to an Update manager
    // `before-first-apply`, which would make this apply conflict; the text does not.)
    const { name, path } = await appliedCm('manager-a', { a: '1', b: '1' });
    await ts.req('PATCH', path, { metadata: { managedFields: [{}] } }, MERGE);
    const r = await apply(ts, path, cmIntent(name, { a: '2' }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toEqual({ a: '2', b: '1' });
    expect(entries(r.json)).toHaveLength(1);
    expect(entry(r.json, 'manager-b')?.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
  });
});

describe('doc2 Merge strategy markers on built-in kinds', () => {
  it('containers are keyed by name: two appliers each own their container (MUST)', async () => {
    const name = uniqueName('d');
    const path = `${DEPLOYS}/${name}`;
    expect((await apply(ts, path, deployment(name), { manager: 'manager-a' })).status).toBe(201);
    const sidecar = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:1.36' }] } } },
    };
    const r = await apply(ts, path, sidecar, { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['main', 'sidecar']);
    const c = (n: string) => ['f:spec', 'f:template', 'f:spec', 'f:containers', `k:{"name":"${n}"}`];
    expect(owners(r.json, c('main'))).toEqual(['manager-a/Apply']);
    expect(owners(r.json, c('sidecar'))).toEqual(['manager-b/Apply']);
    // changing the other's container is a conflict on that item's field
    const steal = structuredClone(sidecar);
    steal.spec.template.spec.containers = [{ name: 'main', image: 'nginx:1.27' }];
    const x = await apply(ts, path, steal, { manager: 'manager-b' });
    expect(x.status, x.text).toBe(409);
    expect(x.json.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "manager-a"',
        field: '.spec.template.spec.containers[name="main"].image',
      },
    ]);
  });

  it('ports are keyed by containerPort and protocol (protocol defaults to TCP) (MUST)', async () => {
    const name = uniqueName('d');
    const path = `${DEPLOYS}/${name}`;
    const withPorts = (ports: unknown[]) => {
      const d = deployment(name);
      (d.spec.template.spec as any).containers = [{ name: 'main', image: 'nginx:1.25', ports }];
      return d;
    };
    expect((await apply(ts, path, withPorts([{ containerPort: 53 }]), { manager: 'manager-a' })).status).toBe(
      201,
    );
    const r = await apply(ts, path, withPorts([{ containerPort: 53, protocol: 'UDP' }]), {
      manager: 'manager-b',
    });
    expect(r.status, r.text).toBe(200);
    const ports = r.json.spec.template.spec.containers[0].ports;
    expect(ports).toEqual([
      { containerPort: 53, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
    const p = (key: string) => [
      'f:spec',
      'f:template',
      'f:spec',
      'f:containers',
      'k:{"name":"main"}',
      'f:ports',
      key,
    ];
    expect(owners(r.json, p('k:{"containerPort":53,"protocol":"TCP"}'))).toEqual(['manager-a/Apply']);
    expect(owners(r.json, p('k:{"containerPort":53,"protocol":"UDP"}'))).toEqual(['manager-b/Apply']);
  });

  it("exact fieldsV1: a keyed list item, a set value and a nested map (beyond the text: Kubernetes' keys)", async () => {
    // doc2: "Key formats inside fieldsV1 for list and set items: not shown" — Kubernetes writes
    // `k:<JSON of the key fields>` for a keyed item, `v:<JSON value>` for a set value, and `.`
    // inside a node that is owned itself and has owned children.
    const name = uniqueName('p');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: 'web', tier: 'front' }, finalizers: ['example.com/hold'] },
      spec: {
        containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }] }],
      },
    };
    const r = await apply(ts, `${PODS}/${name}`, pod, { manager: 'pod-tool' });
    expect(r.status, r.text).toBe(201);
    expect(entries(r.json)).toEqual([
      {
        manager: 'pod-tool',
        operation: 'Apply',
        apiVersion: 'v1',
        time: expect.stringMatching(RFC3339),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': {
            'f:finalizers': { 'v:"example.com/hold"': {} },
            'f:labels': { 'f:app': {}, 'f:tier': {} },
          },
          'f:spec': {
            'f:containers': {
              'k:{"name":"web"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': {
                  'k:{"containerPort":80,"protocol":"TCP"}': {
                    '.': {},
                    'f:containerPort': {},
                    'f:protocol': {},
                  },
                },
              },
            },
          },
        },
      },
    ]);
    // release the finalizer so the pod is not held
    const rel = await apply(
      ts,
      `${PODS}/${name}`,
      { ...pod, metadata: { ...pod.metadata, finalizers: [] } },
      {
        manager: 'pod-tool',
      },
    );
    expect(rel.status, rel.text).toBe(200);
    expect(rel.json.metadata.finalizers).toBeUndefined();
  });

  it('an atomic struct (a Deployment selector) is owned whole and conflicts whole (MUST)', async () => {
    const name = uniqueName('d');
    const path = `${DEPLOYS}/${name}`;
    const r = await apply(ts, path, deployment(name), { manager: 'manager-a' });
    expect(r.status).toBe(201);
    expect(entry(r.json, 'manager-a')!.fieldsV1).toMatchObject({ 'f:spec': { 'f:selector': {} } });
    expect(has(entry(r.json, 'manager-a')!.fieldsV1, ['f:spec', 'f:selector'])).toBe(true);
  });
});

describe('doc2 Endpoints: status subresource', () => {
  it('an apply to status changes status only and records `subresource: status` (MUST)', async () => {
    const name = uniqueName('d');
    const path = `${DEPLOYS}/${name}`;
    expect((await apply(ts, path, deployment(name, { replicas: 2 }), { manager: 'user' })).status).toBe(201);
    const intent = { ...deployment(name, { replicas: 9 }), status: { replicas: 2, readyReplicas: 1 } };
    const r = await apply(ts, path, intent, { manager: 'status-writer', subresource: 'status' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toMatchObject({ replicas: 2, readyReplicas: 1 });
    expect(r.json.spec.replicas).toBe(2);
    expect(entry(r.json, 'status-writer', 'Apply', 'status')).toEqual({
      manager: 'status-writer',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: expect.stringMatching(RFC3339),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:readyReplicas': {}, 'f:replicas': {} } },
      subresource: 'status',
    });
    expect(entry(r.json, 'status-writer', 'Apply')).toBeUndefined();
  });

  it('an apply to the status of a missing object is a 404 (beyond the text)', async () => {
    const name = uniqueName('d');
    const r = await apply(ts, `${DEPLOYS}/${name}`, deployment(name), {
      manager: 'x',
      subresource: 'status',
    });
    expect(r.status, r.text).toBe(404);
  });

  it('a PUT to status records an Update entry with `subresource: status` (MUST)', async () => {
    const name = uniqueName('p');
    const c = await ts.req('POST', `${PODS}?fieldManager=creator`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] },
    });
    expect(c.status, c.text).toBe(201);
    const put = await ts.req('PUT', `${PODS}/${name}/status?fieldManager=agent`, {
      ...c.json,
      status: { ...c.json.status, phase: 'Running' },
    });
    expect(put.status, put.text).toBe(200);
    expect(entry(put.json, 'agent', 'Update', 'status')?.fieldsV1).toEqual({ 'f:status': { 'f:phase': {} } });
  });
});

describe('beyond the text: Update managers past ten are merged into "ancient-changes"', () => {
  it('keeps at most ten Update entries', async () => {
    const name = uniqueName('cm');
    const path = `${CMS}/${name}`;
    expect((await ts.req('POST', `${CMS}?fieldManager=m0`, cmIntent(name, { k0: '0' }))).status).toBe(201);
    let last: any;
    for (let i = 1; i <= 11; i++) {
      last = await ts.req('PATCH', `${path}?fieldManager=m${i}`, { data: { [`k${i}`]: String(i) } }, MERGE);
      expect(last.status, last.text).toBe(200);
    }
    const updates = entries(last.json).filter((e) => e.operation === 'Update');
    expect(updates.length).toBe(10);
    expect(updates.some((e) => e.manager === 'ancient-changes')).toBe(true);
    // every field is still owned by someone
    for (let i = 0; i <= 11; i++) expect(owners(last.json, ['f:data', `f:k${i}`]).length).toBe(1);
  });
});
