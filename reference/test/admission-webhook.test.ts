// Admission webhooks against a real HTTPS callback server (doc3 "Webhook configuration
// objects", "States and transitions", "Webhook contract", "Events", "Errors"; Kubernetes 1.28
// where doc3 is silent): the review sent, matching (rules, selectors, Equivalent, match
// conditions), rejections, failure policies, warnings, audit annotations, patches and
// reinvocation. Expected values come from doc3 and Kubernetes 1.28, never from the server.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  allow,
  answer,
  configuration,
  type Hook,
  type HookServer,
  MUTATING,
  patchWith,
  startHookServer,
  VALIDATING,
  webhook,
} from './admission-webhook-helpers.ts';
import { configMap, startServer, type TestServer, uniqueName } from './helpers.ts';

let ts: TestServer;
let hs: HookServer;
const created: string[] = [];

beforeAll(async () => {
  hs = await startHookServer();
  ts = await startServer({ auditInMemory: 500 });
});
afterAll(async () => {
  await ts?.close();
  await hs?.close();
});
afterEach(async () => {
  for (const path of created.splice(0)) await ts.req('DELETE', path);
});

async function install(
  kind: 'Validating' | 'Mutating',
  hooks: Hook[],
  name = uniqueName('cfg'),
): Promise<string> {
  const base = kind === 'Validating' ? VALIDATING : MUTATING;
  const r = await ts.req('POST', base, configuration(kind, name, hooks));
  expect(r.status, r.text).toBe(201);
  created.push(`${base}/${name}`);
  return name;
}

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  const ns = uniqueName('ns');
  const r = await ts.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns, labels },
  });
  expect(r.status, r.text).toBe(201);
  return ns;
}

const createCm = (ns: string, name: string, extra: Record<string, unknown> = {}, query = '') =>
  ts.req('POST', `/api/v1/namespaces/${ns}/configmaps${query}`, configMap(name, { a: '1' }, extra));

/** The annotations of the last creation in the namespace's configmaps. */
function auditOf(ns: string): Record<string, string> {
  const events = ts.server.audit!.events.filter(
    (e: any) => e.verb === 'create' && e.requestURI.startsWith(`/api/v1/namespaces/${ns}/configmaps`),
  );
  return (events.at(-1) as any)?.annotations ?? {};
}

describe('the review sent (doc3 Webhook contract)', () => {
  it('POSTs a v1 AdmissionReview with the request fields, JSON, to the URL with the timeout', async () => {
    hs.on('/review-v1', allow);
    await install('Validating', [webhook(hs, 'review.example.orch.io', '/review-v1', { timeoutSeconds: 7 })]);
    const ns = await namespace();
    const r = await createCm(ns, 'one');
    expect(r.status, r.text).toBe(201);
    const [call] = hs.callsTo('/review-v1');
    expect(call).toBeDefined();
    expect(call!.path).toBe('/review-v1?timeout=7s');
    expect(call!.headers['content-type']).toBe('application/json');
    const rv = call!.review;
    expect(rv.apiVersion).toBe('admission.orch.io/v1');
    expect(rv.kind).toBe('AdmissionReview');
    const q = rv.request;
    expect(q.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(q.kind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(q.resource).toEqual({ group: '', version: 'v1', resource: 'configmaps' });
    expect(q.requestKind).toEqual(q.kind);
    expect(q.requestResource).toEqual(q.resource);
    expect(q.subResource).toBeUndefined();
    expect(q.name).toBe('one');
    expect(q.namespace).toBe(ns);
    expect(q.operation).toBe('CREATE');
    expect(q.userInfo.username).toBe('orch-admin');
    expect(q.userInfo.groups).toContain('system:masters');
    expect(q.object.metadata.name).toBe('one');
    expect(q.object.data).toEqual({ a: '1' });
    expect(q.oldObject).toBeNull();
    expect(q.dryRun).toBe(false);
    expect(q.options.kind).toBe('CreateOptions');
  });

  it('uses the first admissionReviewVersions entry the server speaks (v1beta1 after an unknown one)', async () => {
    hs.on('/review-beta', allow);
    await install('Validating', [
      webhook(hs, 'beta.example.orch.io', '/review-beta', {
        admissionReviewVersions: ['v9', 'v1beta1', 'v1'],
      }),
    ]);
    const ns = await namespace();
    expect((await createCm(ns, 'b')).status).toBe(201);
    expect(hs.callsTo('/review-beta')[0]!.review.apiVersion).toBe('admission.orch.io/v1beta1');
  });

  it('sends the old object on UPDATE, and the old object with a null object on DELETE', async () => {
    hs.on('/ops', allow);
    await install('Validating', [
      webhook(hs, 'ops.example.orch.io', '/ops', {
        rules: [
          {
            operations: ['UPDATE', 'DELETE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
      }),
    ]);
    const ns = await namespace();
    const c = await createCm(ns, 'u');
    expect(c.status).toBe(201);
    expect(hs.callsTo('/ops')).toHaveLength(0);
    const u = await ts.req('PUT', `/api/v1/namespaces/${ns}/configmaps/u`, { ...c.json, data: { a: '2' } });
    expect(u.status, u.text).toBe(200);
    const d = await ts.req('DELETE', `/api/v1/namespaces/${ns}/configmaps/u`);
    expect(d.status, d.text).toBe(200);
    const [upd, del] = hs.callsTo('/ops').map((x) => x.review.request);
    expect(upd.operation).toBe('UPDATE');
    expect(upd.object.data).toEqual({ a: '2' });
    expect(upd.oldObject.data).toEqual({ a: '1' });
    expect(upd.options.kind).toBe('UpdateOptions');
    expect(del.operation).toBe('DELETE');
    expect(del.object).toBeNull();
    expect(del.oldObject.data).toEqual({ a: '2' });
    expect(del.options.kind).toBe('DeleteOptions');
  });

  it('a patch is sent as the UPDATE it is, with UpdateOptions (Kubernetes 1.28)', async () => {
    hs.on('/patched', allow);
    await install('Validating', [
      webhook(hs, 'patched.example.orch.io', '/patched', {
        rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      }),
    ]);
    const ns = await namespace();
    expect((await createCm(ns, 'pt')).status).toBe(201);
    const r = await ts.req(
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/pt?fieldManager=me`,
      { data: { a: '9' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(r.status, r.text).toBe(200);
    const [call] = hs.callsTo('/patched');
    expect(call!.review.request.operation).toBe('UPDATE');
    expect(call!.review.request.options).toMatchObject({ kind: 'UpdateOptions', fieldManager: 'me' });
    expect(call!.review.request.object.data).toEqual({ a: '9' });
  });
});

describe('rejections (doc3 Errors)', () => {
  it('allowed false rejects with the webhook message and code; nothing is stored', async () => {
    hs.on('/deny', (review, res) =>
      answer(res, review, {
        allowed: false,
        status: { code: 422, message: 'no such thing', reason: 'Invalid' },
      }),
    );
    await install('Validating', [webhook(hs, 'deny.example.orch.io', '/deny')]);
    const ns = await namespace();
    const r = await createCm(ns, 'x');
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('admission webhook "deny.example.orch.io" denied the request: no such thing');
    expect(r.json.reason).toBe('Invalid');
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(404);
  });

  it('without a status the code is 400 and the request is denied without explanation', async () => {
    // (allowed is given: doc3 requires it)
    hs.on('/deny-bare', (review, res) => answer(res, review, { allowed: false }));
    await install('Mutating', [webhook(hs, 'bare.example.orch.io', '/deny-bare')]);
    const ns = await namespace();
    const r = await createCm(ns, 'x');
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      'admission webhook "bare.example.orch.io" denied the request without explanation',
    );
  });

  it('a code below 400 becomes 400', async () => {
    hs.on('/deny-200', (review, res) =>
      answer(res, review, { allowed: false, status: { code: 200, message: 'm' } }),
    );
    await install('Validating', [webhook(hs, 'low.example.orch.io', '/deny-200')]);
    const ns = await namespace();
    const r = await createCm(ns, 'x');
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('admission webhook "low.example.orch.io" denied the request: m');
  });
});

describe('validating webhooks run in parallel (doc3 plugin table)', () => {
  it('each of two webhooks answers only once the other was called: both are in flight together', async () => {
    const arrived = { a: false, b: false };
    const waiting: (() => void)[] = [];
    const barrier = (me: 'a' | 'b', other: 'a' | 'b') => (review: any, res: any) => {
      arrived[me] = true;
      const go = () => answer(res, review, { allowed: true });
      if (arrived[other]) {
        go();
        for (const w of waiting.splice(0)) w();
      } else waiting.push(go);
    };
    hs.on('/par-a', barrier('a', 'b'));
    hs.on('/par-b', barrier('b', 'a'));
    await install('Validating', [
      webhook(hs, 'par-a.example.orch.io', '/par-a', { timeoutSeconds: 3 }),
      webhook(hs, 'par-b.example.orch.io', '/par-b', { timeoutSeconds: 3 }),
    ]);
    const ns = await namespace();
    const r = await createCm(ns, 'par');
    expect(r.status, r.text).toBe(201);
  });
});

describe('warnings and audit annotations (doc3 Webhook contract, Events)', () => {
  it('returns webhook warnings as 299 Warning headers', async () => {
    hs.on('/warn', (review, res) => answer(res, review, { allowed: true, warnings: ['mind the gap'] }));
    await install('Validating', [webhook(hs, 'warn.example.orch.io', '/warn')]);
    const ns = await namespace();
    const r = await createCm(ns, 'w');
    expect(r.status).toBe(201);
    expect(String(r.headers.warning)).toContain('299 - "mind the gap"');
  });

  it('annotates each mutating call (and, beyond doc3, the patch applied)', async () => {
    hs.on('/label', patchWith([{ op: 'add', path: '/metadata/labels', value: { stamped: 'yes' } }]));
    hs.on('/noop', allow);
    const cfg = await install('Mutating', [
      webhook(hs, 'noop.example.orch.io', '/noop'),
      webhook(hs, 'label.example.orch.io', '/label'),
    ]);
    const ns = await namespace();
    const r = await createCm(ns, 'annotated');
    expect(r.status, r.text).toBe(201);
    expect(r.json.metadata.labels).toEqual({ stamped: 'yes' });
    const a = auditOf(ns);
    expect(JSON.parse(a['mutation.webhook.admission.orch.io/round_0_index_0']!)).toEqual({
      configuration: cfg,
      webhook: 'noop.example.orch.io',
      mutated: false,
    });
    expect(JSON.parse(a['mutation.webhook.admission.orch.io/round_0_index_1']!)).toEqual({
      configuration: cfg,
      webhook: 'label.example.orch.io',
      mutated: true,
    });
    const p = JSON.parse(a['patch.webhook.admission.orch.io/round_0_index_1']!);
    expect(p).toMatchObject({ configuration: cfg, webhook: 'label.example.orch.io', patchType: 'JSONPatch' });
    expect(p.patch[0].path).toBe('/metadata/labels');
  });
});

describe('mutation and reinvocation (doc3 States and transitions)', () => {
  it('the patched object is validated and stored; validating webhooks see it', async () => {
    hs.on('/set-data', patchWith([{ op: 'replace', path: '/data/a', value: 'patched' }]));
    hs.on('/see', allow);
    await install('Mutating', [webhook(hs, 'set.example.orch.io', '/set-data')]);
    await install('Validating', [webhook(hs, 'see.example.orch.io', '/see')]);
    const ns = await namespace();
    const r = await createCm(ns, 'p');
    expect(r.status, r.text).toBe(201);
    expect(r.json.data).toEqual({ a: 'patched' });
    expect(hs.callsTo('/see').at(-1)!.review.request.object.data).toEqual({ a: 'patched' });
    const g = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/p`);
    expect(g.json.data).toEqual({ a: 'patched' });
  });

  it('calls mutating webhooks in order of configuration name, then webhook order', async () => {
    const order: string[] = [];
    for (const p of ['/o1', '/o2', '/o3'])
      hs.on(p, (review, res) => {
        order.push(p);
        answer(res, review, { allowed: true });
      });
    await install('Mutating', [webhook(hs, 'o3.example.orch.io', '/o3')], 'zz-order');
    await install(
      'Mutating',
      [webhook(hs, 'o1.example.orch.io', '/o1'), webhook(hs, 'o2.example.orch.io', '/o2')],
      'aa-order',
    );
    const ns = await namespace();
    expect((await createCm(ns, 'o')).status).toBe(201);
    expect(order).toEqual(['/o1', '/o2', '/o3']);
  });

  it('reinvokes an IfNeeded webhook once when a later webhook changed the object', async () => {
    hs.on('/first', allow);
    hs.on('/never', allow);
    hs.on('/changer', patchWith([{ op: 'add', path: '/data/b', value: '2' }]));
    await install(
      'Mutating',
      [
        webhook(hs, 'first.example.orch.io', '/first', { reinvocationPolicy: 'IfNeeded' }),
        webhook(hs, 'never.example.orch.io', '/never'),
      ],
      'aa-reinvoke',
    );
    await install('Mutating', [webhook(hs, 'changer.example.orch.io', '/changer')], 'bb-reinvoke');
    const ns = await namespace();
    const r = await createCm(ns, 'ri');
    expect(r.status, r.text).toBe(201);
    expect(hs.callsTo('/first')).toHaveLength(2);
    expect(hs.callsTo('/first')[1]!.review.request.object.data).toEqual({ a: '1', b: '2' });
    expect(hs.callsTo('/never')).toHaveLength(1);
    expect(hs.callsTo('/changer')).toHaveLength(1);
    expect(JSON.parse(auditOf(ns)['mutation.webhook.admission.orch.io/round_1_index_0']!).webhook).toBe(
      'first.example.orch.io',
    );
  });

  it('a webhook change runs the built-in mutating plugins again; their change makes an IfNeeded webhook due', async () => {
    // a built-in plugin stand-in: counts its runs and stamps the object once
    let runs = 0;
    ts.server.admission.addSource(() => [
      {
        name: 'TestStamp',
        handles: (a) => a.resource.resource === 'configmaps' && a.name.startsWith('stamp-'),
        mutate: (a) => {
          runs++;
          const m = a.object!.metadata as { labels?: Record<string, string> };
          m.labels = { ...m.labels, stamped: 'by-plugin' };
        },
      },
    ]);
    hs.on('/self', patchWith([{ op: 'add', path: '/data/self', value: 'x' }]));
    await install('Mutating', [
      webhook(hs, 'self.example.orch.io', '/self', { reinvocationPolicy: 'IfNeeded' }),
    ]);
    const ns = await namespace();
    const r = await createCm(ns, 'stamp-1');
    expect(r.status, r.text).toBe(201);
    expect(runs).toBe(2);
    // its own change does not make it due; the plugin's change after it does
    expect(hs.callsTo('/self')).toHaveLength(2);
    expect(hs.callsTo('/self')[1]!.review.request.object.metadata.labels).toEqual({ stamped: 'by-plugin' });
  });

  it('an IfNeeded webhook is not reinvoked when nothing changed after it', async () => {
    hs.on('/changer2', patchWith([{ op: 'add', path: '/data/c', value: '3' }]));
    hs.on('/last', allow);
    await install('Mutating', [
      webhook(hs, 'changer2.example.orch.io', '/changer2'),
      webhook(hs, 'last.example.orch.io', '/last', { reinvocationPolicy: 'IfNeeded' }),
    ]);
    const ns = await namespace();
    expect((await createCm(ns, 'nr')).status).toBe(201);
    expect(hs.callsTo('/last')).toHaveLength(1);
    expect(hs.callsTo('/changer2')).toHaveLength(1);
  });
});
