// Paths and methods a client gets wrong: unknown groups, versions and resources, malformed
// and over-long paths, dot segments, percent-encoding garbage, a namespaced path for a
// cluster-scoped kind, and methods a path does not serve. Each is a 4xx Status (Kubernetes'
// codes and reasons) and changes nothing in the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, raw, refused } from './bad-input-helpers.ts';
import { configMap, startServer, type TestServer, uniqueName } from './helpers.ts';

let t: TestServer;
let ns: string;
let base: string;

beforeAll(async () => {
  t = await startServer();
  ns = uniqueName('paths');
  const r1 = await t.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  expect(r1.status, r1.text).toBe(201);
  base = `/api/v1/namespaces/${ns}/configmaps`;
  const r2 = await t.req('POST', base, configMap('existing', { a: 'b' }));
  expect(r2.status, r2.text).toBe(201);
});

afterAll(async () => {
  await t?.close();
});

// Kubernetes answers an unmatched path with the generic 404 of its router.
const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';

describe('unknown groups, versions, resources: 404 NotFound', () => {
  const cases: [string, string][] = [
    ['unknown core resource', '/api/v1/foos'],
    ['unknown namespaced resource', '/api/v1/namespaces/NS/foos'],
    ['unknown resource, one object', '/api/v1/namespaces/NS/foos/x'],
    ['unknown core version', '/api/v2/namespaces'],
    ['unknown core version, discovery', '/api/v2'],
    ['unknown group', '/apis/nope.orch.io/v1/things'],
    ['unknown group, version discovery', '/apis/nope.orch.io/v1'],
    ['unknown group, group discovery', '/apis/nope.orch.io'],
    ['core resource under /apis', '/apis/v1/configmaps'],
    ['known resource, wrong group', '/apis/apps/v1/configmaps'],
    ['not an API path', '/nonsense'],
    ['not an API path, deeper', '/api-docs/v1/x'],
    ['kind name instead of resource', '/api/v1/namespaces/NS/ConfigMap'],
    ['singular instead of plural', '/api/v1/namespaces/NS/configmap'],
    ['uppercase resource', '/api/v1/namespaces/NS/ConfigMaps'],
  ];
  it.each(cases)('%s', async (_, p) => {
    const r = await refused(t, () => raw(t, 'GET', p.replace('NS', ns)));
    expectStatus(r, 404, 'NotFound');
    expect(r.json.message).toBe(NOT_FOUND_MESSAGE);
  });

  it('writes to an unknown resource are 404 as well', async () => {
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = await refused(t, () =>
        raw(t, m, `/api/v1/namespaces/${ns}/foos${m === 'POST' ? '' : '/x'}`, { body: '{}' }),
      );
      expectStatus(r, 404, 'NotFound');
    }
  });
});

describe('malformed paths', () => {
  it('extra segments past the subresource: 404', async () => {
    const r = await refused(t, () => raw(t, 'GET', `${base}/existing/status/more`));
    expectStatus(r, 404, 'NotFound');
    const r2 = await refused(t, () => raw(t, 'PUT', `${base}/existing/a/b/c`, { body: '{}' }));
    expectStatus(r2, 404, 'NotFound');
  });

  it('an unknown subresource: 404', async () => {
    const r = await refused(t, () => raw(t, 'GET', `${base}/existing/bogus`));
    expectStatus(r, 404, 'NotFound');
    // ConfigMaps have no status subresource
    const r2 = await refused(t, () => raw(t, 'PUT', `${base}/existing/status`, { body: '{}' }));
    expectStatus(r2, 404, 'NotFound');
  });

  it('empty segments: 404', async () => {
    for (const p of [
      `/api/v1/namespaces/${ns}//configmaps`,
      `/api/v1//namespaces/${ns}/configmaps`,
      `//api/v1/namespaces/${ns}/configmaps`,
      `${base}//existing`,
      `/api/v1/namespaces//configmaps`,
    ]) {
      const r = await refused(t, () => raw(t, 'GET', p));
      expectStatus(r, 404, 'NotFound');
    }
  });

  it('dot segments are not resolved: 404 (or 400 as a name)', async () => {
    for (const p of [
      `/api/v1/namespaces/${ns}/../configmaps`,
      `${base}/existing/../existing`,
      `/api/v1/./namespaces/${ns}/configmaps`,
      `/api/v1/namespaces/${ns}/configmaps/existing/..`,
      `/api/../api/v1/namespaces`,
      `/apis/../api/v1/namespaces`,
    ]) {
      const r = await refused(t, () => raw(t, 'GET', p));
      expect([400, 404], `${p}: ${r.text}`).toContain(r.status);
      expectStatus(r, r.status, r.status === 400 ? 'BadRequest' : 'NotFound');
    }
  });

  it('"." and ".." as a name: 400 BadRequest (Kubernetes: Name parameter invalid)', async () => {
    for (const name of ['.', '..', '%2e%2e', '%2E']) {
      const r = await refused(t, () => raw(t, 'GET', `${base}/${name}`));
      expectStatus(r, 400, 'BadRequest');
      const r2 = await refused(t, () => raw(t, 'DELETE', `${base}/${name}`));
      expectStatus(r2, 400, 'BadRequest');
      const r3 = await refused(t, () =>
        raw(t, 'PUT', `${base}/${name}`, { body: JSON.stringify(configMap(decodeURIComponent(name))) }),
      );
      expectStatus(r3, 400, 'BadRequest');
    }
  });

  it('a name with an encoded slash or percent sign: 400', async () => {
    for (const name of ['a%2Fb', 'a%25b']) {
      const r = await refused(t, () => raw(t, 'GET', `${base}/${name}`));
      expectStatus(r, 400, 'BadRequest');
    }
  });

  it('percent-encoding garbage: 400 BadRequest', async () => {
    for (const p of [
      `${base}/%zz`,
      `${base}/abc%`,
      `${base}/abc%4`,
      `/api/v1/namespaces/%G0/configmaps`,
      `${base}/%ff`,
      `${base}/%E0%A4%A`,
      `${base}/%C0%AF`,
      `/api/v1/%ZZ`,
    ]) {
      const r = await refused(t, () => raw(t, 'GET', p));
      expectStatus(r, 400, 'BadRequest');
    }
  });

  it('a long path within the header limit is routed (404 for a name that does not exist)', async () => {
    const r = await refused(t, () => raw(t, 'GET', `${base}/${'a'.repeat(8000)}`));
    expectStatus(r, 404, 'NotFound');
    const r2 = await refused(t, () => raw(t, 'GET', `/api/v1/${'x/'.repeat(3000)}`));
    expectStatus(r2, 404, 'NotFound');
  });

  it('a path past the header limit: 431 Status, and the server carries on', async () => {
    const r = await refused(t, () => raw(t, 'GET', `${base}/${'a'.repeat(1100 * 1024)}`));
    expectStatus(r, 431, 'RequestHeaderFieldsTooLarge');
    const ok = await t.req('GET', '/readyz');
    expect(ok.status).toBe(200);
  });

  it('a target that is not a path: 400', async () => {
    for (const p of ['*', 'api/v1/namespaces', '?watch=1']) {
      const r = await refused(t, () => raw(t, 'GET', p));
      expectStatus(r, 400, 'BadRequest');
    }
  });

  it('an absolute-form target is served by its path', async () => {
    const r = await raw(t, 'GET', `http://127.0.0.1${base}/existing`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.name).toBe('existing');
  });

  it('a query-looking name segment and fragments do not confuse routing', async () => {
    const r = await refused(t, () => raw(t, 'GET', `${base}/existing%3Fx=1`));
    expectStatus(r, 404, 'NotFound');
    const r2 = await refused(t, () => raw(t, 'GET', `${base}/existing#frag`));
    expect(r2.status).toBeGreaterThanOrEqual(400);
    expect(r2.status).toBeLessThan(500);
  });
});

describe('scope', () => {
  it('a cluster-scoped kind under a namespace: 404', async () => {
    for (const p of [
      `/api/v1/namespaces/${ns}/namespaces`,
      `/api/v1/namespaces/${ns}/namespaces/${ns}`,
      `/api/v1/namespaces/${ns}/namespaces/default/status`,
    ]) {
      const r = await refused(t, () => raw(t, 'GET', p));
      expectStatus(r, 404, 'NotFound');
    }
    const r = await refused(t, () =>
      raw(t, 'POST', `/api/v1/namespaces/${ns}/namespaces`, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sneaky' } }),
      }),
    );
    expectStatus(r, 404, 'NotFound');
  });

  it('a namespaced kind addressed by name without a namespace: 404', async () => {
    for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const r = await refused(t, () => raw(t, m, '/api/v1/configmaps/existing', { body: '{}' }));
      expectStatus(r, 404, 'NotFound');
    }
  });
});

describe('methods a path does not serve: 405 MethodNotAllowed', () => {
  const MESSAGE = 'the server does not allow this method on the requested resource';
  const cases: [string, string, string][] = [
    ['POST on one object', 'POST', 'NS_BASE/existing'],
    ['PUT on a collection', 'PUT', 'NS_BASE'],
    ['PATCH on a collection', 'PATCH', 'NS_BASE'],
    ['POST on the all-namespaces collection', 'POST', '/api/v1/configmaps'],
    ['DELETE on the all-namespaces collection', 'DELETE', '/api/v1/configmaps'],
    ['PUT on the all-namespaces collection', 'PUT', '/api/v1/configmaps'],
    ['deletecollection of namespaces (not a namespace verb)', 'DELETE', '/api/v1/namespaces'],
    ['POST on a namespace', 'POST', '/api/v1/namespaces/default'],
    ['OPTIONS on a collection', 'OPTIONS', 'NS_BASE'],
    ['TRACE on an object', 'TRACE', 'NS_BASE/existing'],
    ['a WebDAV method', 'PROPFIND', 'NS_BASE'],
    ['COPY on an object', 'COPY', 'NS_BASE/existing'],
    ['POST to the status of a namespace', 'POST', '/api/v1/namespaces/default/status'],
    ['DELETE the finalize subresource', 'DELETE', '/api/v1/namespaces/default/finalize'],
    ['PUT on discovery', 'PUT', '/api'],
    ['POST on group discovery', 'POST', '/apis'],
    ['DELETE on resource discovery', 'DELETE', '/api/v1'],
  ];
  it.each(cases)('%s', async (_, method, p) => {
    const r = await refused(t, () => raw(t, method, p.replace('NS_BASE', base), { body: '{}' }));
    expectStatus(r, 405, 'MethodNotAllowed');
    expect(r.json.message).toBe(MESSAGE);
  });

  it('an unknown resource stays 404 whatever the method', async () => {
    const r = await refused(t, () => raw(t, 'PROPFIND', `/api/v1/namespaces/${ns}/foos`));
    expectStatus(r, 404, 'NotFound');
  });

  it('a method the HTTP parser does not know: 400 Status from the parser, and the server carries on', async () => {
    // Node's parser only admits registered methods; Kubernetes (Go) would route it to a 405.
    const r = await refused(t, () => raw(t, 'FROBNICATE', base));
    expectStatus(r, 400, 'BadRequest');
    expect((await t.req('GET', '/readyz')).status).toBe(200);
  });

  it('HEAD is served like GET, without a body', async () => {
    const r = await raw(t, 'HEAD', `${base}/existing`);
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
  });
});

describe('the object named in the path', () => {
  it('the store still holds the fixture untouched', async () => {
    const r = await t.req('GET', `${base}/existing`);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: 'b' });
  });
});
