// EventRateLimit (doc3 plugin table; the configuration and the 429 as Kubernetes 1.28): token
// buckets per limit type, refilled at qps, events only, dry runs free, a bad configuration refused
// at start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventRateLimitConfig, TokenBucket } from '../src/admission/plugins/event-rate-limit.ts';
import { build } from '../src/index.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const CONFIG = 'eventratelimit.admission.orch.io/v1alpha1';
const dir = mkdtempSync(join(tmpdir(), 'orch-erl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, limits: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    JSON.stringify({
      apiVersion: 'apiserver.config.orch.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        { name: 'EventRateLimit', configuration: { apiVersion: CONFIG, kind: 'Configuration', limits } },
      ],
    }),
  );
  return p;
}

describe('the configuration and the bucket', () => {
  it('refuses missing, empty and malformed limits', () => {
    expect(() => parseEventRateLimitConfig(undefined)).toThrow(/configuration is required/);
    expect(() =>
      parseEventRateLimitConfig({ apiVersion: CONFIG, kind: 'Configuration', limits: [] }),
    ).toThrow(/must not be empty/);
    expect(() =>
      parseEventRateLimitConfig({
        apiVersion: CONFIG,
        kind: 'Configuration',
        limits: [{ type: 'Pod', qps: 1, burst: 1 }],
      }),
    ).toThrow(/Unsupported value/);
    expect(() =>
      parseEventRateLimitConfig({
        apiVersion: CONFIG,
        kind: 'Configuration',
        limits: [{ type: 'User', qps: 0, burst: 1 }],
      }),
    ).toThrow(/qps/);
    expect(
      parseEventRateLimitConfig({
        apiVersion: CONFIG,
        kind: 'Configuration',
        limits: [{ type: 'User', qps: 1, burst: 2 }],
      }),
    ).toEqual([{ type: 'User', qps: 1, burst: 2, cacheSize: 4096 }]);
  });
  it('a bucket starts with burst tokens and refills at qps', () => {
    let t = 0;
    const b = new TokenBucket(2, 3, () => t);
    expect([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()]).toEqual([true, true, true, false]);
    t = 499;
    expect(b.tryTake()).toBe(false);
    t = 500;
    expect(b.tryTake()).toBe(true);
    t = 10_000;
    expect([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()]).toEqual([true, true, true, false]);
  });
  it('the server refuses to start with the plugin and no configuration', async () => {
    await expect(
      build({ inMemory: true, tls: false, enableAdmissionPlugins: ['EventRateLimit'] }),
    ).rejects.toThrow(/EventRateLimit/);
  });
});

describe('on a server', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer({
      enableAdmissionPlugins: ['EventRateLimit'],
      admissionControlConfigFile: configFile('a.json', [
        { type: 'Namespace', qps: 1, burst: 3, cacheSize: 10 },
        { type: 'SourceAndObject', qps: 1, burst: 100 },
      ]),
    });
  });
  afterAll(async () => ts?.close());

  const event = (name: string, ns: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
    reason: 'Test',
    message: 'm',
  });

  it('the fourth event of a namespace within a second is refused with 429; other kinds and other namespaces are not', async () => {
    const ns = uniqueName('erl');
    expect(
      (
        await ts.req('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns },
        })
      ).status,
    ).toBe(201);
    const dry = await ts.req('POST', `/api/v1/namespaces/${ns}/events?dryRun=All`, event('dry', ns));
    expect(dry.status).toBe(201);
    const codes: number[] = [];
    let last: any;
    for (let i = 0; i < 4; i++) {
      const r = await ts.req('POST', `/api/v1/namespaces/${ns}/events`, event(`e${i}`, ns));
      codes.push(r.status);
      last = r.json;
    }
    expect(codes).toEqual([201, 201, 201, 429]);
    expect(last.reason).toBe('TooManyRequests');
    expect(last.message).toBe(`Too many requests: limit reached on type Namespace for key ${ns}`);
    // 1.28's plugin takes tokens on creations and updates only (plugin/pkg/admission/eventratelimit)
    expect((await ts.req('DELETE', `/api/v1/namespaces/${ns}/events/e0`)).status).toBe(200);
    expect(
      (
        await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'c' },
        })
      ).status,
    ).toBe(201);
    expect(
      (await ts.req('POST', '/api/v1/namespaces/default/events', event(uniqueName('e'), 'default'))).status,
    ).toBe(201);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/events`, event('later', ns))).status).toBe(201);
  });
});
