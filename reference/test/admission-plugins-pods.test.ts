// The built-in admission plugins that shape pods, end to end through the server, each checked
// against what Kubernetes 1.28 does: DefaultTolerationSeconds (default-enabled, and its two
// flags), AlwaysPullImages, ExtendedResourceToleration, LimitPodHardAntiAffinityTopology,
// SecurityContextDeny, PodNodeSelector (annotation and configuration) and
// PodTolerationRestriction (annotations and configuration).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../src/cli.ts';
import { scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

const NOT_READY = { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute' };
const UNREACHABLE = { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute' };
const MEMORY_PRESSURE = { key: 'node.orch.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };

function pod(name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...meta },
    spec: { containers: [{ name: 'c', image: 'registry.example/app:1.0' }], ...spec },
  };
}

async function namespace(
  s: TestServer,
  annotations: Record<string, string> = {},
  name = uniqueName('ns'),
): Promise<string> {
  const r = await s.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, annotations },
  });
  expect(r.status, r.text).toBe(201);
  return name;
}

const create = (s: TestServer, ns: string, body: unknown) =>
  s.req('POST', `/api/v1/namespaces/${ns}/pods`, body);

describe('DefaultTolerationSeconds (default-enabled)', () => {
  let s: TestServer;
  let ns: string;
  beforeAll(async () => {
    s = await startServer();
    ns = await namespace(s);
  });
  afterAll(() => s.close());

  it('adds 300 s not-ready and unreachable NoExecute tolerations to a pod without them', async () => {
    const r = await create(s, ns, pod('plain'));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.tolerations).toEqual([
      { ...NOT_READY, tolerationSeconds: 300 },
      { ...UNREACHABLE, tolerationSeconds: 300 },
    ]);
  });

  it('keeps a toleration of its own for either taint, and counts an empty key or effect as one', async () => {
    const own = {
      key: 'node.orch.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 10,
    };
    const r = await create(s, ns, pod('own', { tolerations: [own] }));
    expect(r.json.spec.tolerations).toEqual([own, { ...UNREACHABLE, tolerationSeconds: 300 }]);
    const all = await create(s, ns, pod('all', { tolerations: [{ operator: 'Exists' }] }));
    expect(all.json.spec.tolerations).toEqual([{ operator: 'Exists' }]);
    const anyEffect = await create(
      s,
      ns,
      pod('any-effect', { tolerations: [{ key: 'node.orch.io/unreachable', operator: 'Exists' }] }),
    );
    expect(anyEffect.json.spec.tolerations).toEqual([
      { key: 'node.orch.io/unreachable', operator: 'Exists' },
      { ...NOT_READY, tolerationSeconds: 300 },
    ]);
    // a NoSchedule one does not count
    const ns2 = await create(
      s,
      ns,
      pod('no-schedule', {
        tolerations: [{ key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }],
      }),
    );
    expect(ns2.json.spec.tolerations).toHaveLength(3);
  });

  it('is off with --disable-admission-plugins=DefaultTolerationSeconds', async () => {
    const off = await startServer({ disableAdmissionPlugins: ['DefaultTolerationSeconds'] });
    try {
      const n = await namespace(off);
      const r = await create(off, n, pod('p'));
      expect(r.status, r.text).toBe(201);
      expect(r.json.spec.tolerations).toBeUndefined();
    } finally {
      await off.close();
    }
  });

  it('takes its seconds from --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds', async () => {
    const parsed = parseServeArgs([
      '--default-not-ready-toleration-seconds=60',
      '--default-unreachable-toleration-seconds',
      '0',
    ])!.options;
    expect(parsed.defaultNotReadyTolerationSeconds).toBe(60);
    expect(parsed.defaultUnreachableTolerationSeconds).toBe(0);
    expect(() => parseServeArgs(['--default-not-ready-toleration-seconds=soon'])).toThrow(
      /not a whole number/,
    );
    const t = await startServer({
      defaultNotReadyTolerationSeconds: 60,
      defaultUnreachableTolerationSeconds: 0,
    });
    try {
      const n = await namespace(t);
      const r = await create(t, n, pod('p'));
      expect(r.json.spec.tolerations).toEqual([
        { ...NOT_READY, tolerationSeconds: 60 },
        { ...UNREACHABLE, tolerationSeconds: 0 },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('the off-by-default pod plugins', () => {
  let s: TestServer;
  let ns: string;
  const dir = scratchDir('admission-config-');
  beforeAll(async () => {
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apiserver.config.orch.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '  - name: PodNodeSelector',
        '    configuration:',
        '      podNodeSelectorPluginConfig:',
        '        clusterDefaultNodeSelector: "tier=general"',
        '        limited: "zone=a"',
        '  - name: PodTolerationRestriction',
        '    configuration:',
        '      default: [{ key: cluster-default, operator: Exists, effect: NoSchedule }]',
        '',
      ].join('\n'),
    );
    s = await startServer({
      enableAdmissionPlugins: [
        'AlwaysPullImages',
        'ExtendedResourceToleration',
        'LimitPodHardAntiAffinityTopology',
        'SecurityContextDeny',
        'PodNodeSelector',
        'PodTolerationRestriction',
      ],
      admissionControlConfigFile: file,
    });
    ns = await namespace(s);
  });
  afterAll(() => s.close());

  it('AlwaysPullImages: every container of a new pod pulls Always; an update with a new image too', async () => {
    const r = await create(
      s,
      ns,
      pod('pull', {
        initContainers: [{ name: 'i', image: 'registry.example/init:2', imagePullPolicy: 'Never' }],
        containers: [{ name: 'c', image: 'registry.example/app:1.0', imagePullPolicy: 'IfNotPresent' }],
      }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.initContainers[0].imagePullPolicy).toBe('Always');
    expect(r.json.spec.containers[0].imagePullPolicy).toBe('Always');
    const next = structuredClone(r.json);
    next.spec.containers[0].image = 'registry.example/app:2.0';
    next.spec.containers[0].imagePullPolicy = 'IfNotPresent';
    const u = await s.req('PUT', `/api/v1/namespaces/${ns}/pods/pull`, next);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.containers[0].imagePullPolicy).toBe('Always');
  });

  it('ExtendedResourceToleration: a NoSchedule Exists toleration per extended resource requested, in name order', async () => {
    const r = await create(
      s,
      ns,
      pod('gpu', {
        containers: [
          {
            name: 'c',
            image: 'registry.example/app:1.0',
            resources: {
              limits: { 'example.com/gpu': '1', 'acme.io/fpga': '2', cpu: '1', 'orch.io/native': '1' },
            },
          },
        ],
      }),
    );
    expect(r.status, r.text).toBe(201);
    const keys = (r.json.spec.tolerations as { key: string }[]).map((t) => t.key);
    expect(r.json.spec.tolerations).toEqual(
      expect.arrayContaining([
        { key: 'acme.io/fpga', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      ]),
    );
    expect(keys.indexOf('acme.io/fpga')).toBeLessThan(keys.indexOf('example.com/gpu'));
    expect(keys).not.toContain('cpu');
    expect(keys).not.toContain('orch.io/native');
  });

  it('LimitPodHardAntiAffinityTopology: required anti-affinity only on orch.io/hostname', async () => {
    const term = (topologyKey: string) => ({
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'a' } }, topologyKey },
          ],
        },
      },
    });
    const bad = await create(s, ns, pod('zone', term('topology.orch.io/zone')));
    expect(bad.status, bad.text).toBe(403);
    expect(bad.json.reason).toBe('Forbidden');
    expect(bad.json.message).toBe(
      'pods "zone" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.orch.io/zone but only key orch.io/hostname is allowed',
    );
    expect((await create(s, ns, pod('host', term('orch.io/hostname')))).status).toBe(201);
  });

  it('SecurityContextDeny: the pod and container fields it names are refused, the others pass', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { securityContext: { supplementalGroups: [5] } },
        'pod.Spec.SecurityContext.SupplementalGroups is forbidden',
      ],
      [
        { securityContext: { seLinuxOptions: { level: 's0' } } },
        'pod.Spec.SecurityContext.SELinuxOptions is forbidden',
      ],
      [{ securityContext: { runAsUser: 1000 } }, 'pod.Spec.SecurityContext.RunAsUser is forbidden'],
      [{ securityContext: { fsGroup: 2000 } }, 'pod.Spec.SecurityContext.FSGroup is forbidden'],
      [
        { containers: [{ name: 'c', image: 'registry.example/app:1.0', securityContext: { runAsUser: 1 } }] },
        'SecurityContext.RunAsUser is forbidden',
      ],
      [
        {
          initContainers: [
            {
              name: 'i',
              image: 'registry.example/app:1.0',
              securityContext: { seLinuxOptions: { user: 'u' } },
            },
          ],
        },
        'SecurityContext.SELinuxOptions is forbidden',
      ],
    ];
    for (const [spec, message] of cases) {
      const name = uniqueName('scd');
      const r = await create(s, ns, pod(name, spec));
      expect(r.status, r.text).toBe(403);
      expect(r.json.message).toBe(`pods "${name}" is forbidden: ${message}`);
    }
    const ok = await create(s, ns, pod('nonroot', { securityContext: { runAsNonRoot: true } }));
    expect(ok.status, ok.text).toBe(201);
  });

  it('PodNodeSelector: the namespace annotation merges into the pod selector; a conflict is refused', async () => {
    const n = await namespace(s, { 'scheduler.alpha.orch.io/node-selector': 'env=prod,disk=ssd' });
    const r = await create(s, n, pod('merged', { nodeSelector: { gpu: 'yes' } }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.nodeSelector).toEqual({ env: 'prod', disk: 'ssd', gpu: 'yes' });
    const same = await create(s, n, pod('same', { nodeSelector: { env: 'prod' } }));
    expect(same.json.spec.nodeSelector).toEqual({ env: 'prod', disk: 'ssd' });
    const bad = await create(s, n, pod('conflict', { nodeSelector: { env: 'dev' } }));
    expect(bad.status, bad.text).toBe(403);
    expect(bad.json.message).toBe(
      'pods "conflict" is forbidden: pod node label selector conflicts with its namespace node label selector',
    );
  });

  it('PodNodeSelector: without an annotation, the configured clusterDefaultNodeSelector; an empty annotation means none', async () => {
    const r = await create(s, ns, pod('cluster-default'));
    expect(r.json.spec.nodeSelector).toEqual({ tier: 'general' });
    const empty = await namespace(s, { 'scheduler.alpha.orch.io/node-selector': '' });
    expect((await create(s, empty, pod('none'))).json.spec.nodeSelector).toBeUndefined();
  });

  it("PodNodeSelector: the configuration's entry for a namespace is its allow-list", async () => {
    const n = await namespace(s, { 'scheduler.alpha.orch.io/node-selector': '' }, `limited`);
    expect((await create(s, n, pod('in', { nodeSelector: { zone: 'a' } }))).status).toBe(201);
    const bad = await create(s, n, pod('out', { nodeSelector: { zone: 'b' } }));
    expect(bad.status, bad.text).toBe(403);
    expect(bad.json.message).toBe(
      'pods "out" is forbidden: pod node label selector labels conflict with its namespace whitelist',
    );
    expect((await create(s, n, pod('other-key', { nodeSelector: { rack: '1' } }))).status).toBe(403);
  });

  it('PodNodeSelector: a malformed annotation is refused with 403, never a 500', async () => {
    const n = await namespace(s, { 'scheduler.alpha.orch.io/node-selector': 'env in (a)' });
    const r = await create(s, n, pod('p'));
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toContain('scheduler.alpha.orch.io/node-selector');
  });

  it('PodTolerationRestriction: namespace default tolerations merge in; a non-BestEffort pod also tolerates memory pressure', async () => {
    const own = { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' };
    const n = await namespace(s, { 'scheduler.alpha.orch.io/defaultTolerations': JSON.stringify([own]) });
    const r = await create(s, n, pod('p'));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.tolerations).toEqual(expect.arrayContaining([own]));
    expect(r.json.spec.tolerations).not.toContainEqual(MEMORY_PRESSURE);
    const burstable = await create(
      s,
      n,
      pod('burstable', {
        containers: [
          { name: 'c', image: 'registry.example/app:1.0', resources: { requests: { cpu: '100m' } } },
        ],
      }),
    );
    expect(burstable.json.spec.tolerations).toEqual(expect.arrayContaining([own, MEMORY_PRESSURE]));
    // a toleration the pod has that covers the default one leaves only the wider
    const wide = await create(s, n, pod('wide', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }));
    expect(wide.json.spec.tolerations).toContainEqual({ key: 'dedicated', operator: 'Exists' });
    expect(wide.json.spec.tolerations).not.toContainEqual(own);
  });

  it('PodTolerationRestriction: without a namespace annotation, the configured default', async () => {
    const r = await create(s, ns, pod('cfg'));
    expect(r.json.spec.tolerations).toContainEqual({
      key: 'cluster-default',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
  });

  it('PodTolerationRestriction: tolerations outside the namespace allow-list are refused', async () => {
    const allowed = [
      { operator: 'Exists', effect: 'NoExecute' },
      { key: 'dedicated', operator: 'Exists' },
    ];
    const n = await namespace(s, {
      'scheduler.alpha.orch.io/tolerationsWhitelist': JSON.stringify(allowed),
      'scheduler.alpha.orch.io/defaultTolerations': '',
    });
    const ok = await create(
      s,
      n,
      pod('ok', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] }),
    );
    expect(ok.status, ok.text).toBe(201);
    const bad = await create(
      s,
      n,
      pod('bad', { tolerations: [{ key: 'other', operator: 'Exists', effect: 'NoSchedule' }] }),
    );
    expect(bad.status, bad.text).toBe(403);
    expect(bad.json.message).toBe(
      'pods "bad" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
    );
  });

  it('PodTolerationRestriction: a malformed annotation is refused with 403, never a 500', async () => {
    const n = await namespace(s, { 'scheduler.alpha.orch.io/defaultTolerations': '{not json' });
    const r = await create(s, n, pod('p'));
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toContain('scheduler.alpha.orch.io/defaultTolerations');
  });
});
