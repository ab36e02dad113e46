// `--runtime-config`: 1.28's default set of served group versions and resources (held to the
// discovery of a real 1.28 server, shared/kubernetes-1.28/discovery.json), each key form and
// how 1.28 merges them, the refusals (malformed keys and values, unknown groups, versions and
// resources, the core group version switched off), and what is off: 404 for its paths, absent
// from discovery and OpenAPI. The command line as a real child process for the start-time
// messages (doc2 "Testing ahead of a removal").
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors/config-error.ts';
import { build } from '../src/index.ts';
import { ApiEnablement, BETA_RESOURCES_SERVED_BY_DEFAULT } from '../src/registry/api-enablement.ts';
import {
  parseRuntimeConfig,
  priorityAndFairnessConflict,
  RuntimeConfigError,
} from '../src/registry/runtime-config.ts';
import { startServer, type TestServer } from './helpers.ts';
import { readFact } from './k8s-facts.ts';
import { serveChildren } from './serve-child.ts';

/** Every resource a 1.28 server serves by default, `<group>/<version>/<resource>` in the orch words (core: `/v1/pods`). */
const DISCOVERY = (() => {
  const d = readFact('discovery.json') as { resources: Record<string, { name: string }[]> };
  const out = new Set<string>();
  for (const [gv, rs] of Object.entries(d.resources)) {
    const key = (gv.includes('/') ? gv : `/${gv}`).replace(/\.k8s\.io\//, '.orch.io/');
    for (const r of rs) if (!r.name.includes('/')) out.add(`${key}/${r.name}`);
  }
  return out;
})();

const APF = (key: string) =>
  `--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true and --feature-gates=APIPriorityAndFairness=true`;

const split = (gvr: string) => gvr.split('/') as [string, string, string];

describe("1.28's default set", () => {
  const defaults = new ApiEnablement();

  it('serves every resource a 1.28 server serves by default (flowcontrol v1beta2 and v1beta3 included)', () => {
    expect(DISCOVERY.size).toBeGreaterThan(50);
    expect(DISCOVERY).toContain('flowcontrol.apiserver.orch.io/v1beta2/flowschemas');
    for (const gvr of DISCOVERY) expect(defaults.serves(...split(gvr)), gvr).toBe(true);
  });

  it.each([
    // 1.28's betaAPIGroupVersionsDisabledByDefault and alphaAPIGroupVersionsDisabledByDefault
    'admissionregistration.orch.io/v1beta1/validatingadmissionpolicies',
    'admissionregistration.orch.io/v1alpha1/validatingadmissionpolicies',
    'authentication.orch.io/v1alpha1/selfsubjectreviews',
    'storage.orch.io/v1beta1/csistoragecapacities',
    'flowcontrol.apiserver.orch.io/v1beta1/flowschemas',
    'flowcontrol.apiserver.orch.io/v1alpha1/flowschemas',
    'resource.orch.io/v1alpha2/resourceclaims',
    'networking.orch.io/v1alpha1/clustercidrs',
    'internal.apiserver.orch.io/v1alpha1/storageversions',
  ])('does not serve %s (beta and alpha versions are off by default)', (gvr) => {
    expect(defaults.serves(...split(gvr))).toBe(false);
    expect(DISCOVERY.has(gvr)).toBe(false);
  });

  it("each built-in resource of the reference is served by default exactly when a 1.28 server serves it (but doc3's SelfSubjectReview v1beta1)", async () => {
    const s = await build({ inMemory: true, tls: false });
    try {
      const exceptions = ['authentication.orch.io/v1beta1/selfsubjectreviews'];
      expect(BETA_RESOURCES_SERVED_BY_DEFAULT).toEqual(expect.arrayContaining(exceptions));
      let n = 0;
      for (const [g, versions] of s.registry.builtinApis())
        for (const [v, resources] of versions)
          for (const r of resources) {
            const key = `${g}/${v}/${r}`;
            const want = exceptions.includes(key) ? !DISCOVERY.has(key) : DISCOVERY.has(key);
            expect(!!s.registry.lookup(g, v, r), key).toBe(want);
            n++;
          }
      expect(n).toBeGreaterThan(40);
    } finally {
      await s.close();
    }
  });
});

describe('how the keys merge (1.28 MergeAPIResourceConfigs)', () => {
  const FS3 = 'flowcontrol.apiserver.orch.io/v1beta3/flowschemas';
  const FS1 = 'flowcontrol.apiserver.orch.io/v1beta1/flowschemas';
  const VAP1 = 'admissionregistration.orch.io/v1beta1/validatingadmissionpolicies';
  const VAPA = 'admissionregistration.orch.io/v1alpha1/validatingadmissionpolicies';
  const DEP = 'apps/v1/deployments';
  const ROLES = 'rbac.authorization.orch.io/v1/roles';
  const PODS = '/v1/pods';
  const cases: { rc: string; on: string[]; off: string[] }[] = [
    { rc: '', on: [DEP, FS3, PODS], off: [FS1, VAP1, VAPA] },
    { rc: 'apps/v1=false', on: [ROLES, PODS], off: [DEP] },
    { rc: 'apps/v1=0', on: [ROLES], off: [DEP] },
    { rc: 'apps/v1/deployments=false', on: ['apps/v1/daemonsets', ROLES], off: [DEP] },
    { rc: 'admissionregistration.orch.io/v1beta1', on: [VAP1], off: [VAPA] },
    {
      rc: 'admissionregistration.orch.io/v1beta1=true,admissionregistration.orch.io/v1alpha1=true',
      on: [VAP1, VAPA],
      off: [],
    },
    {
      rc: 'api/beta=true',
      on: [VAP1, FS1, FS3, 'storage.orch.io/v1beta1/csistoragecapacities'],
      off: [VAPA],
    },
    // a version-wide setting drops the resources 1.28 keeps serving in that version
    {
      rc: 'api/beta=false',
      on: [DEP],
      off: [
        FS3,
        'authentication.orch.io/v1beta1/selfsubjectreviews',
        'authentication.orch.io/v1beta1/tokenreviews',
      ],
    },
    {
      rc: 'flowcontrol.apiserver.orch.io/v1beta3=false',
      on: ['flowcontrol.apiserver.orch.io/v1beta2/flowschemas'],
      off: [FS3],
    },
    { rc: 'api/alpha=true', on: [VAPA, DEP], off: [VAP1] },
    { rc: 'api/all=true', on: [VAPA, VAP1, FS1, DEP], off: [] },
    { rc: 'api/all=false,v1=true', on: [PODS], off: [DEP, FS3, ROLES] },
    {
      rc: 'api/all=false,api/v1=true,apps/v1/deployments=true',
      on: [PODS, DEP],
      off: ['apps/v1/daemonsets'],
    },
    // the stage matchers apply in 1.28's order (all, ga, beta, alpha) whatever the flag's order
    { rc: 'api/beta=true,api/all=false,v1', on: [PODS, FS1], off: [DEP, VAPA] },
    { rc: 'api/ga=false,v1=true,rbac.authorization.orch.io/v1=true', on: [PODS, ROLES, FS3], off: [DEP] },
    // group/version keys come before group/version/resource keys
    { rc: 'apps/v1/deployments=true,apps/v1=false', on: [DEP], off: ['apps/v1/daemonsets'] },
    // a later entry for the same key wins
    { rc: 'apps/v1=false,apps/v1=true', on: [DEP], off: [] },
    { rc: 'api/legacy=false', on: [DEP, PODS], off: [FS1] },
    // 1.28 reads a core key with a resource as the whole core group version
    { rc: 'v1/pods=true', on: [PODS], off: [] },
  ];
  it.each(cases)('--runtime-config=$rc', ({ rc, on, off }) => {
    const e = new ApiEnablement(parseRuntimeConfig(rc));
    for (const gvr of on) expect(e.serves(...split(gvr)), `${gvr} on`).toBe(true);
    for (const gvr of off) expect(e.serves(...split(gvr)), `${gvr} off`).toBe(false);
  });

  it('api/legacy is accepted with a warning that it is deprecated and does nothing', () => {
    expect(parseRuntimeConfig('api/legacy=false').warnings).toEqual([
      '--runtime-config: api/legacy is deprecated, and will be removed in a future version; it has no effect',
    ]);
    expect(parseRuntimeConfig('apps/v1=false').warnings).toEqual([]);
  });

  it.each([
    ['api/all=false', 'invalid key with only api/all=false'],
    ['api/beta=yes', 'invalid value api/beta=yes'],
    ['api/alpha', 'invalid value api/alpha='],
    [
      'apps/v1=maybe',
      'invalid value of apps/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    ['apps', 'runtime-config invalid key apps'],
    ['apps/v1/deployments/scale=false', 'runtime-config invalid key apps/v1/deployments/scale'],
    [
      'apps/v1/Deployments=false',
      'invalid key apps/v1/Deployments: group/version/resource and resource is always lowercase plural, not "Deployments"',
    ],
  ])('refuses %j', (rc, message) => {
    expect(() => parseRuntimeConfig(rc)).toThrow(RuntimeConfigError);
    expect(() => parseRuntimeConfig(rc)).toThrow(message);
  });
});

describe('a server started with a runtime configuration', () => {
  it.each([
    ['nope.example.com/v1=false', '--runtime-config: unknown api groups nope.example.com'],
    ['apps/v9=true', '--runtime-config: group version apps/v9 that has not been registered'],
    [
      'apps/v1/widgets=false',
      '--runtime-config: invalid key apps/v1/widgets: group version apps/v1 has no resource "widgets"',
    ],
    ['v1=false', '--runtime-config: the core group version v1 cannot be switched off'],
    ['api/v1=false', 'the core group version v1 cannot be switched off'],
    ['api/v1/pods=false', 'the core group version v1 cannot be switched off'],
    ['api/all=false,api/beta=true,apps/v1=true', 'the core group version v1 cannot be switched off'],
    ['api/ga=false', 'the core group version v1 cannot be switched off'],
    // 1.28: API priority and fairness (gate on by default) needs flowcontrol v1beta3
    ['api/all=false', 'invalid key with only api/all=false'],
    ['api/all=false,v1=true', APF('api/all')],
    ['api/beta=false', APF('api/beta')],
    ['flowcontrol.apiserver.orch.io/v1beta3=false', APF('flowcontrol.apiserver.orch.io/v1beta3')],
  ])('refuses %j at start', async (runtimeConfig, message) => {
    const started = build({ inMemory: true, tls: false, runtimeConfig });
    await expect(started).rejects.toThrow(ConfigurationError);
    await expect(build({ inMemory: true, tls: false, runtimeConfig })).rejects.toThrow(message);
  });

  it.each([
    ['api/beta=false', 'api/beta'],
    ['api/all=false,api/beta=true', undefined],
    ['flowcontrol.apiserver.orch.io/v1beta3=true,api/beta=false', undefined],
    ['flowcontrol.apiserver.orch.io/v1beta2=false', undefined],
    ['api/beta=0', undefined],
  ])(
    'priority and fairness: %j conflicts over %s (the first of v1beta3, api/beta, api/all the flag sets decides)',
    (rc, key) => {
      expect(priorityAndFairnessConflict(rc)).toBe(key ? APF(key) : undefined);
    },
  );

  it('with the APIPriorityAndFairness gate off, beta versions may all be switched off', async () => {
    const s = await build({
      inMemory: true,
      tls: false,
      runtimeConfig: 'api/beta=false',
      featureGates: { APIPriorityAndFairness: false },
    });
    try {
      expect(s.registry.lookup('authentication.orch.io', 'v1beta1', 'selfsubjectreviews')).toBeUndefined();
      expect(s.registry.lookup('apps', 'v1', 'deployments')).toBeDefined();
    } finally {
      await s.close();
    }
  });

  describe('what is off is not served: 404, absent from discovery and OpenAPI', () => {
    const servers: TestServer[] = [];
    afterAll(async () => {
      for (const s of servers) await s.close();
    });
    const rows: {
      rc: string;
      group: string;
      version: string;
      off: string[];
      on: string[];
      groupGone?: boolean;
    }[] = [
      {
        rc: 'rbac.authorization.orch.io/v1/roles=false',
        group: 'rbac.authorization.orch.io',
        version: 'v1',
        off: ['roles'],
        on: ['rolebindings', 'clusterroles'],
      },
      {
        rc: 'coordination.orch.io/v1=false',
        group: 'coordination.orch.io',
        version: 'v1',
        off: ['leases'],
        on: [],
        groupGone: true,
      },
      {
        rc: 'authentication.orch.io/v1beta1=false',
        group: 'authentication.orch.io',
        version: 'v1beta1',
        off: ['selfsubjectreviews'],
        on: [],
      },
    ];
    it.each(rows)('--runtime-config=$rc', async ({ rc, group, version, off, on, groupGone }) => {
      const ts = await startServer({ runtimeConfig: rc });
      servers.push(ts);
      const base = `/apis/${group}/${version}`;
      for (const r of off) {
        const get = await ts.req('GET', `${base}/${r}`);
        expect(get.status, `${base}/${r}`).toBe(404);
      }
      const list = await ts.req('GET', base);
      if (on.length) {
        expect(list.status).toBe(200);
        const names = (list.json.resources as { name: string }[]).map((x) => x.name);
        for (const r of on) expect(names).toContain(r);
        for (const r of off) expect(names.filter((n) => n === r || n.startsWith(`${r}/`))).toEqual([]);
      } else expect(list.status).toBe(404);
      const groups = await ts.req('GET', '/apis');
      const entry = (groups.json.groups as { name: string; versions: { version: string }[] }[]).find(
        (g) => g.name === group,
      );
      if (groupGone) expect(entry).toBeUndefined();
      else if (on.length) expect(entry!.versions.map((v) => v.version)).toContain(version);
      else expect(entry!.versions.map((v) => v.version)).not.toContain(version);
      const root = await ts.req('GET', '/');
      if (!on.length) expect(root.json.paths).not.toContain(base);
      // OpenAPI: v3 lists the group version only while something in it is served; v2 has no path of what is off
      const v3 = await ts.req('GET', '/openapi/v3');
      const v3paths = Object.keys(v3.json.paths);
      expect(v3paths.includes(`apis/${group}/${version}`)).toBe(on.length > 0);
      const v2 = await ts.req('GET', '/openapi/v2', undefined, { accept: 'application/json' });
      const v2paths = Object.keys(v2.json.paths);
      const under = (r: string) =>
        v2paths.filter((p) => p.startsWith(`${base}/`) && new RegExp(`/${r}(/|$)`).test(p));
      for (const r of off) expect(under(r)).toEqual([]);
      for (const r of on) expect(under(r).length).toBeGreaterThan(0);
    });

    it('the policy API (admissionregistration v1beta1) is served once switched on', async () => {
      const ts = await startServer({ runtimeConfig: 'admissionregistration.orch.io/v1beta1=true' });
      servers.push(ts);
      expect(
        (await ts.req('GET', '/apis/admissionregistration.orch.io/v1beta1/validatingadmissionpolicies'))
          .status,
      ).toBe(200);
      expect(
        (await ts.req('GET', '/apis/admissionregistration.orch.io/v1alpha1/validatingadmissionpolicies'))
          .status,
      ).toBe(404);
      const group = await ts.req('GET', '/apis/admissionregistration.orch.io');
      expect(group.json.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    });
  });
});

describe('the command line (a real child process)', () => {
  const start = serveChildren('orch-rc-');
  async function serve(flags: string[]) {
    const r = await start(flags);
    const field = (name: string) => new RegExp(`^\\s*${name}:\\s+(\\S+)`, 'm').exec(r.out)?.[1] ?? '';
    return { code: r.code, err: r.err, url: field('URL'), token: field('token'), stop: r.stop };
  }

  it.each([
    [
      ['--runtime-config', 'nope.example.com/v1=true'],
      'error: --runtime-config: unknown api groups nope.example.com',
    ],
    [
      ['--runtime-config', 'apps/v1/Deployments=false'],
      'error: --runtime-config: invalid key apps/v1/Deployments',
    ],
    [
      ['--runtime-config', 'v1=false'],
      'error: --runtime-config: the core group version v1 cannot be switched off',
    ],
  ])('refuses %j at start: exit 2 and the message', async (flags, message) => {
    const r = await serve(flags);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  it('switches a group version off (testing ahead of a removal), warns about api/legacy on stderr', async () => {
    const r = await serve(['--runtime-config', 'apps/v1=false', '--runtime-config=api/legacy=false']);
    try {
      expect(r.code).toBeNull();
      expect(r.err).toContain(
        'warning: --runtime-config: api/legacy is deprecated, and will be removed in a future version; it has no effect',
      );
      const get = async (path: string) => {
        const res = await request(`${r.url}${path}`, { headers: { authorization: `Bearer ${r.token}` } });
        await res.body.dump();
        return res.statusCode;
      };
      expect(await get('/apis/apps/v1/deployments')).toBe(404);
      expect(await get('/api/v1/namespaces')).toBe(200);
    } finally {
      expect(await r.stop()).toBe(0);
    }
  });
});
