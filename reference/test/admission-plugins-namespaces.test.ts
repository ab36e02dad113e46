// The built-in admission plugins about namespaces and the all-or-nothing ones, end to end, as
// Kubernetes 1.28 behaves: NamespaceLifecycle (default-enabled: a creation in a missing
// namespace is 404 before any webhook; the system namespaces stay), NamespaceAutoProvision,
// NamespaceExists, AlwaysAdmit and AlwaysDeny.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMap, startServer, type TestServer, uniqueName } from './helpers.ts';

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

describe('NamespaceLifecycle (default-enabled)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('refuses a creation in a namespace that does not exist with 404 for the namespace', async () => {
    const ns = uniqueName('missing');
    const r = await s.req('POST', cmPath(ns), configMap('c'));
    expect(r.status, r.text).toBe(404);
    expect(r.json.reason).toBe('NotFound');
    expect(r.json.message).toBe(`namespaces "${ns}" not found`);
    expect(r.json.details).toMatchObject({ name: ns, kind: 'namespaces' });
  });

  it('keeps the system namespaces from deletion', async () => {
    for (const ns of ['default', 'orch-system', 'orch-public']) {
      const r = await s.req('DELETE', `/api/v1/namespaces/${ns}`);
      expect(r.status, r.text).toBe(403);
      expect(r.json.message).toBe(`namespaces "${ns}" is forbidden: this namespace may not be deleted`);
    }
  });
});

describe('NamespaceAutoProvision', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ enableAdmissionPlugins: ['NamespaceAutoProvision'] });
  });
  afterAll(() => s.close());

  it('creates the missing namespace of a creation, which then succeeds', async () => {
    const ns = uniqueName('auto');
    const r = await s.req('POST', cmPath(ns), configMap('c'));
    expect(r.status, r.text).toBe(201);
    const n = await s.req('GET', `/api/v1/namespaces/${ns}`);
    expect(n.status).toBe(200);
    expect(n.json.status.phase).toBe('Active');
  });

  it('creates nothing for a dry run, which is then refused as any write to a missing namespace', async () => {
    const ns = uniqueName('dry');
    const r = await s.req('POST', `${cmPath(ns)}?dryRun=All`, configMap('c'));
    expect(r.status, r.text).toBe(404);
    expect((await s.req('GET', `/api/v1/namespaces/${ns}`)).status).toBe(404);
  });

  it('does not bring back a namespace for an update or delete', async () => {
    const ns = uniqueName('gone');
    expect((await s.req('DELETE', `${cmPath(ns)}/c`)).status).toBe(404);
    expect((await s.req('GET', `/api/v1/namespaces/${ns}`)).status).toBe(404);
  });
});

describe('NamespaceExists', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      enableAdmissionPlugins: ['NamespaceExists'],
      disableAdmissionPlugins: ['NamespaceLifecycle'],
    });
  });
  afterAll(() => s.close());

  it('refuses a write naming a missing namespace with 404 for the namespace', async () => {
    const ns = uniqueName('missing');
    const r = await s.req('POST', cmPath(ns), configMap('c'));
    expect(r.status, r.text).toBe(404);
    expect(r.json.message).toBe(`namespaces "${ns}" not found`);
  });
});

describe('AlwaysAdmit and AlwaysDeny', () => {
  it('AlwaysAdmit changes nothing', async () => {
    const s = await startServer({ enableAdmissionPlugins: ['AlwaysAdmit'] });
    try {
      expect((await s.req('POST', cmPath('default'), configMap(uniqueName('c')))).status).toBe(201);
    } finally {
      await s.close();
    }
  });

  it('AlwaysDeny refuses every write with 403 and nothing is written; reads still answer', async () => {
    const s = await startServer({ enableAdmissionPlugins: ['AlwaysDeny'] });
    try {
      const r = await s.req('POST', cmPath('default'), configMap('c'));
      expect(r.status, r.text).toBe(403);
      expect(r.json.reason).toBe('Forbidden');
      expect(r.json.message).toBe(
        'configmaps "c" is forbidden: admission control is denying all modifications',
      );
      expect((await s.req('GET', `${cmPath('default')}/c`)).status).toBe(404);
      const ns = await s.req('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'n' },
      });
      expect(ns.status).toBe(403);
      expect((await s.req('GET', '/api/v1/namespaces')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
