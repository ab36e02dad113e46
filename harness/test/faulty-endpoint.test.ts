// The harness's HTTP and watch clients against every faulty endpoint mode: each operation
// ends within its timeout (plus a small margin), and its message names the endpoint and says
// what the endpoint did, in the words an implementer acts on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issue, makeCa } from '../src/auth/pki.ts';
import { Client } from '../src/client.ts';
import {
  FAULT_MODES,
  type FaultMode,
  type FaultyEndpoint,
  startFaultyEndpoint,
} from '../src/faulty-endpoint.ts';
import { WatchStream } from '../src/watch.ts';

const TIMEOUT = 1_000;
/** Scheduling slack on a loaded machine: an operation must end by TIMEOUT + MARGIN. */
const MARGIN = 1_500;

const NO_HEADERS = /no response headers from http:\/\/127\.0\.0\.1:\d+ within 1 s/;

/** What the plain GET must say (undefined: the mode answers plain requests correctly). */
const GET_SAYS: Record<FaultMode, RegExp | undefined> = {
  stalled: NO_HEADERS,
  'stalled-headers': NO_HEADERS,
  reset: /connection reset by the endpoint .* while reading the body \(received \d+ body bytes\)/,
  garbage: /answered bytes that are not HTTP\/1\.1/,
  'half-closed': /closed the connection in the middle of the body/,
  closed: /closed the connection without answering/,
  slow: NO_HEADERS,
  'bad-json':
    /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default\/configmaps -> 200: the body is declared application\/json but is not JSON/,
  'watch-stall': undefined,
  'slow-watch': undefined,
  'bad-watch': undefined,
};

/** What opening a watch and reading two events must say. */
const WATCH_SAYS: Record<FaultMode, RegExp> = {
  stalled: NO_HEADERS,
  'stalled-headers': NO_HEADERS,
  reset: /watch stream of GET .* broke: connection reset by the endpoint/,
  garbage: /answered bytes that are not HTTP\/1\.1/,
  'half-closed':
    /watch stream of GET .* broke: the endpoint .* closed the connection in the middle of the body/,
  closed: /closed the connection without answering/,
  slow: /no watch event within 1000 ms .* unfinished event document arrived/,
  'bad-json': /ended the stream in the middle of an event document/,
  'watch-stall': /no watch event within 1000 ms .* the stream is open and silent/,
  'slow-watch': /no watch event within 1000 ms .* unfinished event document arrived/,
  'bad-watch': /ended the stream in the middle of an event document/,
};

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value?: T; error?: Error }> {
  const t = Date.now();
  try {
    const value = await f();
    return { ms: Date.now() - t, value };
  } catch (e) {
    return { ms: Date.now() - t, error: e as Error };
  }
}

/** GET a collection; reading the body as JSON is part of the operation. */
async function get(c: Client) {
  const r = await c.get('/api/v1/namespaces/default/configmaps', { timeoutMs: TIMEOUT });
  return { status: r.status, kind: r.json?.kind as unknown };
}

/** Open a watch and read two events (a healthy stream would give them or stay open). */
async function watch(c: Client) {
  const w = await WatchStream.open(c, {
    path: '/api/v1/namespaces/default/configmaps',
    connectTimeoutMs: TIMEOUT,
  });
  try {
    await w.next(TIMEOUT);
    await w.next(TIMEOUT);
  } finally {
    w.close();
  }
}

describe('the harness against faulty endpoints', () => {
  for (const mode of FAULT_MODES) {
    describe(mode, () => {
      let ep: FaultyEndpoint;
      let client: Client;
      beforeAll(async () => {
        ep = await startFaultyEndpoint(mode, { slowByteMs: 100 });
        client = new Client({ url: ep.url, token: 'x', dialect: 'orch' });
      });
      afterAll(async () => {
        await client.close().catch(() => undefined);
        await ep.close();
      });

      it('a request ends within its timeout, saying what the endpoint did', async () => {
        const r = await timed(() => get(client));
        expect(r.ms).toBeLessThan(TIMEOUT + MARGIN);
        const says = GET_SAYS[mode];
        if (!says) {
          expect(r.error).toBeUndefined();
          expect(r.value?.status).toBe(200);
          return;
        }
        expect(r.error?.message).toMatch(says);
        expect(r.error?.message).toContain(ep.url.replace('http://', ''));
      });

      it('a watch ends within its timeouts, saying what the endpoint did', async () => {
        const r = await timed(() => watch(client));
        // opening, then two reads: each has its own timeout
        expect(r.ms).toBeLessThan(3 * TIMEOUT + MARGIN);
        expect(r.error?.message).toMatch(WATCH_SAYS[mode]);
        expect(r.error?.message).toContain(ep.url.replace('http://', ''));
      });
    });
  }
});

describe('the harness against faulty endpoints over TLS', () => {
  let ca: { cert: string; key: string };
  let tls: { cert: string; key: string };
  beforeAll(async () => {
    ca = await makeCa('faulty-endpoint-ca');
    tls = await issue(ca, { cn: '127.0.0.1', usage: 'server', hosts: ['127.0.0.1'] });
  });

  for (const [mode, says] of [
    ['stalled', /no response headers from https:\/\/127\.0\.0\.1:\d+ within 1 s/],
    // over TLS a reset mid-body reaches the client either as the reset or, when the TLS layer
    // has already taken the end of the stream, as the connection closing mid-body (seen under load)
    [
      'reset',
      /connection reset by the endpoint https:\/\/127\.0\.0\.1:\d+|the endpoint https:\/\/127\.0\.0\.1:\d+ closed the connection in the middle of the body/,
    ],
    ['garbage', /answered bytes that are not HTTP\/1\.1/],
  ] as const) {
    it(`${mode}: a request ends within its timeout, saying what the endpoint did`, async () => {
      const ep = await startFaultyEndpoint(mode, { tls });
      const client = new Client({ url: ep.url, token: 'x', ca: ca.cert, dialect: 'orch' });
      try {
        const r = await timed(() => get(client));
        expect(r.ms).toBeLessThan(TIMEOUT + MARGIN);
        expect(r.error?.message).toMatch(says);
      } finally {
        await client.close().catch(() => undefined);
        await ep.close();
      }
    });
  }

  it('an endpoint whose certificate the client does not trust: a TLS failure naming the endpoint', async () => {
    const ep = await startFaultyEndpoint('stalled', { tls });
    const client = new Client({ url: ep.url, token: 'x', dialect: 'orch' });
    try {
      const r = await timed(() => get(client));
      expect(r.ms).toBeLessThan(TIMEOUT + MARGIN);
      expect(r.error?.message).toMatch(/TLS with https:\/\/127\.0\.0\.1:\d+ failed/);
    } finally {
      await client.close().catch(() => undefined);
      await ep.close();
    }
  });
});
