// The built-in admission plugins for nodes, services and persistent volumes, as Kubernetes
// 1.28: TaintNodesByCondition (default-enabled), DenyServiceExternalIPs, and
// PersistentVolumeLabel without a cloud provider (called directly: the plugin acts on the
// object it is given); and the plugin configurations the server refuses to start with.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistentVolumeLabel } from '../src/admission/plugins/persistent-volume-label.ts';
import { build } from '../src/index.ts';
import type { KObject } from '../src/storage/types.ts';
import { admissionAttributes } from './admission-attributes.ts';
import { scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

describe('TaintNodesByCondition (default-enabled)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());
  const node = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec,
  });

  it('a new node gets the not-ready NoSchedule taint beside its own', async () => {
    const r = await s.req(
      'POST',
      '/api/v1/nodes',
      node(uniqueName('n'), { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.taints).toEqual([
      { key: 'dedicated', value: 'db', effect: 'NoExecute' },
      { key: 'node.orch.io/not-ready', effect: 'NoSchedule' },
    ]);
  });

  it('a node that has the taint already keeps one; an update adds nothing', async () => {
    const name = uniqueName('n');
    const r = await s.req(
      'POST',
      '/api/v1/nodes',
      node(name, { taints: [{ key: 'node.orch.io/not-ready', effect: 'NoSchedule' }] }),
    );
    expect(r.json.spec.taints).toEqual([{ key: 'node.orch.io/not-ready', effect: 'NoSchedule' }]);
    const next = structuredClone(r.json);
    next.spec.taints = [];
    const u = await s.req('PUT', `/api/v1/nodes/${name}`, next);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.taints ?? []).toEqual([]);
  });
});

describe('DenyServiceExternalIPs', () => {
  let s: TestServer;
  const svc = (name: string, externalIPs?: string[]) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) },
  });
  const path = '/api/v1/namespaces/default/services';
  beforeAll(async () => {
    s = await startServer({ enableAdmissionPlugins: ['DenyServiceExternalIPs'] });
  });
  afterAll(() => s.close());

  it('refuses a new service with external IPs, accepts one without', async () => {
    const r = await s.req('POST', path, svc('ext', ['192.0.2.10']));
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toBe(
      'services "ext" is forbidden: Use of external IPs is denied by admission control',
    );
    expect((await s.req('POST', path, svc('plain'))).status).toBe(201);
  });

  it('refuses adding one on update', async () => {
    const r = await s.req('POST', path, svc('grow'));
    const next = structuredClone(r.json);
    next.spec.externalIPs = ['192.0.2.11'];
    const u = await s.req('PUT', `${path}/grow`, next);
    expect(u.status, u.text).toBe(403);
  });

  it('lets a service keep or drop the external IPs it had before the plugin was on', async () => {
    const off = await startServer();
    let stored: any;
    try {
      const r = await off.req('POST', path, svc('legacy', ['192.0.2.20', '192.0.2.21']));
      expect(r.status, r.text).toBe(201);
      stored = r.json;
    } finally {
      await off.close();
    }
    // the same object written through a server with the plugin: an update that keeps a subset
    const on = s.server.registry.byResource('', 'services')!.store;
    const old: KObject = stored;
    const plugin = s.server.admission.plugins().find((p) => p.name === 'DenyServiceExternalIPs')!;
    const attrs = (object: KObject) =>
      admissionAttributes({
        operation: 'UPDATE',
        group: '',
        version: 'v1',
        kind: 'Service',
        resource: 'services',
        namespace: 'default',
        name: 'legacy',
        object,
        oldObject: old,
      });
    expect(on).toBeDefined();
    const keep = structuredClone(old);
    (keep.spec as any).externalIPs = ['192.0.2.21'];
    expect(() => plugin.validate!(attrs(keep))).not.toThrow();
    const add = structuredClone(old);
    (add.spec as any).externalIPs = ['192.0.2.21', '192.0.2.22'];
    expect(() => plugin.validate!(attrs(add))).toThrow(/Use of external IPs is denied by admission control/);
  });
});

describe('PersistentVolumeLabel without a cloud provider', () => {
  const plugin = persistentVolumeLabel();
  const attrs = (object: KObject) =>
    admissionAttributes({
      operation: 'CREATE',
      group: '',
      version: 'v1',
      kind: 'PersistentVolume',
      resource: 'persistentvolumes',
      name: object.metadata.name!,
      object,
    });
  const pv = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KObject =>
    ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, ...meta }, spec }) as KObject;

  it('refuses a cloud disk it cannot label', () => {
    const a = attrs(pv('gce', { gcePersistentDisk: { pdName: 'disk-1' } }));
    expect(plugin.handles!(a)).toBe(true);
    expect(() => plugin.mutate!(a)).toThrow(
      'persistentvolumes "gce" is forbidden: error querying GCE PD volume disk-1: unable to build GCE cloud provider for PD',
    );
    expect(() => plugin.mutate!(attrs(pv('az', { azureDisk: { diskName: 'd' } })))).toThrow(
      /AzureDisk volume d/,
    );
  });

  it('leaves other volumes alone', () => {
    const o = pv('nfs', { nfs: { server: 'nfs.example', path: '/x' } });
    plugin.mutate!(attrs(o));
    expect(o.spec).toEqual({ nfs: { server: 'nfs.example', path: '/x' } });
    expect(o.metadata.labels).toBeUndefined();
  });

  it('gives a dynamically provisioned volume with zone and region labels a node affinity on them', () => {
    const o = pv(
      'dyn',
      { gcePersistentDisk: { pdName: 'disk-2' } },
      {
        annotations: { 'pv.orch.io/provisioned-by': 'example.com/provisioner' },
        labels: { 'topology.orch.io/zone': 'b__a', 'topology.orch.io/region': 'r1' },
      },
    );
    plugin.mutate!(attrs(o));
    expect((o.spec as any).nodeAffinity).toEqual({
      required: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'topology.orch.io/zone', operator: 'In', values: ['a', 'b'] },
              { key: 'topology.orch.io/region', operator: 'In', values: ['r1'] },
            ],
          },
        ],
      },
    });
  });

  it('is not asked about updates or other resources', () => {
    const a = { ...attrs(pv('x', {})), operation: 'UPDATE' as const };
    expect(plugin.handles!(a)).toBe(false);
  });
});

describe('plugin configurations', () => {
  const dir = scratchDir('admission-bad-config-');
  const file = (name: string, configuration: string) => {
    const p = join(dir, `${name}.yaml`);
    writeFileSync(
      p,
      `apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n  - name: ${name}\n    configuration: ${configuration}\n`,
    );
    return p;
  };

  it('a malformed PodNodeSelector or PodTolerationRestriction configuration stops the server from starting', async () => {
    await expect(
      build({
        inMemory: true,
        enableAdmissionPlugins: ['PodNodeSelector'],
        admissionControlConfigFile: file(
          'PodNodeSelector',
          '{ podNodeSelectorPluginConfig: { ns1: "a b c" } }',
        ),
      }),
    ).rejects.toThrow(/PodNodeSelector configuration: podNodeSelectorPluginConfig.ns1/);
    await expect(
      build({
        inMemory: true,
        enableAdmissionPlugins: ['PodTolerationRestriction'],
        admissionControlConfigFile: file('PodTolerationRestriction', '{ whitelist: "all" }'),
      }),
    ).rejects.toThrow(/PodTolerationRestriction configuration: whitelist is not a list of tolerations/);
  });
});
