// The resource-quota controller (`--controllers` resourcequota, on by default): a quota's
// status holds its hard limits and the usage counted from the namespace's objects, whoever
// wrote them. The server here runs without the ResourceQuota admission plugin, so every
// status below is the controller's work (with the plugin, writes of another server sharing
// the store are only counted by the controller).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('resource-quota controller', () => {
  let s: TestServer;
  let ns: string;
  beforeAll(async () => {
    s = await startServer({ controllers: ['resourcequota'], disableAdmissionPlugins: ['ResourceQuota'] });
    ns = uniqueName('quota');
    expect((await s.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  });
  afterAll(() => s.close());

  const quotaPath = (name: string) => `/api/v1/namespaces/${ns}/resourcequotas/${name}`;
  /** The quota's status once it equals `want` (or the last one seen after 3 s). */
  const statusBecomes = async (name: string, want: unknown) => {
    const end = Date.now() + 3000;
    let status: unknown;
    while (Date.now() < end) {
      status = (await s.req('GET', quotaPath(name))).json?.status;
      if (JSON.stringify(status) === JSON.stringify(want)) break;
      await sleep(25);
    }
    return status;
  };
  const configMap = (name: string) => ({ metadata: { name }, data: { k: 'v' } });

  it('counts the objects already there, then follows creations and deletions', async () => {
    for (const n of ['a', 'b'])
      expect((await s.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(n))).status).toBe(201);
    const q = {
      metadata: { name: 'q' },
      spec: { hard: { configmaps: '5', 'count/secrets': '3', resourcequotas: '2' } },
    };
    expect((await s.req('POST', `/api/v1/namespaces/${ns}/resourcequotas`, q)).status).toBe(201);
    const hard = { configmaps: '5', 'count/secrets': '3', resourcequotas: '2' };
    expect(
      await statusBecomes('q', {
        hard,
        used: { configmaps: '2', 'count/secrets': '0', resourcequotas: '1' },
      }),
    ).toEqual({
      hard,
      used: { configmaps: '2', 'count/secrets': '0', resourcequotas: '1' },
    });
    expect(
      (await s.req('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' } })).status,
    ).toBe(201);
    expect((await s.req('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`)).status).toBe(200);
    expect(
      await statusBecomes('q', {
        hard,
        used: { configmaps: '1', 'count/secrets': '1', resourcequotas: '1' },
      }),
    ).toEqual({
      hard,
      used: { configmaps: '1', 'count/secrets': '1', resourcequotas: '1' },
    });
  });

  it('a changed hard limit is reflected, a second quota is counted by the first', async () => {
    const merge = { 'content-type': 'application/merge-patch+json' };
    expect(
      (await s.req('PATCH', quotaPath('q'), { spec: { hard: { configmaps: '7' } } }, merge)).status,
    ).toBe(200);
    expect(
      (
        await s.req('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
          metadata: { name: 'r' },
          spec: { hard: { pods: '1' } },
        })
      ).status,
    ).toBe(201);
    const hard = { configmaps: '7', 'count/secrets': '3', resourcequotas: '2' };
    const want = { hard, used: { configmaps: '1', 'count/secrets': '1', resourcequotas: '2' } };
    expect(await statusBecomes('q', want)).toEqual(want);
    expect(await statusBecomes('r', { hard: { pods: '1' }, used: { pods: '0' } })).toEqual({
      hard: { pods: '1' },
      used: { pods: '0' },
    });
  });
});
