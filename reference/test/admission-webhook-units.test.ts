// Parts of webhook admission checked alone (doc3 "Webhook contract", "Versioning"; Kubernetes
// 1.28 where doc3 is silent): which connection-file user a webhook gets, the plugin
// configuration, how replies are judged in each review version, and the shape of rejections.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CredentialResolver,
  credentialsFromConfig,
  loadConnectionUsers,
} from '../src/admission/webhook/credentials.ts';
import { rejection } from '../src/admission/webhook/errors.ts';
import { InvalidReply, judgeReply } from '../src/admission/webhook/response.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-webhook-units-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const users = (entries: Record<string, string>) =>
  new CredentialResolver(new Map(Object.entries(entries).map(([k, token]) => [k, { token }])));

describe('connection-file users (doc3: service DNS name with the port when not 443, URL host:port, * prefixes, * default)', () => {
  it('a service: the exact name, then *.<namespace>.svc, then *.svc, then *', () => {
    const r = users({ 'hook.ns1.svc': 'exact', '*.ns2.svc': 'ns2', '*.svc': 'any-svc', '*': 'default' });
    expect(r.forService('hook', 'ns1', 443)?.token).toBe('exact');
    expect(r.forService('other', 'ns2', 443)?.token).toBe('ns2');
    expect(r.forService('other', 'ns3', 443)?.token).toBe('any-svc');
    expect(users({ '*': 'default' }).forService('a', 'b', 443)?.token).toBe('default');
  });

  it('a port other than 443 is part of the name', () => {
    const r = users({ 'hook.ns1.svc:8443': 'with-port', 'hook.ns1.svc': 'without' });
    expect(r.forService('hook', 'ns1', 8443)?.token).toBe('with-port');
    expect(r.forService('hook', 'ns1', 443)?.token).toBe('without');
    expect(users({ 'hook.ns1.svc': 'without' }).forService('hook', 'ns1', 9443)).toBeUndefined();
  });

  it('a URL host: host:port exactly, or without a :443; wildcard prefixes', () => {
    const r = users({ 'hooks.example.com': 'plain', '*.example.org:8443': 'org' });
    expect(r.forHost('hooks.example.com:443')?.token).toBe('plain');
    expect(r.forHost('hooks.example.com')?.token).toBe('plain');
    expect(r.forHost('a.example.org:8443')?.token).toBe('org');
    expect(r.forHost('a.example.org')).toBeUndefined();
  });

  it('reads certificates, basic auth and tokens; the current context is the last resort', () => {
    const f = join(dir, 'conn.yaml');
    writeFileSync(
      f,
      [
        'users:',
        '- name: certs.example.com',
        '  user:',
        `    client-certificate-data: ${Buffer.from('CERT').toString('base64')}`,
        `    client-key-data: ${Buffer.from('KEY').toString('base64')}`,
        '- name: basic.example.com',
        '  user: {username: u, password: p}',
        '- name: ctx',
        '  user: {token: from-context}',
        'contexts:',
        '- name: c',
        '  context: {user: ctx}',
        'current-context: c',
        '',
      ].join('\n'),
    );
    const r = loadConnectionUsers(f);
    expect(r.forHost('certs.example.com')).toMatchObject({ cert: 'CERT', key: 'KEY' });
    expect(r.forHost('basic.example.com')).toMatchObject({ username: 'u', password: 'p' });
    expect(r.forHost('elsewhere.example.com')?.token).toBe('from-context');
  });

  it('a certificate without its key is refused when the file is read', () => {
    const f = join(dir, 'half.yaml');
    writeFileSync(
      f,
      `users:\n- name: x\n  user:\n    client-certificate-data: ${Buffer.from('C').toString('base64')}\n`,
    );
    expect(() => loadConnectionUsers(f)).toThrow(/needs its key/);
  });
});

describe('the plugin configuration (WebhookAdmissionConfiguration)', () => {
  const conn = join(dir, 'plain.yaml');
  writeFileSync(conn, 'users:\n- name: "*"\n  user: {token: t}\n');

  it('orchConfigFile, or Kubernetes name kubeConfigFile, names the connection file', () => {
    for (const field of ['orchConfigFile', 'kubeConfigFile']) {
      const r = credentialsFromConfig('ValidatingAdmissionWebhook', {
        apiVersion: 'apiserver.config.orch.io/v1',
        kind: 'WebhookAdmissionConfiguration',
        [field]: conn,
      });
      expect(r.forHost('x:443')?.token).toBe('t');
    }
  });

  it('refuses a relative path, another kind, a missing file', () => {
    expect(() => credentialsFromConfig('P', { orchConfigFile: 'rel.yaml' })).toThrow(/absolute/);
    expect(() =>
      credentialsFromConfig('P', { apiVersion: 'v1', kind: 'Other', orchConfigFile: conn }),
    ).toThrow(/WebhookAdmissionConfiguration/);
    expect(() => credentialsFromConfig('P', { orchConfigFile: join(dir, 'absent.yaml') })).toThrow(
      /absent\.yaml/,
    );
  });

  it('no configuration: no credentials', () => {
    expect(credentialsFromConfig('P', undefined).forHost('x')).toBeUndefined();
  });
});

describe('judging replies (doc3 Webhook contract; Kubernetes 1.28 per version)', () => {
  const reply = (body: unknown, status = 200, contentType = 'application/json') => ({
    status,
    contentType,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const v1 = (response: unknown) =>
    reply({ apiVersion: 'admission.orch.io/v1', kind: 'AdmissionReview', response });

  it('uid must be the request uid; allowed is required (Kubernetes 1.28 reads its absence as a denial; doc3 requires it)', () => {
    expect(() => judgeReply(v1({ uid: 'b', allowed: true }), 'v1', 'a', false)).toThrow(
      /expected response.uid="a", got "b"/,
    );
    expect(() => judgeReply(v1({ uid: 'a' }), 'v1', 'a', false)).toThrow(/response.allowed is required/);
    expect(judgeReply(v1({ uid: 'a', allowed: true }), 'v1', 'a', false).allowed).toBe(true);
    expect(judgeReply(v1({ uid: 'a', allowed: false }), 'v1', 'a', false).allowed).toBe(false);
  });

  it('v1beta1 replies meet the same rules (doc3; Kubernetes 1.28 does not check uid, version or patchType there)', () => {
    const beta = (response: unknown, apiVersion = 'admission.orch.io/v1beta1') =>
      reply({ apiVersion, kind: 'AdmissionReview', response });
    expect(judgeReply(beta({ uid: 'a', allowed: true }), 'v1beta1', 'a', true).allowed).toBe(true);
    expect(() => judgeReply(beta({ uid: 'other', allowed: true }), 'v1beta1', 'a', true)).toThrow(
      /response.uid/,
    );
    expect(() =>
      judgeReply(beta({ uid: 'a', allowed: true }, 'admission.orch.io/v1'), 'v1beta1', 'a', true),
    ).toThrow(/expected webhook response of admission.orch.io\/v1beta1, got admission.orch.io\/v1/);
    const patch = Buffer.from('[]').toString('base64');
    expect(() => judgeReply(beta({ uid: 'a', allowed: true, patch }), 'v1beta1', 'a', true)).toThrow(
      /patchType/,
    );
  });

  it('v1 mutating: a patch needs its patchType; a status code must be an int32; 201 is a success, 204 without a body is not', () => {
    const patch = Buffer.from('[]').toString('base64');
    expect(() => judgeReply(v1({ uid: 'a', allowed: true, patch }), 'v1', 'a', true)).toThrow(
      /not response.patchType/,
    );
    expect(() =>
      judgeReply(v1({ uid: 'a', allowed: false, status: { code: 2 ** 40 } }), 'v1', 'a', true),
    ).toThrow(/int32/);
    expect(() =>
      judgeReply(v1({ uid: 'a', allowed: true, patch: '%%%', patchType: 'JSONPatch' }), 'v1', 'a', true),
    ).toThrow(/base64/);
    const created = reply(
      { apiVersion: 'admission.orch.io/v1', kind: 'AdmissionReview', response: { uid: 'a', allowed: true } },
      201,
    );
    expect(judgeReply(created, 'v1', 'a', true).allowed).toBe(true);
    expect(() => judgeReply(reply('', 204), 'v1', 'a', true)).toThrow(InvalidReply);
  });

  it('a missing content type is read as JSON; any other type than JSON is refused', () => {
    const ok = {
      apiVersion: 'admission.orch.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'a', allowed: true },
    };
    expect(
      judgeReply({ status: 200, contentType: undefined, body: JSON.stringify(ok) }, 'v1', 'a', false).allowed,
    ).toBe(true);
    expect(judgeReply(reply(ok, 200, 'application/json; charset=utf-8'), 'v1', 'a', false).allowed).toBe(
      true,
    );
    expect(() => judgeReply(reply(ok, 200, 'text/html'), 'v1', 'a', false)).toThrow(/text\/html/);
  });
});

describe('rejections (doc3 Errors: status.code and status.message shape the reply)', () => {
  it('message, else reason, else without explanation; code default 400, never below 400', () => {
    const a = rejection('w.example.orch.io', { code: 409, message: 'taken', reason: 'Conflict' });
    expect(a.code).toBe(409);
    expect(a.message).toBe('admission webhook "w.example.orch.io" denied the request: taken');
    expect(a.toStatus().reason).toBe('Conflict');
    const b = rejection('w.example.orch.io', { reason: 'Because' });
    expect(b.code).toBe(400);
    expect(b.message).toBe('admission webhook "w.example.orch.io" denied the request: Because');
    const c = rejection('w.example.orch.io', undefined);
    expect(c.message).toBe('admission webhook "w.example.orch.io" denied the request without explanation');
    expect(c.toStatus().reason).toBeUndefined();
    expect(rejection('w', { code: 302 }).code).toBe(400);
    expect(rejection('w', { code: 5000 }).code).toBe(403);
  });
});
