// The CSI kinds of storage.orch.io/v1 (CSIDriver, CSINode, CSIStorageCapacity,
// VolumeAttachment): discovery and table columns as a Kubernetes 1.28 server lists them, and
// 1.28's defaults, validation and immutable fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, readFact } from './k8s-facts.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

const G = '/apis/storage.orch.io/v1';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];
const cause = (r: { json: any }, field: string, text: string) =>
  causesOf(r).find((c) => c.field === field && c.message.includes(text));

async function namespace(): Promise<string> {
  const ns = uniqueName('csi');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  return ns;
}

describe('discovery of storage.orch.io/v1 as Kubernetes 1.28 lists it', () => {
  const facts = (readFact('discovery.json') as any).resources['storage.k8s.io/v1'] as any[];
  for (const name of [
    'csidrivers',
    'csinodes',
    'csistoragecapacities',
    'volumeattachments',
    'volumeattachments/status',
  ])
    it(name, async () => {
      const r = await ts.req('GET', G);
      expect(r.status).toBe(200);
      const want = facts.find((x) => x.name === name);
      const got = r.json.resources.find((x: any) => x.name === name);
      expect(want, `discovery.json lists ${name}`).toBeDefined();
      expect(got, name).toBeDefined();
      expectResourceAsFact(got, want);
    });
});

const driver = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'storage.orch.io/v1',
  kind: 'CSIDriver',
  metadata: { name },
  spec,
});

describe('CSIDriver', () => {
  const PATH = `${G}/csidrivers`;

  it('an empty spec gets 1.28 defaults; no generation until a mutable field changes', async () => {
    const name = `${uniqueName('drv')}.example.com`;
    const c = await ts.req('POST', PATH, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'CSIDriver',
      metadata: { name },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false,
      seLinuxMount: false,
    });
    expect(c.json.metadata.generation).toBeUndefined();
    const u = await ts.req('PUT', `${PATH}/${name}`, {
      ...c.json,
      spec: {
        ...c.json.spec,
        requiresRepublish: true,
        storageCapacity: true,
        tokenRequests: [{ audience: 'a' }],
      },
    });
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec).toMatchObject({ requiresRepublish: true, storageCapacity: true });
    expect(u.json.metadata.generation).toBe(1);
  });

  it('names are driver names: 63 characters at most, upper case allowed', async () => {
    const upper = await ts.req('POST', PATH, driver(`Drv-${uniqueName('x')}.Example.COM`));
    expect(upper.status, upper.text).toBe(201);
    const long = await ts.req('POST', PATH, driver(`${'a'.repeat(64)}`));
    expect(long.status).toBe(422);
    expect(cause(long, 'name', 'Too long: may not be longer than 63')?.reason).toBe('FieldValueTooLong');
    const bad = await ts.req('POST', PATH, driver('-bad-'));
    expect(cause(bad, 'name', 'a lowercase RFC 1123 subdomain must consist of')).toBeDefined();
  });

  it('refuses unknown modes and policies, repeated audiences and short or long token lifetimes', async () => {
    const r = await ts.req(
      'POST',
      PATH,
      driver(uniqueName('drv'), {
        volumeLifecycleModes: ['Persistent', 'Sometimes'],
        fsGroupPolicy: 'Always',
        tokenRequests: [
          { audience: 'a', expirationSeconds: 60 },
          { audience: 'a' },
          { audience: 'b', expirationSeconds: 2 ** 32 + 1 },
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(
      cause(
        r,
        'spec.volumeLifecycleModes',
        'Unsupported value: "Sometimes": supported values: "Persistent", "Ephemeral"',
      ),
    ).toBeDefined();
    expect(
      cause(
        r,
        'spec.fsGroupPolicy',
        'Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"',
      ),
    ).toBeDefined();
    expect(
      cause(r, 'spec.tokenRequests[0].expirationSeconds', 'may not specify a duration less than 10 minutes'),
    ).toBeDefined();
    expect(cause(r, 'spec.tokenRequests[1].audience', 'Duplicate value: "a"')?.reason).toBe(
      'FieldValueDuplicate',
    );
    expect(
      cause(
        r,
        'spec.tokenRequests[2].expirationSeconds',
        'may not specify a duration larger than 2^32 seconds',
      ),
    ).toBeDefined();
  });

  it('attachRequired (named attachedRequired in errors), podInfoOnMount, fsGroupPolicy and modes never change', async () => {
    const name = uniqueName('drv');
    const c = await ts.req('POST', PATH, driver(name));
    expect(c.status).toBe(201);
    const u = await ts.req('PUT', `${PATH}/${name}`, {
      ...c.json,
      spec: {
        ...c.json.spec,
        attachRequired: false,
        podInfoOnMount: true,
        fsGroupPolicy: 'File',
        volumeLifecycleModes: ['Ephemeral'],
      },
    });
    expect(u.status).toBe(422);
    expect(cause(u, 'spec.attachedRequired', 'Invalid value: false: field is immutable')).toBeDefined();
    expect(cause(u, 'spec.podInfoOnMount', 'Invalid value: true: field is immutable')).toBeDefined();
    expect(cause(u, 'spec.fsGroupPolicy', 'Invalid value: "File": field is immutable')).toBeDefined();
    expect(
      cause(
        u,
        'spec.volumeLifecycleModes',
        'Invalid value: []storage.VolumeLifecycleMode{"Ephemeral"}: field is immutable',
      ),
    ).toBeDefined();
  });

  it('prints the columns of table-columns.json with their cells', async () => {
    const name = uniqueName('drv');
    await ts.req(
      'POST',
      PATH,
      driver(name, {
        tokenRequests: [{ audience: 'x' }, { audience: 'y' }],
        volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      }),
    );
    const t = await ts.req('GET', `${PATH}/${name}`, undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((c: any) => c.name)).toEqual(
      columnsOf('storage.orch.io', 'v1', 'csidrivers').map((c) => c.name),
    );
    expect(t.json.rows[0].cells.slice(0, 7)).toEqual([
      name,
      true,
      false,
      false,
      'x,y',
      false,
      'Persistent,Ephemeral',
    ]);
    const plain = uniqueName('drv');
    await ts.req('POST', PATH, driver(plain));
    const t2 = await ts.req('GET', `${PATH}/${plain}`, undefined, { accept: TABLE });
    expect(t2.json.rows[0].cells[4]).toBe('<unset>');
  });
});

const csiNode = (name: string, drivers: unknown[]) => ({
  apiVersion: 'storage.orch.io/v1',
  kind: 'CSINode',
  metadata: { name },
  spec: { drivers },
});

describe('CSINode', () => {
  const PATH = `${G}/csinodes`;

  it('drivers have unique names, a node ID of at most 256 characters and distinct qualified topology keys', async () => {
    const r = await ts.req(
      'POST',
      PATH,
      csiNode(uniqueName('node'), [
        { name: 'a.example.com', nodeID: 'n1', topologyKeys: ['zone', 'zone', 'bad key'] },
        { name: 'a.example.com', nodeID: 'x'.repeat(257) },
        { name: 'b.example.com', nodeID: '', allocatable: { count: -1 } },
      ]),
    );
    expect(r.status).toBe(422);
    expect(cause(r, 'spec.drivers[0]', 'Duplicate value: "zone"')).toBeDefined();
    expect(cause(r, 'spec.drivers[0]', 'Invalid value: "bad key"')).toBeDefined();
    expect(cause(r, 'spec.drivers[1].name', 'Duplicate value: "a.example.com"')).toBeDefined();
    expect(cause(r, 'spec.drivers[1].nodeID', 'must be 256 characters or less')).toBeDefined();
    expect(cause(r, 'spec.drivers[2].nodeID', 'Required value')).toBeDefined();
    expect(cause(r, 'spec.drivers[2].allocatable.count', 'must be greater than or equal to 0')).toBeDefined();
  });

  it('a node without drivers is valid; a listed driver may be dropped or added, not changed', async () => {
    const name = uniqueName('node');
    const empty = await ts.req('POST', PATH, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'CSINode',
      metadata: { name },
    });
    expect(empty.status, empty.text).toBe(201);
    const add = await ts.req('PUT', `${PATH}/${name}`, {
      ...empty.json,
      spec: {
        drivers: [{ name: 'a.example.com', nodeID: 'n1', topologyKeys: ['topology.example.com/zone'] }],
      },
    });
    expect(add.status, add.text).toBe(200);
    const change = await ts.req('PUT', `${PATH}/${name}`, {
      ...add.json,
      spec: {
        drivers: [{ name: 'a.example.com', nodeID: 'n2', topologyKeys: ['topology.example.com/zone'] }],
      },
    });
    expect(change.status).toBe(422);
    const c = cause(change, 'CSINodeDriver', 'field is immutable');
    expect(c?.message).toContain('storage.CSINodeDriver{Name:"a.example.com", NodeID:"n2"');
    const drop = await ts.req('PUT', `${PATH}/${name}`, { ...add.json, spec: { drivers: [] } });
    expect(drop.status, drop.text).toBe(200);
    const t = await ts.req('GET', `${PATH}/${name}`, undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Drivers', 'Age']);
    expect(t.json.rows[0].cells.slice(0, 2)).toEqual([name, 0]);
  });

  it('the name is a node name (a DNS subdomain)', async () => {
    const r = await ts.req('POST', PATH, csiNode('Not_A_Node', []));
    expect(r.status).toBe(422);
    expect(cause(r, 'metadata.name', 'a lowercase RFC 1123 subdomain')).toBeDefined();
  });
});

describe('CSIStorageCapacity', () => {
  it('is namespaced; needs a class name; capacities are canonical quantities, not negative; class and topology never change', async () => {
    const ns = await namespace();
    const path = `${G}/namespaces/${ns}/csistoragecapacities`;
    const none = await ts.req('POST', path, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: 'c0' },
    });
    expect(none.status).toBe(422);
    expect(cause(none, 'storageClassName', 'a lowercase RFC 1123 subdomain')).toBeDefined();
    const neg = await ts.req('POST', path, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: 'c1' },
      storageClassName: 'fast',
      capacity: '-1Gi',
      nodeTopology: {
        matchExpressions: [
          { key: 'zone', operator: 'Near' },
          { key: 'rack', operator: 'In', values: ['ok', 'not ok'] },
        ],
      },
    });
    expect(neg.status).toBe(422);
    expect(cause(neg, 'capacity', 'must be greater than or equal to 0')).toBeDefined();
    expect(
      cause(neg, 'nodeTopology.matchExpressions[0].operator', 'not a valid selector operator'),
    ).toBeDefined();
    expect(cause(neg, 'nodeTopology.matchExpressions[1].values[1]', 'Invalid value: "not ok"')).toBeDefined();
    expect(causesOf(neg).some((c) => c.field === 'nodeTopology.matchExpressions[1].values[0]')).toBe(false);
    const c = await ts.req('POST', path, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: 'c2' },
      storageClassName: 'fast',
      capacity: '1024Mi',
      maximumVolumeSize: '2048Mi',
      nodeTopology: { matchLabels: { zone: 'a' } },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({ capacity: '1Gi', maximumVolumeSize: '2Gi' });
    expect(c.json.metadata.namespace).toBe(ns);
    const u = await ts.req('PUT', `${path}/c2`, {
      ...c.json,
      storageClassName: 'slow',
      nodeTopology: { matchLabels: { zone: 'b' } },
      capacity: '3Gi',
    });
    expect(u.status).toBe(422);
    expect(cause(u, 'storageClassName', 'Invalid value: "slow": field is immutable')).toBeDefined();
    expect(
      cause(
        u,
        'nodeTopology',
        'v1.LabelSelector{MatchLabels:map[string]string{"zone":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
      ),
    ).toBeDefined();
    const grow = await ts.req('PUT', `${path}/c2`, { ...c.json, capacity: '3Gi' });
    expect(grow.status, grow.text).toBe(200);
    const t = await ts.req('GET', path, undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((x: any) => x.name)).toEqual(['Name', 'Created At']);
  });
});

const attachment = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'storage.orch.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name },
  spec,
});

describe('VolumeAttachment', () => {
  const PATH = `${G}/volumeattachments`;

  it('needs an attacher that is a driver name, a node name and exactly one source', async () => {
    const none = await ts.req('POST', PATH, attachment(uniqueName('va'), { source: {} }));
    expect(none.status).toBe(422);
    expect(cause(none, 'spec.attacher', 'Required value')).toBeDefined();
    expect(
      cause(
        none,
        'spec.source',
        'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
      ),
    ).toBeDefined();
    expect(cause(none, 'spec.nodeName', 'Invalid value: "": a lowercase RFC 1123 subdomain')).toBeDefined();
    const both = await ts.req(
      'POST',
      PATH,
      attachment(uniqueName('va'), {
        attacher: 'Bad_Driver',
        nodeName: 'node-1',
        source: {
          persistentVolumeName: 'pv',
          inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h' } },
        },
      }),
    );
    expect(
      cause(
        both,
        'spec.source',
        'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
      ),
    ).toBeDefined();
    expect(cause(both, 'spec.attacher', 'Invalid value: "Bad_Driver"')).toBeDefined();
    const inline = await ts.req(
      'POST',
      PATH,
      attachment(uniqueName('va'), {
        attacher: 'csi.example.com',
        nodeName: 'node-1',
        source: {
          inlineVolumeSpec: {
            capacity: { storage: '1Gi' },
            accessModes: ['ReadWriteOnce'],
            hostPath: { path: '/x' },
          },
        },
      }),
    );
    expect(inline.status).toBe(422);
    expect(
      cause(
        inline,
        'spec.source.inlineVolumeSpec.capacity',
        'may not be specified in the context of inline volumes',
      ),
    ).toBeDefined();
    expect(
      cause(
        inline,
        'spec.source.inlineVolumeSpec.csi',
        'has to be specified in the context of inline volumes',
      ),
    ).toBeDefined();
  });

  it('a create starts with attached false; the status subresource writes status; the spec never changes', async () => {
    const name = uniqueName('va');
    const c = await ts.req('POST', PATH, {
      ...attachment(name, {
        attacher: 'csi.example.com',
        nodeName: 'node-1',
        source: { persistentVolumeName: 'pv-1' },
      }),
      status: { attached: true },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.status).toEqual({ attached: false });
    const main = await ts.req('PUT', `${PATH}/${name}`, { ...c.json, status: { attached: true } });
    expect(main.status, main.text).toBe(200);
    expect(main.json.status).toEqual({ attached: false });
    const st = await ts.req('PUT', `${PATH}/${name}/status`, {
      ...c.json,
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/sdb' } },
    });
    expect(st.status, st.text).toBe(200);
    expect(st.json.status).toEqual({ attached: true, attachmentMetadata: { devicePath: '/dev/sdb' } });
    const tooLong = await ts.req('PUT', `${PATH}/${name}/status`, {
      ...st.json,
      status: { attached: false, attachError: { message: 'x'.repeat(1025) } },
    });
    expect(tooLong.status).toBe(422);
    expect(cause(tooLong, 'status.attachError.message', 'Too long')).toBeDefined();
    const u = await ts.req('PUT', `${PATH}/${name}`, {
      ...st.json,
      spec: { ...st.json.spec, nodeName: 'node-2' },
    });
    expect(u.status).toBe(422);
    const imm = cause(u, 'spec', 'field is immutable');
    expect(imm?.message).toContain('storage.VolumeAttachmentSpec{Attacher:"csi.example.com"');
    expect(imm?.message).toContain('NodeName:"node-2"');
    const t = await ts.req('GET', `${PATH}/${name}`, undefined, { accept: TABLE });
    expect(t.json.rows[0].cells.slice(0, 5)).toEqual([name, 'csi.example.com', 'pv-1', 'node-1', true]);
  });
});
