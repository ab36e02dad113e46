// The harness's admission webhook servers answer as scripted and record what they get.
import { Agent, request } from 'undici';
import { afterAll, describe, expect, test } from 'vitest';
import { refusedUrl, startWebhookServer, type WebhookServer } from '../src/admission/callbacks.ts';
import { requireLabel } from '../src/admission/webhook-scope.ts';

const where = { host: '127.0.0.1', bind: '127.0.0.1' };

async function call(s: WebhookServer, hook: string, body: unknown, timeoutMs = 5000) {
  const ca = Buffer.from(s.caBundle, 'base64').toString('utf8');
  const r = await request(s.url(hook), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    dispatcher: new Agent({ connect: { ca } }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await r.body.text();
  return {
    status: r.statusCode,
    text,
    json: (() => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    })(),
  };
}

const review = (uid: string) => ({
  apiVersion: 'admission.orch.io/v1',
  kind: 'AdmissionReview',
  request: { uid, operation: 'CREATE' },
});

describe('admission webhook servers', () => {
  const servers: WebhookServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  test('answers per script and records calls in one order across servers', async () => {
    const a = await startWebhookServer(
      {
        allow: {},
        deny: { allowed: false, status: { code: 403, message: 'no' }, warnings: ['w1'] },
        patch: { patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] },
        wrong: { uid: 'other', version: 'admission.orch.io/v1beta1' },
        garbage: { raw: 'not json', httpStatus: 500, contentType: 'text/plain' },
      },
      { where },
    );
    const b = await startWebhookServer({}, { where });
    servers.push(a, b);
    expect((await call(a, 'allow', review('u1'))).json).toEqual({
      apiVersion: 'admission.orch.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u1', allowed: true },
    });
    expect((await call(b, 'other', review('u2'))).json.response).toEqual({ uid: 'u2', allowed: true });
    expect((await call(a, 'deny', review('u3'))).json.response).toEqual({
      uid: 'u3',
      allowed: false,
      status: { code: 403, message: 'no' },
      warnings: ['w1'],
    });
    const p = (await call(a, 'patch', review('u4'))).json.response;
    expect(p.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(p.patch, 'base64').toString())).toEqual([
      { op: 'add', path: '/metadata/labels/x', value: 'y' },
    ]);
    const w = (await call(a, 'wrong', review('u5'))).json;
    expect(w.apiVersion).toBe('admission.orch.io/v1beta1');
    expect(w.response.uid).not.toBe('u5');
    expect(await call(a, 'garbage', review('u6'))).toMatchObject({ status: 500, text: 'not json' });
    expect(a.calls.map((c) => c.webhook)).toEqual(['allow', 'deny', 'patch', 'wrong', 'garbage']);
    expect(a.calls[0]!.seq).toBeLessThan(b.calls[0]!.seq);
    expect(b.calls[0]!.seq).toBeLessThan(a.calls[1]!.seq);
    expect(a.callsTo('deny')[0]!.review.request.uid).toBe('u3');
  });

  test('a hanging webhook never answers, a slow one answers late, a function script sees the call count', async () => {
    const s = await startWebhookServer(
      { hang: { hang: true }, slow: { delayMs: 300 }, count: (_c, n) => ({ allowed: n > 1 }) },
      { where },
    );
    servers.push(s);
    await expect(call(s, 'hang', review('h'), 500)).rejects.toThrow();
    const t0 = Date.now();
    await call(s, 'slow', review('s'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect((await call(s, 'count', review('c1'))).json.response.allowed).toBe(false);
    expect((await call(s, 'count', review('c2'))).json.response.allowed).toBe(true);
  });

  test('a refused URL has nobody listening; selectors keep what a case gives', async () => {
    const u = new URL(await refusedUrl(where));
    await expect(
      request(`https://127.0.0.1:${u.port}/`, { signal: AbortSignal.timeout(2000) }),
    ).rejects.toThrow();
    expect(requireLabel({ matchLabels: { a: 'b' } }, 'k', 'v')).toEqual({
      matchLabels: { a: 'b' },
      matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }],
    });
  });
});
