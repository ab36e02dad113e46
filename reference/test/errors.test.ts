// The error catalogue and the HTTP layer's last lines of defence: Status objects shaped as
// Kubernetes sends them, internal errors answered as 500 InternalError (and logged) without
// taking the process down, errors after the headers went out, and requests the HTTP parser
// refuses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AdmissionChain } from '../src/admission/chain.ts';
import { AuthenticationUnion } from '../src/authentication/union.ts';
import { AuthorizerChain } from '../src/authorization/chain.ts';
import { errors, StatusError } from '../src/errors/status.ts';
import { build, type OrchServer } from '../src/index.ts';
import { clientErrorHandler, createHandlerFn } from '../src/http/server.ts';
import { rawExchange } from './bad-input-helpers.ts';

describe('the error catalogue: Status objects as Kubernetes writes them', () => {
  it('a path the API does not serve', () => {
    expect(errors.pathNotFound('/api/v1/foos').toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: '404: Page Not Found' }] },
      code: 404,
    });
  });

  it('a method the path does not take', () => {
    expect(errors.methodNotAllowed().toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] },
      code: 405,
    });
  });

  it('an object that is not there, core group and named group', () => {
    expect(errors.notFound('', 'configmaps', 'x').toStatus()).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'configmaps "x" not found',
      details: { name: 'x', kind: 'configmaps' },
    });
    const s = errors.notFound('apps', 'deployments', 'web').toStatus();
    expect(s.message).toBe('deployments.apps "web" not found');
    expect(s.details).toMatchObject({ name: 'web', group: 'apps', kind: 'deployments' });
  });

  it('Invalid: the kind is qualified by its group, one cause bare, several in brackets', () => {
    const one = errors.invalid({ group: '', kind: 'ConfigMap' }, 'Bad', [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: 'Invalid value: "Bad": must be lowercase',
      },
    ]);
    expect(one.toStatus()).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'ConfigMap "Bad" is invalid: metadata.name: Invalid value: "Bad": must be lowercase',
      details: { name: 'Bad', kind: 'ConfigMap' },
    });
    expect(one.toStatus().details?.group).toBeUndefined();
    const two = errors.invalid({ group: 'apps', kind: 'Deployment' }, 'web', [
      { field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' },
      { field: 'spec.selector', message: 'Required value' },
    ]);
    expect(two.message).toBe(
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]',
    );
    expect(two.details).toMatchObject({ group: 'apps', kind: 'Deployment', name: 'web' });
  });

  it('invalid request options: `<Kind>.meta.orch.io ""`, no name in the details', () => {
    const e = errors.invalidOptions('CreateOptions', [
      {
        reason: 'FieldValueNotSupported',
        field: 'dryRun',
        message: 'Unsupported value: []string{"x"}: supported values: "All"',
      },
    ]);
    expect(e.message).toBe(
      'CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values: "All"',
    );
    expect(e.toStatus().details).toEqual({
      group: 'meta.orch.io',
      kind: 'CreateOptions',
      causes: [
        {
          reason: 'FieldValueNotSupported',
          field: 'dryRun',
          message: 'Unsupported value: []string{"x"}: supported values: "All"',
        },
      ],
    });
  });

  it('the other client errors', () => {
    expect(errors.unauthorized().toStatus()).toMatchObject({
      code: 401,
      reason: 'Unauthorized',
      message: 'Unauthorized',
    });
    expect(errors.tooLarge(3 * 1024 * 1024).toStatus()).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 3145728',
    });
    expect(errors.alreadyExists('', 'configmaps', 'x').toStatus()).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "x" already exists',
    });
    expect(errors.staleUpdate('', 'configmaps', 'x').message).toBe(
      'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(errors.notAcceptable(['application/json']).toStatus()).toMatchObject({
      code: 406,
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json',
    });
    expect(errors.unsupportedMediaType('text/plain', ['application/json']).toStatus()).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json',
    });
    expect(errors.gone('too old').toStatus()).toMatchObject({ code: 410, reason: 'Expired' });
    expect(errors.headersTooLarge().toStatus()).toMatchObject({
      code: 431,
      reason: 'RequestHeaderFieldsTooLarge',
    });
    expect(errors.internal('boom').toStatus()).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: boom',
    });
  });
});

describe('internal errors never take the server down', () => {
  let orch: OrchServer;
  let server: Server;
  let url: string;
  const rejections: unknown[] = [];
  const onRejection = (e: unknown) => rejections.push(e);
  let handler: ReturnType<typeof createHandlerFn>;

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    orch = await build({ inMemory: true, tls: false });
    handler = createHandlerFn({
      registry: orch.registry,
      authn: new AuthenticationUnion([], true),
      authz: new AuthorizerChain([
        { name: 'all', authorize: async () => ({ decision: 'allow', reason: '' }) },
      ]),
      admission: new AdmissionChain(),
      audit: [],
      maxBodyBytes: 1024,
      compression: () => true,
      version: { gitVersion: 'test' },
      serverAddress: () => '127.0.0.1',
      health: async () => false,
      routes: [
        (_req, _res, u) => {
          if (u.pathname === '/boom') throw new Error('kaboom');
          return false;
        },
        (_req, _res, u) => {
          // not even an Error
          if (u.pathname === '/boom-string') throw 'a string';
          return false;
        },
        async (_req, res, u) => {
          if (u.pathname !== '/boom-after-headers') return false;
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
          res.write('{"partial":');
          await new Promise((r) => setTimeout(r, 5));
          throw new Error('failed half way through the reply');
        },
        (_req, res, u) => {
          if (u.pathname !== '/boom-after-end') return false;
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.end('done');
          throw new Error('failed after the reply was complete');
        },
        (_req, _res, u) => {
          // the error reply itself cannot be written (a header Node refuses)
          if (u.pathname === '/boom-unwritable')
            throw new StatusError(400, 'BadRequest', 'x', undefined, { 'X-Bad': 'a\nb' });
          return false;
        },
        async (req, _res, u) => {
          if (u.pathname !== '/read-body') return false;
          // reads the body after the client left
          await new Promise((r) => req.on('close', r));
          throw new Error('the client is gone');
        },
      ],
    });
    server = createServer(handler);
    server.on('clientError', clientErrorHandler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await orch?.close();
    process.off('unhandledRejection', onRejection);
    expect(rejections).toEqual([]);
  });

  const get = (p: string) =>
    rawExchange(url, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, undefined, {
      timeoutMs: 3000,
    });

  it('an exception before the reply: 500 InternalError Status, and it is logged', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const p of ['/boom', '/boom-string']) {
        const r = await get(p);
        expect(r.status).toBe(500);
        expect(r.json).toMatchObject({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 500,
          reason: 'InternalError',
        });
        expect(r.json.message).toMatch(/^Internal error occurred: /);
      }
      expect(log).toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });

  it('an exception after the headers went out: the connection is reset, the server carries on', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const r = await get('/boom-after-headers');
      expect(r.status).toBe(200);
      expect(r.incomplete).toBe(true);
      const r2 = await get('/boom-after-end');
      expect(r2.status).toBe(200);
      expect(r2.text).toBe('done');
      expect((await get('/version')).status).toBe(200);
    } finally {
      log.mockRestore();
    }
  });

  it('an error reply that cannot be written falls back to a bare 500', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const r = await get('/boom-unwritable');
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError' });
    } finally {
      log.mockRestore();
    }
  });

  it('a client that goes away while its request is being handled', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await rawExchange(url, `POST /read-body HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n`, '{"a":', {
        destroyAfterWrite: true,
        timeoutMs: 1000,
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
      expect((await get('/version')).status).toBe(200);
    } finally {
      log.mockRestore();
    }
  });

  it('the handler promise always resolves', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const r = await rawExchange(url, `GET /boom HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(r.status).toBe(500);
    } finally {
      log.mockRestore();
    }
    expect(rejections).toEqual([]);
  });
});

describe('requests the HTTP parser refuses', () => {
  class FakeSocket extends Duplex {
    written = '';
    ended = false;
    override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void) {
      this.written += chunk.toString();
      cb();
    }
    override _read() {}
    override _final(cb: () => void) {
      this.ended = true;
      cb();
    }
  }
  const parse = (s: string) => {
    const [head, body] = s.split('\r\n\r\n');
    return { statusLine: head!.split('\r\n')[0], body: JSON.parse(body!) };
  };

  it('a malformed request: 400 Status, connection closed', async () => {
    const sock = new FakeSocket();
    const err = Object.assign(new Error('Parse Error: Invalid method encountered'), {
      code: 'HPE_INVALID_METHOD',
      reason: 'Invalid method encountered',
    });
    clientErrorHandler(err, sock);
    await new Promise((r) => setImmediate(r));
    const { statusLine, body } = parse(sock.written);
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 400,
      reason: 'BadRequest',
    });
    expect(sock.ended).toBe(true);
  });

  it('headers past the limit: 431 Status', async () => {
    const sock = new FakeSocket();
    clientErrorHandler(
      Object.assign(new Error('Parse Error: Header overflow'), { code: 'HPE_HEADER_OVERFLOW' }),
      sock,
    );
    await new Promise((r) => setImmediate(r));
    const { statusLine, body } = parse(sock.written);
    expect(statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(body).toMatchObject({ kind: 'Status', code: 431, reason: 'RequestHeaderFieldsTooLarge' });
  });

  it('a reset connection is just closed', () => {
    const sock = new FakeSocket();
    clientErrorHandler(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), sock);
    expect(sock.written).toBe('');
    expect(sock.destroyed).toBe(true);
  });
});
