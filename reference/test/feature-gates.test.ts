// `--feature-gates`: the gate table against the gates a real 1.28 server lists
// (shared/kubernetes-1.28/feature-gates.txt), 1.28's rules for setting them (unknown and locked
// gates refused, AllAlpha/AllBeta, the warnings of GA and deprecated gates, doc2 rules 8 and 9
// and the feature-gate life cycle), and the command line: refusals exit non-zero with the
// message, warnings go to stderr of the starting process.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../src/config.ts';
import { ConfigurationError } from '../src/errors/config-error.ts';
import {
  defaultFeatureGates,
  FeatureGateError,
  parseFeatureGateList,
  resolveFeatureGates,
} from '../src/features/feature-gates.ts';
import { FEATURE_GATES_1_28 } from '../src/features/gates-1.28.ts';
import { build } from '../src/index.ts';
import { FACTS_DIR } from './k8s-facts.ts';
import { serveChildren } from './serve-child.ts';

/** feature-gates.txt: `Name STAGE default` per line, as a 1.28 server lists its gates. */
const FIXTURE = readFileSync(join(FACTS_DIR, 'feature-gates.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => {
    const [name, stage, def] = l.trim().split(/\s+/);
    return { name: name!, stage: stage!, default: def === 'true' };
  });
const fixtureGate = (name: string) => FIXTURE.find((g) => g.name === name)!;
const alphaNames = FIXTURE.filter((g) => g.stage === 'ALPHA').map((g) => g.name);
const betaNames = FIXTURE.filter((g) => g.stage === 'BETA').map((g) => g.name);

describe('the gate table', () => {
  it('its alpha and beta gates are exactly those a 1.28 server lists, with their stage and default', () => {
    const listed = Object.entries(FEATURE_GATES_1_28)
      .filter(([, s]) => s.stage === 'ALPHA' || s.stage === 'BETA')
      .map(([name, s]) => ({ name, stage: s.stage, default: s.default }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(listed).toEqual([...FIXTURE].sort((a, b) => (a.name < b.name ? -1 : 1)));
    expect(FIXTURE.length).toBeGreaterThan(100);
  });

  it('GA and deprecated gates, which a 1.28 server accepts but does not list, are none of the listed ones', () => {
    const retired = Object.entries(FEATURE_GATES_1_28).filter(
      ([, s]) => s.stage === 'GA' || s.stage === 'DEPRECATED',
    );
    // 1.28's kube_features.go: 30 GA gates (28 locked to true) and 5 deprecated ones
    expect(retired.filter(([, s]) => s.stage === 'GA')).toHaveLength(30);
    expect(retired.filter(([, s]) => s.stage === 'DEPRECATED')).toHaveLength(5);
    for (const [name, s] of retired) {
      expect(
        FIXTURE.some((g) => g.name === name),
        name,
      ).toBe(false);
      // GA means on; a locked gate is locked to its default
      if (s.stage === 'GA') expect(s.default, name).toBe(true);
    }
    expect(FEATURE_GATES_1_28.ServerSideApply).toEqual({ stage: 'GA', default: true, locked: true });
    expect(FEATURE_GATES_1_28.KMSv1).toEqual({ stage: 'DEPRECATED', default: true });
  });

  it('every gate at its default when none is set: the listed ones as the fixture says', () => {
    const d = defaultFeatureGates();
    for (const g of FIXTURE) expect(d[g.name], g.name).toBe(g.default);
    expect(Object.keys(d)).toHaveLength(Object.keys(FEATURE_GATES_1_28).length);
  });
});

describe('resolving a gate list (1.28 SetFromMap)', () => {
  const cases: {
    name: string;
    set: Record<string, boolean>;
    want?: Record<string, boolean>;
    warnings?: RegExp[];
    refused?: string;
  }[] = [
    { name: 'no gate', set: {}, want: { WatchList: false, APIListChunking: true }, warnings: [] },
    { name: 'an alpha gate on', set: { WatchList: true }, want: { WatchList: true }, warnings: [] },
    {
      name: 'a beta gate off',
      set: { APIResponseCompression: false },
      want: { APIResponseCompression: false },
      warnings: [],
    },
    { name: 'an unknown gate', set: { NoSuchGate: true }, refused: 'unrecognized feature gate: NoSuchGate' },
    {
      name: 'names are case-sensitive',
      set: { watchlist: true },
      refused: 'unrecognized feature gate: watchlist',
    },
    {
      name: 'an inherited property is no gate',
      set: { toString: true },
      refused: 'unrecognized feature gate: toString',
    },
    {
      name: 'a GA gate (locked, non-operational) set to false',
      set: { ServerSideApply: false },
      refused: 'cannot set feature gate ServerSideApply to false, feature is locked to true',
    },
    {
      name: 'a deprecated gate locked to false set to true',
      set: { ExperimentalHostUserNamespaceDefaulting: true },
      refused:
        'cannot set feature gate ExperimentalHostUserNamespaceDefaulting to true, feature is locked to false',
    },
    {
      name: 'a GA gate set to true: accepted, warns that it will be removed and is non-operational',
      set: { ServerSideApply: true },
      want: { ServerSideApply: true },
      warnings: [
        /^Setting GA feature gate ServerSideApply=true\. It will be removed in a future release\. It is non-operational: it is locked to true\.$/,
      ],
    },
    {
      name: 'a GA gate that is not locked may still be turned off (1.28), with the warning',
      set: { ExecProbeTimeout: false },
      want: { ExecProbeTimeout: false },
      warnings: [
        /^Setting GA feature gate ExecProbeTimeout=false\. It will be removed in a future release\. It is still operational/,
      ],
    },
    {
      name: 'a deprecated gate warns and says it still works',
      set: { KMSv1: false },
      want: { KMSv1: false },
      warnings: [
        /^Setting deprecated feature gate KMSv1=false\. It will be removed in a future release\. It is still operational/,
      ],
    },
    {
      name: 'a deprecated non-operational gate at its locked value warns and says so',
      set: { ExperimentalHostUserNamespaceDefaulting: false },
      warnings: [
        /^Setting deprecated feature gate ExperimentalHostUserNamespaceDefaulting=false\. .* It is non-operational: it is locked to false\.$/,
      ],
    },
    {
      name: 'AllAlpha=true turns every alpha gate on',
      set: { AllAlpha: true },
      want: Object.fromEntries(alphaNames.map((n) => [n, true])),
    },
    {
      name: 'AllAlpha=true with an alpha gate named off: the named one wins (named after)',
      set: { AllAlpha: true, WatchList: false },
      want: {
        WatchList: false,
        ConsistentListFromCache: true,
        AllBeta: false,
        ValidatingAdmissionPolicy: false,
      },
    },
    {
      name: 'AllAlpha=true with an alpha gate named off: the named one wins (named before)',
      set: { WatchList: false, AllAlpha: true },
      want: { WatchList: false, ConsistentListFromCache: true },
    },
    {
      name: 'AllBeta=false turns every beta gate off but the ones named',
      set: { AllBeta: false, APIListChunking: true },
      want: {
        ...Object.fromEntries(betaNames.map((n) => [n, false])),
        APIListChunking: true,
        WatchList: false,
      },
    },
  ];
  it.each(cases)('$name', ({ set, want, warnings, refused }) => {
    if (refused) {
      expect(() => resolveFeatureGates(set)).toThrow(FeatureGateError);
      expect(() => resolveFeatureGates(set)).toThrow(refused);
      return;
    }
    const r = resolveFeatureGates(set);
    if (want) expect(r.gates).toMatchObject(want);
    // what is not named keeps the fixture's default
    for (const g of FIXTURE)
      if (!(g.name in set) && !(want && g.name in want) && !('AllAlpha' in set || 'AllBeta' in set))
        expect(r.gates[g.name], g.name).toBe(fixtureGate(g.name).default);
    if (warnings) {
      expect(r.warnings).toHaveLength(warnings.length);
      for (const [i, w] of warnings.entries()) expect(r.warnings[i]).toMatch(w);
    }
  });

  it.each([
    ['WatchList=true,APIListChunking=false', { WatchList: true, APIListChunking: false }],
    [' WatchList = true , , AllBeta=0', { WatchList: true, AllBeta: false }],
    ['WatchList=true,WatchList=F', { WatchList: false }],
    ['WatchList=1', { WatchList: true }],
  ])('parses %j', (s, want) => {
    expect(parseFeatureGateList(s)).toEqual(want);
  });

  it.each([
    ['WatchList', 'missing bool value for WatchList'],
    [
      'WatchList=yes',
      'invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    ['WatchList=', 'invalid value of WatchList=, err: strconv.ParseBool: parsing "": invalid syntax'],
  ])('refuses the list %j', (s, message) => {
    expect(() => parseFeatureGateList(s)).toThrow(message);
  });
});

describe('gates of a built server', () => {
  it('the gates the server reads keep working; every other gate is present at its default', async () => {
    const s = await build({
      inMemory: true,
      tls: false,
      featureGates: { WatchList: true, ValidatingAdmissionPolicy: true },
    });
    try {
      expect(s.options.featureGates.WatchList).toBe(true);
      expect(s.options.featureGates.ValidatingAdmissionPolicy).toBe(true);
      expect(s.options.featureGates.APIListChunking).toBe(fixtureGate('APIListChunking').default);
      expect(s.options.featureGates.APIResponseCompression).toBe(
        fixtureGate('APIResponseCompression').default,
      );
      expect(s.options.featureGates.ServerSideApply).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('an unknown or locked gate given to the server is a configuration error', () => {
    expect(() => resolveOptions({ featureGates: { NoSuchGate: true } })).toThrow(ConfigurationError);
    expect(() => resolveOptions({ featureGates: { OpenAPIV3: false } })).toThrow(
      'feature gates: cannot set feature gate OpenAPIV3 to false, feature is locked to true',
    );
  });
});

describe('the command line (a real child process)', () => {
  const serve = serveChildren('orch-gates-');

  it.each([
    [['--feature-gates', 'NoSuchGate=true'], 'error: --feature-gates: unrecognized feature gate: NoSuchGate'],
    [
      ['--feature-gates', 'ServerSideApply=false'],
      'error: --feature-gates: cannot set feature gate ServerSideApply to false, feature is locked to true',
    ],
    [['--feature-gates', 'WatchList'], 'error: --feature-gates: missing bool value for WatchList'],
  ])('refuses %j at start: exit 2 and the message', async (flags, message) => {
    const r = await serve(flags);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.out).not.toMatch(/ready in/);
  });

  it('deprecated and GA gates warn on stderr at start, saying whether they still work; the banner shows the gates set', async () => {
    const r = await serve([
      '--feature-gates',
      'KMSv1=false,ServerSideApply=true',
      '--feature-gates=WatchList=true',
    ]);
    try {
      expect(r.code).toBeNull();
      const lines = r.err.split('\n').filter((l) => l.startsWith('warning: '));
      expect(lines).toEqual([
        'warning: Setting deprecated feature gate KMSv1=false. It will be removed in a future release. It is still operational until then.',
        'warning: Setting GA feature gate ServerSideApply=true. It will be removed in a future release. It is non-operational: it is locked to true.',
      ]);
      expect(r.out).toMatch(/gates:\s+KMSv1=false,WatchList=true\n/);
    } finally {
      expect(await r.stop()).toBe(0);
    }
  });
});
