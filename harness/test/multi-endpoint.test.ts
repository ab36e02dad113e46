// Several endpoints of one API (harness/src/endpoints.ts): two real HTTP servers record what
// reaches them; requests and watches alternate between them, clients made from one target
// share its rotation, answers and errors name the endpoint, a failing case lists its requests
// with the endpoints that took them; one endpoint behaves as before; the flag and variable
// parsing (repeatable --endpoint, comma lists, refusals with clear messages); the run's summary
// lists every endpoint.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Summary, summaryText } from '../../reports/finish.ts';
import { parseRunArgs, UsageError } from '../../scripts/run.ts';
import { clientWith } from '../src/auth/credentials.ts';
import { Client } from '../src/client.ts';
import { endpointTrail, Endpoints, namingEndpoints, parseEndpointList } from '../src/endpoints.ts';
import { resolveTarget, targetUrls } from '../src/target.ts';
import { runTargets } from '../src/targets.ts';
import { WatchStream } from '../src/watch.ts';

interface Seen {
  method: string;
  path: string;
  watch: boolean;
  auth?: string;
}

/** A server that records every request; a watch gets one ADDED event naming the server, then stays open. */
async function recorder(name: string): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const watch = u.searchParams.get('watch') === '1';
    seen.push({ method: req.method ?? '', path: u.pathname, watch, auth: req.headers.authorization });
    req.resume();
    if (u.pathname === '/reset') {
      req.socket.destroy();
      return;
    }
    if (u.pathname === '/missing') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: `not on ${name}`,
        }),
      );
      return;
    }
    if (watch) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name } } })}\n`);
      return; // open until the client closes it
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let a: Awaited<ReturnType<typeof recorder>>;
let b: Awaited<ReturnType<typeof recorder>>;
const clients: Client[] = [];
const clear = () => {
  a.seen.length = 0;
  b.seen.length = 0;
};
const client = (t: ConstructorParameters<typeof Client>[0]) => {
  const c = new Client(t);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  [a, b] = await Promise.all([recorder('a'), recorder('b')]);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([a?.close(), b?.close()]);
});

describe('two endpoints', () => {
  it('requests alternate between them, each with the same credentials, and each answer names its endpoint', async () => {
    clear();
    const c = client(resolveTarget({ endpoint: [a.url, b.url], token: 'T' }, {}));
    const answers = [];
    for (const [m, p] of [
      ['GET', '/one'],
      ['POST', '/two'],
      ['PUT', '/three'],
      ['DELETE', '/four'],
      ['PATCH', '/five'],
    ] as const)
      answers.push(
        await c.request({ method: m, path: p, body: m === 'GET' || m === 'DELETE' ? undefined : {} }),
      );
    expect(a.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /one', 'PUT /three', 'PATCH /five']);
    expect(b.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /two', 'DELETE /four']);
    expect([...a.seen, ...b.seen].every((s) => s.auth === 'Bearer T')).toBe(true);
    expect(answers.map((r) => r.json.metadata.name)).toEqual(['a', 'b', 'a', 'b', 'a']);
    expect(answers.map((r) => r.endpoint)).toEqual([a.url, b.url, a.url, b.url, a.url]);
    expect(answers[1]!.describe()).toBe(`POST /two -> 200 ${answers[1]!.text} (answered by ${b.url})`);
  });

  it('watches take turns with requests from the same rotation, and their messages name their endpoint', async () => {
    clear();
    const c = client(resolveTarget({ endpoint: [a.url, b.url] }, {}));
    const w1 = await WatchStream.open(c, { path: '/w1' });
    const r = await c.get('/between');
    const w2 = await WatchStream.open(c, { path: '/w2' });
    try {
      expect(a.seen.map((s) => [s.path, s.watch])).toEqual([
        ['/w1', true],
        ['/w2', true],
      ]);
      expect(b.seen.map((s) => [s.path, s.watch])).toEqual([['/between', false]]);
      expect(r.json.metadata.name).toBe('b');
      expect((await w1.next(2000)).object.metadata.name).toBe('a');
      expect(w1.endpoint).toBe(a.url);
      // nothing more comes: the timeout says which endpoint stayed silent
      await expect(w1.next(50)).rejects.toThrow(
        `no watch event within 50 ms (received 1 so far from ${a.url})`,
      );
      expect((await w2.next(2000)).object.metadata.name).toBe('a');
    } finally {
      w1.close();
      w2.close();
    }
    // the next request continues the rotation after the second watch
    await c.get('/after');
    expect(b.seen.at(-1)?.path).toBe('/after');
  });

  it('clients made from the target with other credentials share its rotation', async () => {
    clear();
    const t = resolveTarget({ endpoint: `${a.url},${b.url}`, token: 'T' }, {});
    const c = client(t);
    const other = clientWith(t, { token: 'U' });
    clients.push(other);
    await c.get('/c1');
    await other.get('/o1');
    await c.get('/c2');
    await other.get('/o2');
    expect(a.seen.map((s) => `${s.path} ${s.auth}`)).toEqual(['/c1 Bearer T', '/c2 Bearer T']);
    expect(b.seen.map((s) => `${s.path} ${s.auth}`)).toEqual(['/o1 Bearer U', '/o2 Bearer U']);
  });

  it("a case about one server's own state (pinned) sends every request and watch to one endpoint; after it the rotation goes on", async () => {
    clear();
    const t = resolveTarget({ endpoint: [a.url, b.url], token: 'T' }, {});
    const c = client(t);
    const other = clientWith(t, { token: 'U' });
    clients.push(other);
    await c.get('/before');
    await c.endpoints.pinned(async () => {
      await c.get('/p1');
      await other.get('/p2');
      const w = await WatchStream.open(c, { path: '/pw' });
      w.close();
      await c.get('/p3');
    });
    await c.get('/after1');
    await c.get('/after2');
    expect(a.seen.map((s) => s.path)).toEqual(['/before', '/after1']);
    expect(b.seen.map((s) => s.path)).toEqual(['/p1', '/p2', '/pw', '/p3', '/after2']);
  });

  it('an endpoint that does not answer is named in the error', async () => {
    clear();
    const c = client(resolveTarget({ endpoint: [a.url, b.url] }, {}));
    await c.get('/first'); // a
    await expect(c.get('/reset')).rejects.toThrow(
      new RegExp(`^GET /reset: no answer at ${b.url.replace(/\./g, '\\.')} \\(`),
    );
  });

  it('a failing body gets the endpoint lines of its requests; a skip and a success are left alone', async () => {
    clear();
    const c = client(resolveTarget({ endpoint: [a.url, b.url] }, {}));
    await c.get('/before-the-case'); // a: not part of the case
    const err = await namingEndpoints(c.endpoints, async () => {
      await c.get('/found'); // b
      const r = await c.get('/missing'); // a
      throw new Error(`expected 200, got ${r.status}`);
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      `expected 200, got 404\n  Endpoints (requests alternate): ${a.url}, ${b.url}\n  The case's requests and the endpoint that answered each:\n    GET /found -> ${b.url}: 200\n    GET /missing -> ${a.url}: 404`,
    );
    // the stack holds the message once, the endpoint lines with it
    const stack = (err as Error).stack ?? '';
    expect(stack.startsWith(`Error: ${(err as Error).message}\n    at `)).toBe(true);
    expect(stack.split('Endpoints (requests alternate)').length).toBe(2);
    const skip = Object.assign(new Error('test is skipped'), { code: 'VITEST_PENDING' });
    await expect(
      namingEndpoints(c.endpoints, async () => {
        await c.get('/x');
        throw skip;
      }),
    ).rejects.toThrow(/^test is skipped$/);
    expect(await namingEndpoints(c.endpoints, async () => (await c.get('/ok')).status)).toBe(200);
  });

  it('the trail shows the last requests of a long case and says how many there were', () => {
    const e = new Endpoints(['http://h:1', 'http://h:2']);
    const mark = e.mark();
    for (let i = 0; i < 10; i++) e.take(`GET /r${i}`).answer = '200';
    const t = endpointTrail(e, mark, 3);
    expect(t).toContain("Last 3 of the case's 10 requests");
    expect(t.split('\n').filter((l) => l.startsWith('    GET'))).toEqual([
      '    GET /r7 -> http://h:2: 200',
      '    GET /r8 -> http://h:1: 200',
      '    GET /r9 -> http://h:2: 200',
    ]);
    // more requests than the journal keeps: the count is still the case's
    for (let i = 0; i < 100; i++) e.take(`GET /more${i}`);
    expect(endpointTrail(e, mark, 2)).toContain("Last 2 of the case's 110 requests");
    expect(endpointTrail(new Endpoints(['http://h:1']), 0)).toBe('');
  });
});

describe('one endpoint', () => {
  it('behaves as before: every request and watch goes to it, and messages do not name it', async () => {
    clear();
    const t = resolveTarget({ endpoint: a.url, token: 'T' }, {});
    expect(t.endpoints).toBeUndefined();
    expect(targetUrls(t)).toEqual([a.url]);
    const c = client(t);
    const r1 = await c.get('/one');
    const w = await WatchStream.open(c, { path: '/w' });
    w.close();
    await c.get('/two');
    expect(a.seen.map((s) => s.path)).toEqual(['/one', '/w', '/two']);
    expect(b.seen).toEqual([]);
    expect(r1.endpoint).toBeUndefined();
    expect(r1.describe()).toBe(`GET /one -> 200 ${r1.text}`);
    expect(w.endpoint).toBeUndefined();
    await expect(c.get('/reset')).rejects.toThrow(/^GET \/reset: no answer \(/);
    const err = await namingEndpoints(c.endpoints, async () => {
      await c.get('/x');
      throw new Error('plain');
    }).catch((e: Error) => e);
    expect((err as Error).message).toBe('plain');
  });
});

describe('naming the endpoints', () => {
  it('ORCH_ENDPOINT takes a comma-separated list; the flag wins over it', () => {
    const t = resolveTarget({}, { ORCH_ENDPOINT: ' http://h:1 , https://h:2' });
    expect(t.url).toBe('http://h:1');
    expect(targetUrls(t)).toEqual(['http://h:1', 'https://h:2']);
    expect(
      targetUrls(resolveTarget({ endpoint: ['http://f:1'] }, { ORCH_ENDPOINT: 'http://h:1,http://h:2' })),
    ).toEqual(['http://f:1']);
    // an empty variable is no endpoint at all
    expect(() => resolveTarget({}, { ORCH_ENDPOINT: '' })).toThrow(/^no endpoint: pass --endpoint URL/);
  });

  it('refuses an empty, malformed, non-http or repeated URL with a message saying where', () => {
    expect(() => parseEndpointList('http://h:1,', 'ORCH_ENDPOINT')).toThrow(
      'ORCH_ENDPOINT: an empty endpoint URL in the list (give each endpoint as http(s)://HOST:PORT)',
    );
    expect(() => parseEndpointList([''], '--endpoint')).toThrow(
      '--endpoint: an empty endpoint URL (give each endpoint',
    );
    expect(() => parseEndpointList(['http://h:1', '127.0.0.1:2'], '--endpoint')).toThrow(
      '--endpoint: "127.0.0.1:2" is not a URL (give each endpoint as http(s)://HOST:PORT)',
    );
    expect(() => parseEndpointList(['http://'], '--endpoint')).toThrow('--endpoint: "http://" is not a URL');
    expect(() => parseEndpointList(['ftp://h:1'], '--endpoint')).toThrow(
      '--endpoint: "ftp://h:1" is not an http or https URL',
    );
    expect(() => parseEndpointList(['localhost:8080'], '--endpoint')).toThrow(
      '--endpoint: "localhost:8080" is not an http or https URL (give each endpoint as http(s)://HOST:PORT)',
    );
    expect(() => parseEndpointList(['http://h:1', 'http://h:1'], '--endpoint')).toThrow(
      '--endpoint: "http://h:1" is named twice',
    );
    expect(() => parseEndpointList('http://h:1,HTTP://h:1/', 'ORCH_ENDPOINT')).toThrow(
      'ORCH_ENDPOINT: "HTTP://h:1/" is named twice (as "http://h:1")',
    );
    expect(() => resolveTarget({}, { ORCH_ENDPOINT: 'http://h:1,,http://h:2' })).toThrow(
      /^ORCH_ENDPOINT: an empty endpoint URL/,
    );
  });

  it('run: --endpoint repeats, takes comma lists, and refuses a bad URL as a usage error', () => {
    expect(parseRunArgs(['--endpoint', 'http://h:1', '--endpoint', 'http://h:2']).target.endpoints).toEqual([
      'http://h:1',
      'http://h:2',
    ]);
    expect(
      parseRunArgs(['--endpoint', 'http://h:1,http://h:2', '--endpoint=http://h:3']).target.endpoints,
    ).toEqual(['http://h:1', 'http://h:2', 'http://h:3']);
    expect(parseRunArgs([]).target.endpoints).toBeUndefined();
    const usage = (argv: string[]) => {
      try {
        parseRunArgs(argv);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error(`${argv.join(' ')} was accepted`);
    };
    expect(usage(['--endpoint', 'http://h:1', '--endpoint='])).toBe(
      '--endpoint: an empty endpoint URL in the list (give each endpoint as http(s)://HOST:PORT)',
    );
    expect(usage(['--endpoint', 'nonsense'])).toBe(
      '--endpoint: "nonsense" is not a URL (give each endpoint as http(s)://HOST:PORT)',
    );
  });

  it("the run's targets: the main one from ORCH_ENDPOINT's list, a further one from ORCH_EXTRA_TARGETS' urls", () => {
    const r = runTargets({
      ORCH_ENDPOINT: 'http://h:1,http://h:2',
      ORCH_EXTRA_TARGETS: JSON.stringify([
        { name: 'pair', url: 'http://x:1', urls: ['http://x:1', 'http://x:2'] },
        { name: 'one', url: 'http://y:1' },
      ]),
    });
    expect(r.targets.map((t) => [t.name, targetUrls(t.target)])).toEqual([
      ['main', ['http://h:1', 'http://h:2']],
      ['pair', ['http://x:1', 'http://x:2']],
      ['one', ['http://y:1']],
    ]);
    expect(() =>
      runTargets({
        ORCH_ENDPOINT: 'http://h:1',
        ORCH_EXTRA_TARGETS: JSON.stringify([{ name: 'bad', url: 'http://x:1', urls: ['x'] }]),
      }),
    ).toThrow('ORCH_EXTRA_TARGETS bad: "x" is not a URL');
  });
});

describe("the run's summary", () => {
  const summary = (endpoints: string[]) =>
    ({
      executed: 1,
      passed: 1,
      failed: 0,
      expectedFailures: 0,
      unexpectedPasses: 0,
      skipped: 0,
      notSelected: 0,
      seconds: 1,
      casesPerSecond: 1,
      ok: true,
      reasons: [],
      unexpected: { failures: [], passes: [] },
      skips: [],
      retried: [],
      fileErrors: [],
      endpoint: endpoints.join(', '),
      endpoints,
      profile: 'all (every level)',
      levels: [],
    }) as unknown as Summary;
  it('names every endpoint when there are several, and says nothing more for one', () => {
    expect(summaryText(summary(['http://h:1', 'http://h:2']), '/nowhere', 1)).toContain(
      'Endpoints:     http://h:1, http://h:2 (requests alternated between them)',
    );
    expect(summaryText(summary(['http://h:1']), '/nowhere', 1)).not.toContain('Endpoints:');
  });
});
