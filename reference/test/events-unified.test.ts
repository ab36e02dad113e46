// Core `v1` events and `events.orch.io/v1` events are one set of objects (doc2: every
// persisted object stays reachable through every served version of its resource): an event
// written through either API is read, listed and watched through the other, with the fields
// renamed as the two shapes name them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNamespace, startServer, type TestServer } from './helpers.ts';
import { openWatch } from './read-support.ts';

const CORE = (ns: string) => `/api/v1/namespaces/${ns}/events`;
const V1 = (ns: string) => `/apis/events.orch.io/v1/namespaces/${ns}/events`;

describe('events: one storage for core/v1 and events.orch.io/v1', () => {
  let ts: TestServer;
  let ns: string;

  beforeAll(async () => {
    ts = await startServer();
    ns = await makeNamespace(ts, 'ev');
  });
  afterAll(() => ts?.close());

  it('a core event is read and listed through events.orch.io/v1 with the v1 field names', async () => {
    const c = await ts.req('POST', CORE(ns), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'from-core' },
      involvedObject: { kind: 'Pod', name: 'p1', namespace: ns },
      reason: 'Started',
      message: 'container started',
      source: { component: 'node-agent', host: 'n1' },
      firstTimestamp: '2026-01-02T03:04:05Z',
      lastTimestamp: '2026-01-02T03:04:06Z',
      count: 3,
      type: 'Normal',
    });
    expect(c.status, c.text).toBe(201);
    const g = await ts.req('GET', `${V1(ns)}/from-core`);
    expect(g.status, g.text).toBe(200);
    expect(g.json).toMatchObject({
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      regarding: { kind: 'Pod', name: 'p1', namespace: ns },
      reason: 'Started',
      note: 'container started',
      deprecatedSource: { component: 'node-agent', host: 'n1' },
      deprecatedFirstTimestamp: '2026-01-02T03:04:05Z',
      deprecatedLastTimestamp: '2026-01-02T03:04:06Z',
      deprecatedCount: 3,
      type: 'Normal',
    });
    expect(g.json.involvedObject).toBeUndefined();
    expect(g.json.message).toBeUndefined();
    expect(g.json.metadata.uid).toBe(c.json.metadata.uid);
    expect(g.json.metadata.resourceVersion).toBe(c.json.metadata.resourceVersion);
    const l = await ts.req('GET', V1(ns));
    expect(l.json.items.map((i: any) => i.metadata.name)).toContain('from-core');
  });

  it('an events.orch.io/v1 event is read and listed through core/v1 with the core field names', async () => {
    const c = await ts.req('POST', V1(ns), {
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      metadata: { name: 'from-v1' },
      eventTime: '2026-01-02T03:04:05.123456Z',
      reportingController: 'orch.io/test',
      reportingInstance: 'test-1',
      action: 'Probe',
      reason: 'Checked',
      regarding: { kind: 'Pod', name: 'n1', namespace: ns },
      note: 'all good',
      type: 'Warning',
    });
    expect(c.status, c.text).toBe(201);
    const g = await ts.req('GET', `${CORE(ns)}/from-v1`);
    expect(g.status, g.text).toBe(200);
    expect(g.json).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'Pod', name: 'n1', namespace: ns },
      message: 'all good',
      reportingComponent: 'orch.io/test',
      reportingInstance: 'test-1',
      eventTime: '2026-01-02T03:04:05.123456Z',
      action: 'Probe',
      type: 'Warning',
    });
    expect(g.json.regarding).toBeUndefined();
    const l = await ts.req('GET', `${CORE(ns)}?fieldSelector=involvedObject.name=n1`);
    expect(l.json.items.map((i: any) => i.metadata.name)).toEqual(['from-v1']);
    const l1 = await ts.req('GET', `${V1(ns)}?fieldSelector=regarding.name=n1`);
    expect(l1.json.items.map((i: any) => i.metadata.name)).toEqual(['from-v1']);
  });

  it('a write through one API is watched through the other, in that shape', async () => {
    const list = await ts.req('GET', V1(ns));
    const w = await openWatch(ts, `${V1(ns)}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`);
    const wc = await openWatch(
      ts,
      `${CORE(ns)}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`,
    );
    try {
      const c = await ts.req('POST', CORE(ns), {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'watched' },
        involvedObject: { kind: 'Pod', name: 'p2', namespace: ns },
        message: 'hello',
      });
      expect(c.status, c.text).toBe(201);
      const ev = await w.next();
      expect(ev.type).toBe('ADDED');
      expect(ev.object).toMatchObject({
        apiVersion: 'events.orch.io/v1',
        metadata: { name: 'watched' },
        note: 'hello',
      });
      const evc = await wc.next();
      expect(evc.object).toMatchObject({ apiVersion: 'v1', metadata: { name: 'watched' }, message: 'hello' });
      const d = await ts.req('DELETE', `${V1(ns)}/watched`);
      expect(d.status, d.text).toBe(200);
      expect((await w.next()).type).toBe('DELETED');
      expect((await wc.next()).type).toBe('DELETED');
      expect((await ts.req('GET', `${CORE(ns)}/watched`)).status).toBe(404);
    } finally {
      w.close();
      wc.close();
    }
  });

  it('an update through events.orch.io/v1 changes the object core/v1 reads', async () => {
    const g = await ts.req('GET', `${V1(ns)}/from-core`);
    const u = await ts.req('PUT', `${V1(ns)}/from-core`, { ...g.json, note: 'changed' });
    // events.orch.io/v1 keeps an event's note immutable: the update is refused, and nothing changed
    expect(u.status, u.text).toBe(422);
    const m = await ts.req(
      'PATCH',
      `${CORE(ns)}/from-core`,
      { message: 'changed through core' },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(m.status, m.text).toBe(200);
    const again = await ts.req('GET', `${V1(ns)}/from-core`);
    expect(again.json.note).toBe('changed through core');
    expect(again.json.metadata.resourceVersion).toBe(m.json.metadata.resourceVersion);
  });
});
