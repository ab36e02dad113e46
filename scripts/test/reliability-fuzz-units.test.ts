// The fuzzer's parts without a server: the same seed builds the same requests (request i
// alone, whatever came before), the guard keeps requests off the canary and the server's
// configuration, and the checks do fail: a 500, an error that is not a Status, a Status whose
// code differs, a 2xx that does not parse, a changed canary, a dead server.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { encodeProtobuf } from '../../reference/src/content/protobuf.ts';
import { canaryProblem } from '../reliability/fuzz/canary.ts';
import { checkAnswer } from '../reliability/fuzz/check.ts';
import type { FuzzContext } from '../reliability/fuzz/context.ts';
import { healthProblems } from '../reliability/fuzz/health.ts';
import { type FuzzRequest, generateRequest } from '../reliability/fuzz/request.ts';
import type { ServedResource } from '../reliability/fuzz/resources.ts';
import { type Answer, send } from '../reliability/fuzz/send.ts';

const res = (
  prefix: string,
  plural: string,
  kind: string,
  namespaced: boolean,
  subresources: string[] = [],
): ServedResource => ({
  prefix,
  groupVersion: prefix.replace(/^\/apis?\//, ''),
  group: prefix.startsWith('/apis/') ? prefix.split('/')[2]! : '',
  plural,
  kind,
  namespaced,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources,
});

const ctx: FuzzContext = {
  token: 'tok',
  workNamespace: 'fuzz-work',
  canaryNamespace: 'fuzz-canary-zone',
  resources: [
    res('/api/v1', 'configmaps', 'ConfigMap', true),
    res('/api/v1', 'pods', 'Pod', true, ['status', 'log', 'exec', 'proxy']),
    res('/api/v1', 'namespaces', 'Namespace', false, ['status', 'finalize']),
    res('/apis/apps/v1', 'deployments', 'Deployment', true, ['status', 'scale']),
    res(
      '/apis/admissionregistration.orch.io/v1',
      'validatingwebhookconfigurations',
      'ValidatingWebhookConfiguration',
      false,
    ),
  ],
};

const show = (r: FuzzRequest) => ({ ...r, body: r.body?.toString('base64') });

describe('generation', () => {
  it('the same seed builds the same requests; another seed others', () => {
    const a = Array.from({ length: 300 }, (_, i) => show(generateRequest(42, i, ctx)));
    const b = Array.from({ length: 300 }, (_, i) => show(generateRequest(42, i, ctx)));
    const c = Array.from({ length: 300 }, (_, i) => show(generateRequest(43, i, ctx)));
    expect(b).toEqual(a);
    expect(c.filter((r, i) => JSON.stringify(r) === JSON.stringify(a[i])).length).toBeLessThan(10);
  });

  it('request i is the same alone or after the others', () => {
    const alone = show(generateRequest(7, 250, ctx));
    for (let i = 0; i < 250; i++) generateRequest(7, i, ctx);
    expect(show(generateRequest(7, 250, ctx))).toEqual(alone);
  });

  it('the mix covers every family, method, body type and the streams', () => {
    const rs = Array.from({ length: 1500 }, (_, i) => generateRequest(1, i, ctx));
    expect(new Set(rs.map((r) => r.family))).toEqual(new Set(['plausible', 'watch', 'malformed', 'chaos']));
    const methods = new Set(rs.map((r) => r.method));
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT'])
      expect(methods).toContain(m);
    const types = new Set(
      rs.flatMap((r) => r.headers.filter(([k]) => k === 'Content-Type').map(([, v]) => v)),
    );
    for (const t of [
      'application/json',
      'application/yaml',
      'application/vnd.orch.protobuf',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ])
      expect(types).toContain(t);
    expect(rs.some((r) => r.streaming && /timeoutSeconds=1/.test(r.target))).toBe(true);
    expect(rs.some((r) => (r.body?.length ?? 0) > 3 << 20)).toBe(true);
    expect(rs.some((r) => /\[{1000}/.test(r.body?.toString('latin1') ?? ''))).toBe(true);
  });

  it('the guard: no namespace deleted but default, no write to the configuring groups, the canary never named', () => {
    for (let i = 0; i < 2000; i++) {
      const r = generateRequest(3, i, ctx);
      const path = r.target.split('?')[0]!;
      if (r.method === 'DELETE' && /\/namespaces(\/[^/]*)?\/?$/.test(path))
        expect(r.target).toBe('/api/v1/namespaces/default');
      if (path.includes('/apis/admissionregistration.orch.io/'))
        expect(['POST', 'PUT', 'PATCH', 'DELETE']).not.toContain(r.method);
      expect(r.target).not.toContain('canary');
    }
  });
});

const answer = (
  status: number,
  body: string | Buffer,
  contentType = 'application/json',
  extra: Partial<Answer> = {},
): Answer => ({
  status,
  headers: { 'content-type': contentType },
  body: Buffer.from(body),
  incomplete: false,
  streamCut: false,
  timedOut: false,
  ms: 1,
  ...extra,
});
const req: FuzzRequest = {
  index: 9,
  family: 'chaos',
  method: 'GET',
  target: '/x',
  headers: [],
  streaming: false,
};
const status = (code: number, reason: string, message = 'm') =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason,
    message,
    code,
  });

describe('checks', () => {
  it('a well-formed error, a parsing 2xx and doc1’s 504 pass', () => {
    expect(checkAnswer(req, answer(404, status(404, 'NotFound')))).toEqual([]);
    expect(checkAnswer(req, answer(200, '{"kind":"ConfigMap"}'))).toEqual([]);
    expect(
      checkAnswer(req, answer(504, status(504, 'Timeout', 'Too large resource version: 9, current: 3'))),
    ).toEqual([]);
    const pb = encodeProtobuf({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'NotFound',
      message: 'm',
      code: 404,
    });
    expect(checkAnswer(req, answer(404, pb, 'application/vnd.orch.protobuf'))).toEqual([]);
  });

  it('a 500 is flagged, even with a Status', () => {
    const v = checkAnswer(req, answer(500, status(500, 'InternalError')));
    expect(v.map((x) => x.problem)).toEqual(['status 500']);
    expect(v[0]!.index).toBe(9);
  });

  it('a service proxy with no endpoints may answer 503; another 503 is flagged', () => {
    const proxy = { ...req, target: '/api/v1/namespaces/ns/services/web/proxy/x' };
    const body = status(503, 'ServiceUnavailable', 'no endpoints available for service "web"');
    expect(checkAnswer(proxy, answer(503, body))).toEqual([]);
    expect(checkAnswer(req, answer(503, body)).map((x) => x.problem)).toEqual(['status 503']);
    expect(checkAnswer(proxy, answer(503, status(503, 'ServiceUnavailable', 'storage is down'))).length).toBe(
      1,
    );
  });

  it('a node proxy to a node without addresses may answer 500 as Kubernetes does; another 500 on it is flagged', () => {
    const proxy = { ...req, target: '/api/v1/nodes/n1/proxy' };
    const body = status(
      500,
      'InternalError',
      'Internal error occurred: no preferred addresses found; known addresses: []',
    );
    expect(checkAnswer(proxy, answer(500, body))).toEqual([]);
    expect(checkAnswer(req, answer(500, body)).map((x) => x.problem)).toEqual(['status 500']);
    expect(
      checkAnswer(proxy, answer(500, status(500, 'InternalError', 'Internal error occurred: boom'))).length,
    ).toBe(1);
  });

  it('a HEAD 504 passes only when it asked for a resource version', () => {
    const head = { ...req, method: 'HEAD' };
    expect(checkAnswer({ ...head, target: '/api/v1/pods?resourceVersion=99999' }, answer(504, ''))).toEqual(
      [],
    );
    expect(checkAnswer({ ...head, target: '/api/v1/pods' }, answer(504, '')).map((x) => x.problem)).toEqual([
      'status 504',
    ]);
  });

  it('a 504 that is not the resource version one is flagged', () => {
    expect(checkAnswer(req, answer(504, status(504, 'Timeout', 'the request timed out'))).length).toBe(1);
  });

  it('an error that is not a Status is flagged', () => {
    expect(checkAnswer(req, answer(404, '404 page not found\n', 'text/plain')).map((x) => x.problem)).toEqual(
      ['the error body is not a Status (content type "text/plain")'],
    );
    expect(checkAnswer(req, answer(400, '{"kind":"Status"', 'application/json'))[0]!.problem).toMatch(
      /does not parse/,
    );
    expect(checkAnswer(req, answer(400, '{"kind":"ConfigMap"}'))[0]!.problem).toMatch(/kind is "ConfigMap"/);
    expect(checkAnswer(req, answer(409, status(400, 'BadRequest')))[0]!.problem).toMatch(
      /code 400 is not the HTTP status 409/,
    );
    expect(checkAnswer(req, answer(403, status(403, '')))[0]!.problem).toMatch(/no reason/);
    const pb = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff]);
    expect(checkAnswer(req, answer(404, pb, 'application/vnd.orch.protobuf'))[0]!.problem).toMatch(
      /does not parse/,
    );
  });

  it('a 2xx that does not parse, no answer, a hang, a cut answer and a 5xx watch event are flagged', () => {
    expect(checkAnswer(req, answer(200, '{"kind":', 'application/json'))[0]!.problem).toMatch(
      /200 body does not parse/,
    );
    expect(checkAnswer(req, answer(0, '', '', { error: 'ECONNRESET' }))[0]!.problem).toMatch(/no answer/);
    expect(checkAnswer(req, answer(0, '', '', { timedOut: true }))[0]!.problem).toMatch(/hang/);
    expect(checkAnswer(req, answer(200, '{}', 'application/json', { incomplete: true }))[0]!.problem).toMatch(
      /cut short/,
    );
    const ev = `${JSON.stringify({ type: 'ERROR', object: JSON.parse(status(500, 'InternalError')) })}\n`;
    const watch = answer(200, ev, 'application/json', {
      streamCut: true,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect(checkAnswer(req, watch)[0]!.problem).toMatch(/watch ERROR event with code 500/);
  });

  it('a changed or vanished canary is flagged, an unchanged one not', () => {
    const c = { kind: 'ConfigMap', metadata: { name: 'canary', resourceVersion: '5' }, data: { k: 'v' } };
    expect(canaryProblem(c, structuredClone(c))).toBeUndefined();
    expect(canaryProblem(c, { ...c, metadata: { ...c.metadata, resourceVersion: '6' } })).toMatch(
      /canary changed/,
    );
    expect(canaryProblem(c, { ...c, data: { k: 'w' } })).toMatch(/canary changed/);
    expect(canaryProblem(c, { readStatus: 404, body: '' })).toMatch(/canary changed/);
  });

  it('a dead server is flagged', async () => {
    expect(
      await healthProblems({
        url: 'http://127.0.0.1:1',
        token: 't',
        alive: () => false,
        rss: () => undefined,
      }),
    ).toEqual(['the server process is not running']);
    expect(
      await healthProblems({
        url: 'http://127.0.0.1:1',
        token: 't',
        alive: () => true,
        rss: () => undefined,
      }),
    ).toEqual(['/readyz answered nothing', '/livez answered nothing']);
  });
});

describe('the raw client', () => {
  it('reads a 64 MiB answer (by length and chunked) in linear time, and a HEAD by its head', async () => {
    const big = Buffer.alloc(64 << 20, 'x');
    const srv = createServer((q, s) => {
      if (q.url === '/chunked') {
        s.writeHead(200, { 'Content-Type': 'text/plain' });
        for (let i = 0; i < big.length; i += 1 << 20) s.write(big.subarray(i, i + (1 << 20)));
        s.end();
      } else {
        s.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': big.length });
        s.end(q.method === 'HEAD' ? undefined : big);
      }
    });
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    try {
      for (const [method, target, length] of [
        ['GET', '/length', big.length],
        ['GET', '/chunked', big.length],
        ['HEAD', '/length', 0],
      ] as const) {
        const a = await send(url, { ...req, method, target }, { timeoutMs: 20_000, streamMs: 20_000 });
        expect([a.status, a.body.length, a.timedOut, a.streamCut], target).toEqual([
          200,
          length,
          false,
          false,
        ]);
        // a HEAD's Content-Length announces a body that never comes
        if (method === 'GET') expect(a.incomplete, target).toBe(false);
        expect(a.ms, target).toBeLessThan(10_000);
      }
    } finally {
      srv.closeAllConnections();
      await new Promise((ok) => srv.close(ok));
    }
  });
});
