// The ways out of the process write the change log's held-back records first
// (storage/exposure.ts): an answer, a watch event, a request to an admission webhook, an audit
// event. Each case holds a writer back as the log does, then makes something leave the real
// server; the writer must have run by the time it arrives. The log's own side (records held
// to the turn's end, written at once on exposure) is in durability.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { holdUntilExposure, release } from '../src/storage/exposure.ts';
import {
  allow,
  configuration,
  type HookServer,
  startHookServer,
  VALIDATING,
  webhook,
} from './admission-webhook-helpers.ts';
import { configMap, scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

let ts: TestServer;
let hooks: HookServer;
// made here, not in beforeAll: the directory is removed after all (scratchDir)
const dataDir = scratchDir('orch-exposure-');

beforeAll(async () => {
  ts = await startServer({ inMemory: false, dataDir, fsync: true });
  hooks = await startHookServer();
});
afterAll(async () => {
  await ts?.close();
  await hooks?.close();
});

/** A writer held back as the change log holds one; `runs` counts its calls. */
function held() {
  const h = { runs: 0, write: () => void h.runs++ };
  holdUntilExposure(h.write);
  return h;
}

describe('records held back reach the log before anything leaves the process', () => {
  it('before an answer', async () => {
    const h = held();
    try {
      const r = await ts.req('GET', '/api/v1/namespaces/default');
      expect(r.status).toBe(200);
      expect(h.runs, 'an answer left the server with records still held back').toBe(1);
    } finally {
      release(h.write);
    }
  });

  it('before a watch event', async () => {
    const ns = 'default';
    const res = await request(`${ts.url}/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=5`, {
      headers: { authorization: `Bearer ${ts.token}` },
    });
    expect(res.statusCode).toBe(200);
    const chunks = res.body[Symbol.asyncIterator]();
    const served = ts.server.registry.byResource('', 'configmaps')!;
    const name = uniqueName('seen');
    const h = held();
    try {
      // a change made inside the server (as a controller makes one): only the watch event leaves
      void ts.server.storage.create(
        served.store.bucket,
        served.store.key(ns, name),
        configMap(name, {}, { metadata: { name, namespace: ns } }),
      );
      const first = await chunks.next();
      expect(String(first.value)).toContain(name);
      expect(h.runs, 'a watch event left the server with records still held back').toBe(1);
    } finally {
      release(h.write);
      res.body.destroy();
    }
  });

  it('before a request to an admission webhook', async () => {
    const path = '/exposure';
    let runsWhenCalled = -1;
    let h: ReturnType<typeof held> | undefined;
    hooks.on(path, (review, res, req) => {
      runsWhenCalled = h?.runs ?? -1;
      allow(review, res, req);
    });
    const name = uniqueName('exposure');
    const made = await ts.req(
      'POST',
      VALIDATING,
      configuration('Validating', name, [webhook(hooks, 'e.orch.io', path)]),
    );
    expect(made.status).toBe(201);
    try {
      h = held();
      const w = await ts.req(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        configMap(uniqueName('hooked')),
      );
      expect(w.status).toBe(201);
      expect(runsWhenCalled, 'a review reached the webhook with records still held back').toBe(1);
    } finally {
      if (h) release(h.write);
      await ts.req('DELETE', `${VALIDATING}/${name}`);
    }
  });

  it('before an audit event', async () => {
    const dir = scratchDir('orch-exposure-audit-');
    // every stage: the first event (RequestReceived) is written before the answer
    const policy = join(dir, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({ apiVersion: 'audit.orch.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] }),
    );
    const ta = await startServer({
      inMemory: false,
      dataDir: dir,
      auditInMemory: 10,
      auditPolicyFile: policy,
    });
    const sink = ta.server.audit!;
    const runsAtEvent: number[] = [];
    let h: ReturnType<typeof held> | undefined;
    const write = sink.write.bind(sink);
    vi.spyOn(sink, 'write').mockImplementation((e) => {
      runsAtEvent.push(h?.runs ?? -1);
      write(e);
    });
    try {
      h = held();
      expect((await ta.req('GET', '/api/v1/namespaces/default')).status).toBe(200);
      expect(runsAtEvent.length).toBeGreaterThan(1);
      expect(runsAtEvent[0], 'an audit event was written with records still held back').toBe(1);
    } finally {
      if (h) release(h.write);
      await ta.close();
    }
  });
});
