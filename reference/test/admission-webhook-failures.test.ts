// Webhooks that fail, and bad replies (doc3 "Errors", "Webhook contract"; Kubernetes 1.28's
// checks and words where doc3 is silent): a webhook that hangs, answers garbage, the wrong uid,
// the wrong version, the wrong content type, a huge body, an HTTP error, cannot be reached, or
// presents a certificate the caBundle does not trust is a call failure: `failurePolicy: Fail`
// refuses the request with Kubernetes' 500 InternalError `failed calling webhook "<name>"`,
// `Ignore` lets it through. A patch that does not apply goes by the failure policy too (doc3
// "Errors"; Kubernetes 1.28 refuses it even under Ignore). Never a crash; nothing stored on a
// refusal. Also: dry runs and webhooks
// with side effects, a Service as the client configuration, and the connection file's
// credentials.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateCertificate } from '../src/http/tls.ts';
import {
  allow,
  answer,
  configuration,
  type Handler,
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
let dir: string;
const created: string[] = [];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orch-admission-webhook-'));
  hs = await startHookServer();
  // the connection file: a token for the service name (with its port), basic auth for the URL host
  const conn = join(dir, 'webhooks.yaml');
  writeFileSync(
    conn,
    [
      'apiVersion: v1',
      'kind: Config',
      'users:',
      `- name: hook.default.svc:${hs.port}`,
      '  user:',
      '    token: service-token',
      `- name: 127.0.0.1:${hs.port}`,
      '  user:',
      '    username: api',
      '    password: s3cret',
      '- name: "*"',
      '  user:',
      '    token: fallback-token',
      '',
    ].join('\n'),
  );
  const admission = join(dir, 'admission.yaml');
  writeFileSync(
    admission,
    JSON.stringify({
      apiVersion: 'apiserver.config.orch.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'].map((name) => ({
        name,
        configuration: {
          apiVersion: 'apiserver.config.orch.io/v1',
          kind: 'WebhookAdmissionConfiguration',
          orchConfigFile: conn,
        },
      })),
    }),
  );
  ts = await startServer({ admissionControlConfigFile: admission });
});
afterAll(async () => {
  for (const r of hanging) r.destroy();
  await ts?.close();
  await hs?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const path of created.splice(0)) await ts.req('DELETE', path);
});

async function install(kind: 'Validating' | 'Mutating', hooks: Hook[]): Promise<void> {
  const base = kind === 'Validating' ? VALIDATING : MUTATING;
  const name = uniqueName('cfg');
  const r = await ts.req('POST', base, configuration(kind, name, hooks));
  expect(r.status, r.text).toBe(201);
  created.push(`${base}/${name}`);
}

async function namespace(): Promise<string> {
  const ns = uniqueName('ns');
  expect(
    (
      await ts.req('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      })
    ).status,
  ).toBe(201);
  return ns;
}

function route(h: Handler): string {
  const p = `/${uniqueName('r')}`;
  hs.on(p, h);
  return p;
}

const json = (res: ServerResponse, body: unknown, status = 200, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

interface BadReply {
  what: string;
  handler: Handler;
  /** Words the refusal's message must carry after `failed calling webhook "<name>": `. */
  words: string;
}

const BAD: BadReply[] = [
  {
    what: 'hangs past timeoutSeconds',
    handler: (_r, res) => void hanging.push(res),
    words: 'context deadline exceeded',
  },
  {
    what: 'answers garbage',
    handler: (_r, res) => json(res, '{"apiVersion": nope'),
    words: 'failed to call webhook',
  },
  {
    what: 'answers the wrong uid',
    handler: (rv, res) =>
      json(res, {
        apiVersion: rv.apiVersion,
        kind: 'AdmissionReview',
        response: { uid: 'other', allowed: true },
      }),
    words: 'received invalid webhook response: expected response.uid=',
  },
  {
    what: 'answers in another version',
    handler: (rv, res) =>
      json(res, {
        apiVersion: 'admission.orch.io/v1beta1',
        kind: 'AdmissionReview',
        response: { uid: rv.request.uid, allowed: true },
      }),
    words: 'expected webhook response of admission.orch.io/v1, got admission.orch.io/v1beta1',
  },
  {
    what: 'answers without a response',
    handler: (rv, res) => json(res, { apiVersion: rv.apiVersion, kind: 'AdmissionReview' }),
    words: 'webhook response was absent',
  },
  {
    what: 'answers without allowed',
    handler: (rv, res) =>
      json(res, { apiVersion: rv.apiVersion, kind: 'AdmissionReview', response: { uid: rv.request.uid } }),
    words: 'response.allowed is required',
  },
  {
    what: 'answers allowed as a string',
    handler: (rv, res) =>
      json(res, {
        apiVersion: rv.apiVersion,
        kind: 'AdmissionReview',
        response: { uid: rv.request.uid, allowed: 'yes' },
      }),
    words: 'cannot unmarshal string',
  },
  {
    what: 'answers with the wrong content type',
    handler: (rv, res) =>
      json(
        res,
        {
          apiVersion: rv.apiVersion,
          kind: 'AdmissionReview',
          response: { uid: rv.request.uid, allowed: true },
        },
        200,
        'text/plain',
      ),
    words: 'serializer for text/plain',
  },
  {
    what: 'answers a huge body',
    handler: (_rv, res) => json(res, `{"pad": "${'x'.repeat(4 * 1024 * 1024)}"}`),
    words: 'larger than',
  },
  {
    what: 'answers HTTP 500',
    handler: (_rv, res) => json(res, 'boom', 500, 'text/plain'),
    words: 'an error on the server ("boom")',
  },
  {
    what: 'answers a patch from a validating webhook',
    handler: (rv, res) =>
      answer(res, rv, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('[]').toString('base64') }),
    words: 'validating webhook may not return response.patch or response.patchType',
  },
];

describe('call failures and the failure policy (doc3 Errors)', () => {
  for (const bad of BAD) {
    it(`a webhook that ${bad.what}: Fail refuses with 500 InternalError, Ignore admits`, async () => {
      const p = route(bad.handler);
      const name = 'bad.example.orch.io';
      await install('Validating', [webhook(hs, name, p, { timeoutSeconds: 1 })]);
      const ns = await namespace();
      const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
      expect(r.status, r.text).toBe(500);
      expect(r.json.kind).toBe('Status');
      expect(r.json.reason).toBe('InternalError');
      expect(r.json.message.startsWith(`Internal error occurred: failed calling webhook "${name}": `)).toBe(
        true,
      );
      expect(r.json.message).toContain(bad.words);
      expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(404);
      for (const c of created.splice(0)) await ts.req('DELETE', c);
      await install('Validating', [webhook(hs, name, p, { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
      const ok = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('y'));
      expect(ok.status, ok.text).toBe(201);
    });
  }

  it('a webhook that cannot be reached: connection refused', async () => {
    const closed = await startHookServer();
    const port = closed.port;
    await closed.close();
    await install('Mutating', [
      {
        ...webhook(hs, 'gone.example.orch.io', '/gone'),
        clientConfig: { url: `https://127.0.0.1:${port}/gone`, caBundle: hs.caBundle },
      },
    ]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
    expect(r.status).toBe(500);
    expect(r.json.message).toContain(
      `Post "https://127.0.0.1:${port}/gone?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  });

  it('a certificate the caBundle does not trust (the system roots when absent) is a call failure', async () => {
    const other = await generateCertificate(['127.0.0.1']);
    const p = route(allow);
    await install('Validating', [
      {
        ...webhook(hs, 'tls.example.orch.io', p),
        clientConfig: {
          url: `https://127.0.0.1:${hs.port}${p}`,
          caBundle: Buffer.from(other.ca).toString('base64'),
        },
      },
      {
        ...webhook(hs, 'roots.example.orch.io', p),
        clientConfig: { url: `https://127.0.0.1:${hs.port}${p}` },
      },
    ]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
    expect(r.status).toBe(500);
    expect(r.json.message).toContain('certificate');
    expect(hs.callsTo(p)).toHaveLength(0);
  });

  it('a caBundle that holds no certificate is a call failure, not a crash', async () => {
    const p = route(allow);
    await install('Validating', [
      {
        ...webhook(hs, 'garbageca.example.orch.io', p),
        clientConfig: {
          url: `https://127.0.0.1:${hs.port}${p}`,
          caBundle: Buffer.from('not a certificate').toString('base64'),
        },
      },
    ]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
    expect(r.status).toBe(500);
    expect(r.json.message).toContain('failed calling webhook "garbageca.example.orch.io"');
    expect(hs.callsTo(p)).toHaveLength(0);
  });

  it('a patch that does not apply: Fail refuses with 500 and stores nothing; Ignore admits the unpatched object', async () => {
    const p = route(patchWith([{ op: 'replace', path: '/spec/nothing', value: 1 }]));
    await install('Mutating', [webhook(hs, 'badpatch.example.orch.io', p)]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x', { a: '1' }));
    expect(r.status, r.text).toBe(500);
    expect(r.json.reason).toBe('InternalError');
    expect(r.json.message).toContain('/spec/nothing');
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(404);
    for (const c of created.splice(0)) await ts.req('DELETE', c);
    await install('Mutating', [webhook(hs, 'badpatch.example.orch.io', p, { failurePolicy: 'Ignore' })]);
    const ok = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('y', { a: '1' }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.data).toEqual({ a: '1' });
  });

  it('a patch that is not a JSON Patch list, and a patch without patchType, are refused', async () => {
    const notList = route((rv, res) =>
      answer(res, rv, {
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from('{"op":"add"}').toString('base64'),
      }),
    );
    const noType = route((rv, res) =>
      answer(res, rv, { allowed: true, patch: Buffer.from('[]').toString('base64') }),
    );
    const ns = await namespace();
    await install('Mutating', [webhook(hs, 'notlist.example.orch.io', notList)]);
    const a = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
    expect(a.status).toBe(500);
    expect(a.json.message).toContain('jsonpatch.Patch');
    for (const c of created.splice(0)) await ts.req('DELETE', c);
    await install('Mutating', [webhook(hs, 'notype.example.orch.io', noType)]);
    const b = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('y'));
    expect(b.status).toBe(500);
    expect(b.json.message).toContain('webhook returned response.patch but not response.patchType');
  });

  it('the server keeps serving after every failure above', async () => {
    expect((await ts.req('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });
});

describe('dry run (doc3 Webhook contract)', () => {
  it('a webhook without side effects sees dryRun true; nothing is stored', async () => {
    const p = route(allow);
    await install('Validating', [webhook(hs, 'dry.example.orch.io', p)]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap('x'));
    expect(r.status, r.text).toBe(201);
    expect(hs.callsTo(p)[0]!.review.request.dryRun).toBe(true);
    expect(hs.callsTo(p)[0]!.review.request.options.dryRun).toEqual(['All']);
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(404);
  });

  it('a stored webhook with side effects makes dry-run requests fail (400), and is not called', async () => {
    const p = route(allow);
    // sideEffects Some can no longer be written through the API; an older object may hold it
    const bucket = 'admissionregistration.orch.io/validatingwebhookconfigurations';
    const name = uniqueName('legacy');
    await ts.server.storage.create(bucket, `${bucket}//${name}`, {
      ...configuration('Validating', name, [
        webhook(hs, 'effects.example.orch.io', p, { sideEffects: 'Some' }),
      ]),
    } as any);
    created.push(`${VALIDATING}/${name}`);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap('x'));
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toBe('admission webhook "effects.example.orch.io" does not support dry run');
    expect(hs.callsTo(p)).toHaveLength(0);
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('y'))).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(1);
  });
});

describe('review versions (doc3 Webhook contract: an older configuration with none supported fails per failurePolicy)', () => {
  for (const policy of ['Fail', 'Ignore'])
    it(`a stored webhook accepting only unknown versions, failurePolicy ${policy}`, async () => {
      const p = route(allow);
      const bucket = 'admissionregistration.orch.io/validatingwebhookconfigurations';
      const name = uniqueName('legacy');
      await ts.server.storage.create(bucket, `${bucket}//${name}`, {
        ...configuration('Validating', name, [
          webhook(hs, 'versions.example.orch.io', p, {
            admissionReviewVersions: ['v2'],
            failurePolicy: policy,
          }),
        ]),
      } as any);
      created.push(`${VALIDATING}/${name}`);
      const ns = await namespace();
      const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
      if (policy === 'Fail') {
        expect(r.status).toBe(500);
        expect(r.json.message).toContain('failed calling webhook "versions.example.orch.io"');
        expect(r.json.message).toContain('AdmissionReview versions');
      } else expect(r.status, r.text).toBe(201);
      expect(hs.callsTo(p)).toHaveLength(0);
    });
});

describe('client configuration and credentials (doc3 Webhook contract)', () => {
  it('a Service reference: ExternalName resolved, TLS name <name>.<namespace>.svc, token of the service entry', async () => {
    const p = route(allow);
    const svc = await ts.req('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'hook' },
      spec: { type: 'ExternalName', externalName: 'localhost' },
    });
    expect(svc.status, svc.text).toBe(201);
    try {
      await install('Validating', [
        {
          ...webhook(hs, 'svc.example.orch.io', p),
          clientConfig: {
            service: { namespace: 'default', name: 'hook', path: p, port: hs.port },
            caBundle: hs.caBundle,
          },
        },
      ]);
      const ns = await namespace();
      const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
      expect(r.status, r.text).toBe(201);
      const [call] = hs.callsTo(p);
      expect(call!.headers.authorization).toBe('Bearer service-token');
      expect(call!.headers.host).toBe(`hook.default.svc:${hs.port}`);
      expect(call!.path).toBe(`${p}?timeout=10s`);
    } finally {
      await ts.req('DELETE', '/api/v1/namespaces/default/services/hook');
    }
  });

  it('a missing Service is a call failure', async () => {
    await install('Validating', [
      {
        ...webhook(hs, 'nosvc.example.orch.io', '/x'),
        clientConfig: { service: { namespace: 'default', name: 'absent' }, caBundle: hs.caBundle },
      },
    ]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'));
    expect(r.status).toBe(500);
    expect(r.json.message).toContain('failed calling webhook "nosvc.example.orch.io"');
  });

  it('a URL webhook gets the user entry of its host and port (basic auth here)', async () => {
    const p = route(allow);
    await install('Validating', [webhook(hs, 'basic.example.orch.io', p)]);
    const ns = await namespace();
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'))).status).toBe(201);
    expect(hs.callsTo(p)[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('api:s3cret').toString('base64')}`,
    );
  });

  it('a URL host without an entry gets the * entry', async () => {
    const p = route(allow);
    await install('Validating', [
      {
        ...webhook(hs, 'star.example.orch.io', p),
        clientConfig: { url: `https://localhost:${hs.port}${p}`, caBundle: hs.caBundle },
      },
    ]);
    const ns = await namespace();
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('x'))).status).toBe(201);
    expect(hs.callsTo(p)[0]!.headers.authorization).toBe('Bearer fallback-token');
  });
});
