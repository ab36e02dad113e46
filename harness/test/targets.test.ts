// Capability routing (harness/src/targets.ts): what is declared about a target, what a case
// needs, and which target it runs against; the WatchList probe against servers with the
// gate on and off and against one that answers neither; and the expired-version helper
// (harness/src/retention.ts) on a declared short history.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { watchListGate } from '../src/capabilities.ts';
import { Client } from '../src/client.ts';
import { expiredVersion } from '../src/retention.ts';
import {
  declaredFromEnv,
  MAX_WAIT_SECONDS,
  type NamedTarget,
  type RunTargets,
  route,
  runTargets,
  unmet,
} from '../src/targets.ts';

const named = (
  name: string,
  url: string,
  declared: NamedTarget['declared'] = {},
  token?: string,
): NamedTarget => ({
  name,
  target: { url, token, dialect: 'orch' },
  declared,
});

describe('declarations', () => {
  it('reads ORCH_HISTORY_SECONDS, ORCH_CONTINUE_TTL_SECONDS, ORCH_BOOKMARK_SECONDS, ORCH_IN_FORCE_SECONDS and ORCH_FEATURE_GATES', () => {
    expect(
      declaredFromEnv({
        ORCH_HISTORY_SECONDS: '20',
        ORCH_CONTINUE_TTL_SECONDS: '3',
        ORCH_BOOKMARK_SECONDS: '1.5',
        ORCH_IN_FORCE_SECONDS: '2',
        ORCH_FEATURE_GATES: 'WatchList=false, Other=true',
      }),
    ).toEqual({
      historySeconds: 20,
      continueTtlSeconds: 3,
      bookmarkSeconds: 1.5,
      inForceSeconds: 2,
      featureGates: { WatchList: false, Other: true },
    });
    expect(declaredFromEnv({ ORCH_HISTORY_SECONDS: '' })).toEqual({});
    expect(() => declaredFromEnv({ ORCH_HISTORY_SECONDS: 'soon' })).toThrow(/ORCH_HISTORY_SECONDS="soon"/);
    expect(() => declaredFromEnv({ ORCH_FEATURE_GATES: 'WatchList' })).toThrow(/Gate=true or Gate=false/);
    expect(() => declaredFromEnv({ ORCH_IN_FORCE_SECONDS: '0' })).toThrow(/ORCH_IN_FORCE_SECONDS="0"/);
  });

  it('further targets come from ORCH_EXTRA_TARGETS; ORCH_EMBEDDED marks the embedded run', () => {
    const r = runTargets({
      ORCH_ENDPOINT: 'https://127.0.0.1:1',
      ORCH_EMBEDDED: '1',
      ORCH_HISTORY_SECONDS: '300',
      ORCH_EXTRA_TARGETS: JSON.stringify([
        { name: 'short', url: 'https://127.0.0.1:2', token: 't', declared: { historySeconds: 4 } },
      ]),
    });
    expect(r.embedded).toBe(true);
    expect(r.targets.map((t) => [t.name, t.target.url, t.declared.historySeconds])).toEqual([
      ['main', 'https://127.0.0.1:1', 300],
      ['short', 'https://127.0.0.1:2', 4],
    ]);
    expect(() => runTargets({ ORCH_ENDPOINT: 'https://x', ORCH_EXTRA_TARGETS: '{' })).toThrow(/not JSON/);
    expect(() => runTargets({ ORCH_ENDPOINT: 'https://x', ORCH_EXTRA_TARGETS: '[{"name":"a"}]' })).toThrow(
      /needs a name and a url/,
    );
  });
});

describe('what a target lacks, and how to make the case run', () => {
  const none = () => {
    throw new Error('no probe expected');
  };
  it('an undeclared continue-token lifetime or bookmark interval: declare it', async () => {
    const t = named('main', 'https://127.0.0.1:1');
    const [ttl] = await unmet(t, { continueTokenExpiry: true }, none);
    expect(ttl).toMatch(/ORCH_CONTINUE_TTL_SECONDS=N/);
    expect(ttl).toMatch(/--etcd-compaction-interval/);
    const [bm] = await unmet(t, { periodicBookmarks: true }, none);
    expect(bm).toMatch(/ORCH_BOOKMARK_SECONDS=N/);
    // undeclared history: the case probes for itself
    expect(await unmet(t, { expiredVersions: true }, none)).toEqual([]);
  });

  it('a declared window longer than a case waits is not met; a short one is', async () => {
    const long = named('main', 'https://127.0.0.1:1', { historySeconds: 300, continueTtlSeconds: 300 });
    const why = await unmet(long, { expiredVersions: true, continueTokenExpiry: true }, none);
    expect(why).toHaveLength(2);
    expect(why[0]).toMatch(
      new RegExp(`ORCH_HISTORY_SECONDS=300\\) is longer than a case waits \\(${MAX_WAIT_SECONDS} s\\)`),
    );
    const short = named('main', 'https://127.0.0.1:1', {
      historySeconds: 4,
      continueTtlSeconds: 3,
      bookmarkSeconds: 1,
    });
    expect(
      await unmet(short, { expiredVersions: true, continueTokenExpiry: true, periodicBookmarks: true }, none),
    ).toEqual([]);
  });

  it('a declared gate is taken as declared; a gate that cannot be probed must be declared', async () => {
    const t = named('main', 'https://127.0.0.1:1', { featureGates: { WatchList: true } });
    expect(await unmet(t, { featureGates: { WatchList: true } }, none)).toEqual([]);
    const [off] = await unmet(t, { featureGates: { WatchList: false } }, none);
    expect(off).toMatch(
      /WatchList feature gate off .*--feature-gates=WatchList=false.*declared with WatchList=true/,
    );
    const [other] = await unmet(
      named('main', 'https://127.0.0.1:1'),
      { featureGates: { Other: true } },
      none,
    );
    expect(other).toMatch(/ORCH_FEATURE_GATES=Other=true/);
  });

  it('authentication methods: without a declaration, the first set of fixture flags; oidc-sub only where declared', async () => {
    const plain = named('main', 'https://127.0.0.1:1', { authFixtures: '/fx' });
    expect(await unmet(plain, { auth: ['oidc', 'client-cert'] }, none)).toEqual([]);
    const [sub] = await unmet(plain, { auth: ['oidc-sub'] }, none);
    expect(sub).toMatch(/needs the oidc-sub method.*--oidc-username-claim=sub.*ORCH_AUTH_METHODS=oidc-sub/);
    const subOnly = named('sub', 'https://127.0.0.1:2', { authFixtures: '/fx', authMethods: ['oidc-sub'] });
    expect(await unmet(subOnly, { auth: ['oidc-sub'] }, none)).toEqual([]);
    expect((await unmet(subOnly, { auth: ['oidc'] }, none))[0]).toMatch(/needs the oidc method/);
    const [none_] = await unmet(named('x', 'https://127.0.0.1:3'), { auth: ['oidc'] }, none);
    expect(none_).toMatch(/orch-conformance fixtures --out DIR.*ORCH_AUTH_FIXTURES=DIR/);
  });

  it('admission plugins: read from ORCH_ADMISSION_PLUGINS; a case runs where its plugins are declared on (and its off ones off)', async () => {
    expect(declaredFromEnv({ ORCH_ADMISSION_PLUGINS: 'NamespaceLifecycle, AlwaysDeny' })).toEqual({
      admissionPlugins: ['NamespaceLifecycle', 'AlwaysDeny'],
    });
    expect(() => declaredFromEnv({ ORCH_ADMISSION_PLUGINS: 'always-deny' })).toThrow(
      /not an admission plugin name/,
    );
    const [undeclared] = await unmet(
      named('x', 'https://127.0.0.1:1'),
      { admissionPlugins: ['AlwaysDeny'] },
      none,
    );
    expect(undeclared).toMatch(/--enable-admission-plugins=AlwaysDeny.*ORCH_ADMISSION_PLUGINS=/);
    const deny = named('deny', 'https://127.0.0.1:2', {
      admissionPlugins: ['NamespaceLifecycle', 'AlwaysDeny'],
    });
    expect(await unmet(deny, { admissionPlugins: ['AlwaysDeny'] }, none)).toEqual([]);
    const [missing] = await unmet(deny, { admissionPlugins: ['AlwaysDeny', 'PodNodeSelector'] }, none);
    expect(missing).toMatch(/leaves out PodNodeSelector/);
    const [on] = await unmet(
      deny,
      { admissionPlugins: ['AlwaysDeny'], admissionPluginsOff: ['NamespaceLifecycle'] },
      none,
    );
    expect(on).toMatch(/has NamespaceLifecycle on.*--disable-admission-plugins=NamespaceLifecycle/);
    const run: RunTargets = {
      embedded: true,
      targets: [named('main', 'https://127.0.0.1:1', { admissionPlugins: ['NamespaceLifecycle'] }), deny],
    };
    const r = await route({ admissionPlugins: ['AlwaysDeny'] }, run);
    expect(r.ok && r.target.name).toBe('deny');
    const r2 = await route({ admissionPlugins: ['NamespaceLifecycle'] }, run);
    expect(r2.ok && r2.target.name).toBe('main');
  });

  it('routes to the target that meets the needs with the shortest wait; explains when none does', async () => {
    const run: RunTargets = {
      embedded: false,
      targets: [
        named('route-main', 'https://127.0.0.1:1', { historySeconds: 50, bookmarkSeconds: 60 }),
        named('route-short', 'https://127.0.0.1:2', { historySeconds: 4, bookmarkSeconds: 1 }),
      ],
    };
    const a = await route({ expiredVersions: true }, run);
    expect(a.ok && a.target.name).toBe('route-short');
    const plain = await route(undefined, run);
    expect(plain.ok && plain.target.name).toBe('route-main');
    const b = await route({ continueTokenExpiry: true }, run);
    expect(b.ok).toBe(false);
    if (!b.ok) {
      expect(b.embedded).toBe(false);
      expect(b.reason).toMatch(/^route-main: needs a target whose continue tokens .* \| route-short: needs/);
    }
  });
});

describe('the WatchList probe', () => {
  let on: OrchServer;
  let off: OrchServer;
  let odd: Server;
  let oddUrl = '';
  beforeAll(async () => {
    on = await build({ inMemory: true, tls: false, featureGates: { WatchList: true } });
    off = await build({ inMemory: true, tls: false, featureGates: { WatchList: false } });
    await on.listen();
    await off.listen();
    // answers every request with 500: neither on nor off
    odd = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('broken');
    });
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', () => r()));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await on?.close();
    await off?.close();
    await new Promise<void>((r) => odd?.close(() => r()));
  });

  it('sees the gate on (200) and off (422); any other answer leaves it open', async () => {
    expect(
      (await watchListGate(new Client({ url: on.url!, token: on.adminToken, dialect: 'orch' }))).state,
    ).toBe('on');
    expect(
      (await watchListGate(new Client({ url: off.url!, token: off.adminToken, dialect: 'orch' }))).state,
    ).toBe('off');
    const broken = await watchListGate(new Client({ url: oddUrl, dialect: 'orch' }));
    expect(broken.state).toBe('unknown');
    expect(broken.evidence).toMatch(/500/);
  });

  it('a case needing the gate off skips on a target that has it on, and runs on one that answers neither', async () => {
    const c = new Client({ url: on.url!, token: on.adminToken, dialect: 'orch' });
    const t = named('probe-on', on.url!, {}, on.adminToken);
    const [why] = await unmet(t, { featureGates: { WatchList: false } }, () => c);
    expect(why).toMatch(/this target has it on \(a watch with sendInitialEvents=true answered .* -> 200/);
    const u = named('probe-odd', oddUrl);
    const oc = new Client({ url: oddUrl, dialect: 'orch' });
    expect(await unmet(u, { featureGates: { WatchList: false } }, () => oc)).toEqual([]);
    expect(await unmet(u, { featureGates: { WatchList: true } }, () => oc)).toEqual([]);
  });
});

describe('an expired version on a declared short history', () => {
  let s: OrchServer;
  beforeAll(async () => {
    s = await build({ inMemory: true, tls: false, historySeconds: 2 });
    await s.listen();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is one the target answers 410 for, found without skipping', async () => {
    const client = new Client({ url: s.url!, token: s.adminToken, dialect: 'orch' });
    const target = named('short', s.url!, { historySeconds: 2 }, s.adminToken);
    const skip = (r: string): never => {
      throw new Error(`skipped: ${r}`);
    };
    // a fresh server still has "1": the harness makes a version of its own and waits it out
    const rv = await expiredVersion({ client, target, skip }, 'exact-list');
    const r = await client.get('/api/v1/namespaces/default/configmaps', {
      query: { resourceVersion: rv, resourceVersionMatch: 'Exact' },
    });
    expect(r.status, r.describe()).toBe(410);
    // by now "1" is gone too, and is used at once
    expect(await expiredVersion({ client, target, skip }, 'exact-list')).toBe('1');
  });

  it('undeclared: skips only on proof that version "1" is still served, saying how to make it run', async () => {
    const fresh = await build({ inMemory: true, tls: false });
    await fresh.listen();
    try {
      const client = new Client({ url: fresh.url!, token: fresh.adminToken, dialect: 'orch' });
      const target = named('fresh', fresh.url!, {}, fresh.adminToken);
      const skip = (r: string): never => {
        throw new Error(`skipped: ${r}`);
      };
      await expect(expiredVersion({ client, target, skip }, 'watch')).rejects.toThrow(
        /still served \(a watch from it streamed the changes since it.*ORCH_HISTORY_SECONDS=N.*watch cache/,
      );
      await expect(expiredVersion({ client, target, skip }, 'exact-list')).rejects.toThrow(
        /an Exact list at it answered 200 with the collection at version "1".*--etcd-compaction-interval/,
      );
    } finally {
      await fresh.close();
    }
  });
});
