// doc3 § Webhook configuration objects, the plugin table: the built-in plugins that fill and
// check pods, volume claims and ingresses from the scheduling, node, quota, networking and
// storage kinds (Priority, RuntimeClass, LimitRanger, ResourceQuota, DefaultIngressClass,
// DefaultStorageClass, PersistentVolumeClaimResize, StorageObjectInUseProtection), all
// default-enabled (doc3's list). Each case works in a namespace of its own; cluster-wide
// objects it makes (classes) carry unique names and are removed after. Where the table says
// less than Kubernetes 1.28 does (the global default priority class, the refusal messages,
// quota usage in status, scopes), the case is beyond the text.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { updateFresh } from '../../harness/src/conflict-retry.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import type { Level } from '../../harness/src/spec.ts';
import { settle } from './plugin-helpers.ts';
import { pluginCase } from './plugin-support.ts';

const ROW = {
  priority: 'Priority | M+V | Fills priority from `priorityClassName`; unknown class rejects',
  runtimeClass:
    'RuntimeClass | M+V | Rejects workload units that set `overhead`; fills `.spec.overhead` from the runtime class',
  limitRanger: 'LimitRanger | M+V | Enforces per-namespace limit ranges and applies default requests',
  quota: 'ResourceQuota | V | Enforces quota objects',
  ingress:
    'DefaultIngressClass | M | Adds the default ingress class to creations lacking one; more than one default rejects all creations',
  storage: 'DefaultStorageClass | M | Same for volume claims and storage classes',
  resize:
    'PersistentVolumeClaimResize | V | Blocks size changes unless the class sets `allowVolumeExpansion` true',
  protection:
    'StorageObjectInUseProtection | M | Adds protection finalizers to new volume claims and volumes',
};

function kase(
  id: string,
  title: string,
  place: string,
  level: Level,
  fn: (t: CaseContext) => Promise<void>,
): void {
  conformance(pluginCase(id, title, place, level), fn, {
    timeout: 60_000,
  });
}

// ---------------------------------------------------------------- helpers

const PCS = '/apis/scheduling.orch.io/v1/priorityclasses';
const RCS = '/apis/node.orch.io/v1/runtimeclasses';
const ICS = '/apis/networking.orch.io/v1/ingressclasses';
const SCS = '/apis/storage.orch.io/v1/storageclasses';
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const claims = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const ingresses = (ns: string) => `/apis/networking.orch.io/v1/namespaces/${ns}/ingresses`;

/** A namespace for one case, removed (with what it holds) when the case ends. */
async function inNamespace(t: CaseContext, fn: (ns: string) => Promise<void>): Promise<void> {
  const ns = uniqueName('adm');
  const r = await t.client.post('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  checkStatus(r, 201, undefined, `setup: namespace ${ns}`);
  try {
    await fn(ns);
  } finally {
    await dropNamespace(t.client, ns);
  }
}

/** Cluster-scoped objects a case makes, removed when it ends. */
async function withCleanup(t: CaseContext, fn: (made: string[]) => Promise<void>): Promise<void> {
  const made: string[] = [];
  try {
    await fn(made);
  } finally {
    for (const path of made.reverse()) await t.client.delete(path);
  }
}

/**
 * Creates a setup object (201 expected), noted in `made` for removal. `naming`: the object names a
 * class this case made a moment before (a priority or runtime class); Kubernetes' plugins read the
 * classes from their informers' caches, which may not hold the new class yet, so a refusal that
 * says that class was not found is waited out (settle: 5 s at most).
 */
async function create(
  t: CaseContext,
  path: string,
  body: Record<string, unknown>,
  made?: string[],
  naming?: string,
): Promise<any> {
  const post = () => t.step(`POST ${path} ${show(body)}`, () => t.client.post(path, body));
  const lagging = (r: Response) =>
    r.status === 403 &&
    String(r.statusObj?.message).includes(naming!) &&
    /not (be )?found/.test(String(r.statusObj?.message));
  const r = naming ? await settle(post, (x) => !lagging(x)) : await post();
  checkStatus(r, 201, undefined, `setup: create ${show((body.metadata as { name?: string })?.name)}`);
  made?.push(`${path}/${r.json.metadata.name}`);
  return r.json;
}

/**
 * Cluster-wide defaults (a global default priority class, default ingress and storage
 * classes) are shared by every client of the target, this suite's other runs included: a
 * case whose outcome another client's default explains tries again, a bounded number of times.
 */
async function untilSettled(
  t: CaseContext,
  what: string,
  attempt: () => Promise<'again' | undefined>,
): Promise<void> {
  for (let i = 0; i < 30; i++) {
    if ((await t.step(`${what} (attempt ${i + 1})`, attempt)) !== 'again') return;
    await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 300)));
  }
  check(false, `${what} within 30 attempts`, 'other default classes kept appearing on the target');
}

const container = (resources?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'app',
  image: 'registry.example/app:1.0',
  ...(resources ? { resources } : {}),
  ...extra,
});
const pod = (name: string, spec: Record<string, unknown> = {}, containers = [container()]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers, ...spec },
});

/** A refusal by an admission plugin: 403 Forbidden (Kubernetes' admission refusal), nothing written. */
async function checkRefused(
  t: CaseContext,
  r: Response,
  readBack: string,
  why: string,
  message?: string,
): Promise<void> {
  checkStatus(r, 403, 'Forbidden', why);
  if (message !== undefined)
    check(r.statusObj?.message === message, `the message ${show(message)}`, show(r.statusObj?.message), why);
  const read = await t.client.get(readBack);
  checkStatus(read, 404, undefined, `${why} (nothing is created)`);
}

const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'scheduling.orch.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  ...extra,
});

// ---------------------------------------------------------------- Priority

describe('admission plugins: Priority', () => {
  kase(
    'priority-from-class',
    "A new pod naming a priority class gets the class's value as spec.priority",
    ROW.priority,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        const cls = uniqueName('pc');
        await create(t, PCS, priorityClass(cls, 4242), made);
        await inNamespace(t, async (ns) => {
          const p = await create(t, pods(ns), pod('p', { priorityClassName: cls }), undefined, cls);
          check(p.spec?.priority === 4242, 'spec.priority 4242 (the class value)', show(p.spec?.priority));
          const read = await t.client.get(`${pods(ns)}/p`);
          check(
            read.json?.spec?.priority === 4242,
            'the stored pod has spec.priority 4242',
            show(read.json?.spec?.priority),
          );
        });
      }),
  );

  kase(
    'priority-unknown-class',
    'A new pod naming a priority class that does not exist is refused',
    ROW.priority,
    'MUST',
    (t) =>
      inNamespace(t, async (ns) => {
        const cls = uniqueName('missing');
        const r = await t.step('create a pod naming a missing class', () =>
          t.client.post(pods(ns), pod('p', { priorityClassName: cls })),
        );
        await checkRefused(
          t,
          r,
          `${pods(ns)}/p`,
          'an unknown class rejects',
          `pods "p" is forbidden: no PriorityClass with name ${cls} was found`,
        );
      }),
  );

  kase(
    'priority-preemption-and-mismatch',
    "The pod gets the class's preemptionPolicy; a pod whose own priority differs from its class's is refused",
    `${ROW.priority} (Kubernetes 1.28: the pod may not set another priority than its class's)`,
    'BEYOND',
    (t) =>
      withCleanup(t, async (made) => {
        const cls = uniqueName('pc');
        await create(t, PCS, priorityClass(cls, 77, { preemptionPolicy: 'Never' }), made);
        await inNamespace(t, async (ns) => {
          const p = await create(t, pods(ns), pod('p', { priorityClassName: cls }), undefined, cls);
          check(
            p.spec?.preemptionPolicy === 'Never',
            "spec.preemptionPolicy Never (the class's)",
            show(p.spec?.preemptionPolicy),
          );
          const r = await t.client.post(pods(ns), pod('q', { priorityClassName: cls, priority: 5 }));
          await checkRefused(
            t,
            r,
            `${pods(ns)}/q`,
            'a pod may not bring its own priority',
            'pods "q" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 77 from the given PriorityClass name',
          );
        });
      }),
  );

  kase(
    'priority-global-default',
    'A pod naming no class gets the global default class (or priority 0 when there is none); a second global default is refused',
    `${ROW.priority} (Kubernetes 1.28: a class with globalDefault true is the default, only one may be)`,
    'BEYOND',
    (t) =>
      inNamespace(t, async (ns) => {
        const globalDefaults = async () =>
          ((await t.client.get(PCS)).json?.items ?? []).filter((c: any) => c.globalDefault === true);
        await untilSettled(t, 'a pod created while no global default exists', async () => {
          if ((await globalDefaults()).length) return 'again';
          const plain = await create(t, pods(ns), pod(uniqueName('plain')));
          if ((await globalDefaults()).length) return 'again';
          check(
            plain.spec?.priority === 0,
            'spec.priority 0 without a default class',
            show(plain.spec?.priority),
          );
          return undefined;
        });
        await withCleanup(t, async (made) => {
          const cls = uniqueName('dflt');
          await untilSettled(t, 'a global default class of this case', async () => {
            const mine = await t.client.post(PCS, priorityClass(cls, 3, { globalDefault: true }));
            if (mine.status === 403) return 'again';
            checkStatus(mine, 201, undefined, 'a global default while there is none is accepted');
            made.push(`${PCS}/${cls}`);
            return undefined;
          });
          // Kubernetes' plugin reads the classes from its informer's cache, which may not hold the
          // new class yet: a pod that got no class is the cache lagging, and another pod is made
          await untilSettled(t, 'a pod defaulted by the global default class', async () => {
            const p = await create(t, pods(ns), pod(uniqueName('defaulted')));
            if (p.spec?.priorityClassName === undefined && p.spec?.priority === 0) return 'again';
            check(
              p.spec?.priorityClassName === cls && p.spec?.priority === 3,
              `spec.priorityClassName ${cls} and spec.priority 3`,
              show({ priorityClassName: p.spec?.priorityClassName, priority: p.spec?.priority }),
            );
            return undefined;
          });
          const other = uniqueName('dflt');
          const second = await t.client.post(PCS, priorityClass(other, 4, { globalDefault: true }));
          if (second.status === 201) made.push(`${PCS}/${other}`);
          checkStatus(second, 403, 'Forbidden', 'only one global default may exist');
          check(
            second.statusObj?.message ===
              `priorityclasses.scheduling.orch.io "${other}" is forbidden: PriorityClass ${cls} is already marked as default. Only one default can exist`,
            "Kubernetes 1.28's message naming the existing default",
            show(second.statusObj?.message),
          );
        });
      }),
  );
});

// ---------------------------------------------------------------- RuntimeClass

describe('admission plugins: RuntimeClass', () => {
  const runtimeClass = (name: string, extra: Record<string, unknown>) => ({
    apiVersion: 'node.orch.io/v1',
    kind: 'RuntimeClass',
    metadata: { name },
    handler: 'sandbox',
    ...extra,
  });

  kase(
    'runtimeclass-fills-overhead',
    "A new pod naming a runtime class gets the class's overhead.podFixed as spec.overhead",
    ROW.runtimeClass,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        const rc = uniqueName('rc');
        await create(
          t,
          RCS,
          runtimeClass(rc, { overhead: { podFixed: { cpu: '250m', memory: '120Mi' } } }),
          made,
        );
        await inNamespace(t, async (ns) => {
          const p = await create(t, pods(ns), pod('p', { runtimeClassName: rc }), undefined, rc);
          check(
            p.spec?.overhead?.cpu === '250m' && p.spec?.overhead?.memory === '120Mi',
            'spec.overhead {cpu: 250m, memory: 120Mi}',
            show(p.spec?.overhead),
          );
        });
      }),
  );

  kase(
    'runtimeclass-rejects-pod-overhead',
    'A new pod that sets spec.overhead itself (its runtime class defines none) is refused',
    ROW.runtimeClass,
    'MUST',
    (t) =>
      inNamespace(t, async (ns) => {
        const r = await t.step('create a pod with its own overhead', () =>
          t.client.post(pods(ns), pod('p', { overhead: { cpu: '1' } })),
        );
        await checkRefused(
          t,
          r,
          `${pods(ns)}/p`,
          'a pod may not set overhead',
          'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
        );
      }),
  );

  kase(
    'runtimeclass-scheduling',
    "The runtime class's node selector and tolerations join the pod's; a conflicting node selector or an unknown class is refused",
    `${ROW.runtimeClass} (Kubernetes 1.28: also the class's scheduling)`,
    'BEYOND',
    (t) =>
      withCleanup(t, async (made) => {
        const rc = uniqueName('rc');
        const toleration = { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' };
        await create(
          t,
          RCS,
          runtimeClass(rc, { scheduling: { nodeSelector: { sandbox: 'yes' }, tolerations: [toleration] } }),
          made,
        );
        await inNamespace(t, async (ns) => {
          const p = await create(
            t,
            pods(ns),
            pod('p', { runtimeClassName: rc, nodeSelector: { zone: 'a' } }),
            undefined,
            rc,
          );
          check(
            p.spec?.nodeSelector?.sandbox === 'yes' && p.spec?.nodeSelector?.zone === 'a',
            'spec.nodeSelector {sandbox: yes, zone: a}',
            show(p.spec?.nodeSelector),
          );
          check(
            (p.spec?.tolerations ?? []).some(
              (x: any) => x.key === 'sandbox' && x.operator === 'Exists' && x.effect === 'NoSchedule',
            ),
            "the class's toleration among spec.tolerations",
            show(p.spec?.tolerations),
          );
          const conflict = await t.client.post(
            pods(ns),
            pod('q', { runtimeClassName: rc, nodeSelector: { sandbox: 'no' } }),
          );
          await checkRefused(
            t,
            conflict,
            `${pods(ns)}/q`,
            'a conflicting node selector',
            'pods "q" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; pod.spec.nodeSelector[sandbox] = no',
          );
          const unknown = await t.client.post(
            pods(ns),
            pod('u', { runtimeClassName: uniqueName('missing') }),
          );
          await checkRefused(t, unknown, `${pods(ns)}/u`, 'an unknown runtime class');
        });
      }),
  );
});

// ---------------------------------------------------------------- LimitRanger

describe('admission plugins: LimitRanger', () => {
  const limitRange = (limits: Record<string, unknown>[]) => ({
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'limits' },
    spec: { limits },
  });
  const ranges = (ns: string) => `/api/v1/namespaces/${ns}/limitranges`;

  kase(
    'limitranger-defaults',
    "A new pod's containers get the limit range's default requests and limits for what they leave unset",
    ROW.limitRanger,
    'MUST',
    (t) =>
      inNamespace(t, async (ns) => {
        await create(
          t,
          ranges(ns),
          limitRange([
            {
              type: 'Container',
              default: { cpu: '500m', memory: '256Mi' },
              defaultRequest: { cpu: '100m', memory: '128Mi' },
            },
          ]),
        );
        const p = await create(t, pods(ns), pod('p', {}, [container({ requests: { memory: '64Mi' } })]));
        const res = p.spec?.containers?.[0]?.resources ?? {};
        check(
          res.requests?.cpu === '100m' &&
            res.requests?.memory === '64Mi' &&
            res.limits?.cpu === '500m' &&
            res.limits?.memory === '256Mi',
          'requests {cpu: 100m, memory: 64Mi (its own)}, limits {cpu: 500m, memory: 256Mi}',
          show(res),
        );
      }),
  );

  kase(
    'limitranger-max',
    "A new pod whose container limit is above the limit range's max is refused",
    ROW.limitRanger,
    'MUST',
    (t) =>
      inNamespace(t, async (ns) => {
        await create(t, ranges(ns), limitRange([{ type: 'Container', max: { cpu: '1' } }]));
        const r = await t.client.post(pods(ns), pod('p', {}, [container({ limits: { cpu: '2' } })]));
        await checkRefused(
          t,
          r,
          `${pods(ns)}/p`,
          'above max',
          'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
        );
      }),
  );

  kase(
    'limitranger-min',
    "A new pod whose container request is below the limit range's min is refused",
    ROW.limitRanger,
    'MUST',
    (t) =>
      inNamespace(t, async (ns) => {
        await create(t, ranges(ns), limitRange([{ type: 'Container', min: { memory: '64Mi' } }]));
        const r = await t.client.post(pods(ns), pod('p', {}, [container({ requests: { memory: '32Mi' } })]));
        await checkRefused(
          t,
          r,
          `${pods(ns)}/p`,
          'below min',
          'pods "p" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi',
        );
      }),
  );

  kase(
    'limitranger-pod-and-claim',
    "A Pod item bounds the sum of a pod's containers, a ratio item the limit-to-request ratio, a PersistentVolumeClaim item a claim's storage",
    `${ROW.limitRanger} (Kubernetes 1.28: Pod, Container and PersistentVolumeClaim items, maxLimitRequestRatio)`,
    'BEYOND',
    (t) =>
      inNamespace(t, async (ns) => {
        await create(
          t,
          ranges(ns),
          limitRange([
            { type: 'Pod', max: { cpu: '1' } },
            { type: 'Container', maxLimitRequestRatio: { memory: '2' } },
            { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } },
          ]),
        );
        const two = [
          { ...container({ limits: { cpu: '600m', memory: '64Mi' } }), name: 'a' },
          { ...container({ limits: { cpu: '600m', memory: '64Mi' } }), name: 'b' },
        ];
        const sum = await t.client.post(pods(ns), pod('p', {}, two));
        await checkRefused(
          t,
          sum,
          `${pods(ns)}/p`,
          'the pod as a whole above max',
          'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m',
        );
        const ratio = await t.client.post(
          pods(ns),
          pod('r', {}, [
            container({ limits: { cpu: '100m', memory: '256Mi' }, requests: { memory: '64Mi' } }),
          ]),
        );
        await checkRefused(
          t,
          ratio,
          `${pods(ns)}/r`,
          'limit 4 times the request',
          'pods "r" is forbidden: memory max limit to request ratio per Container is 2, but provided ratio is 4.000000',
        );
        const claim = await t.client.post(claims(ns), {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'c' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: '',
            resources: { requests: { storage: '5Gi' } },
          },
        });
        await checkRefused(
          t,
          claim,
          `${claims(ns)}/c`,
          'a claim above max',
          'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 5Gi',
        );
      }),
  );
});

// ---------------------------------------------------------------- ResourceQuota

describe('admission plugins: ResourceQuota', () => {
  const quota = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name },
    spec,
  });
  const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  /**
   * Creates a quota and waits (at most 10 s) until its status holds its hard limits: a
   * cluster's quota controller writes the status, and its admission may judge by a cache that
   * has not yet seen a new quota (kube-apiserver 1.28 lists quotas from an informer).
   */
  const createQuota = async (t: CaseContext, ns: string, body: ReturnType<typeof quota>) => {
    await create(t, quotas(ns), body);
    const want = (body.spec as { hard: Record<string, string> }).hard;
    const until = Date.now() + 10_000;
    let status: any;
    do {
      status = (await t.client.get(`${quotas(ns)}/${body.metadata.name}`)).json?.status;
      if (Object.keys(want).every((k) => status?.hard?.[k] !== undefined)) return;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < until);
    check(
      false,
      `quota ${body.metadata.name}'s status.hard holds ${show(want)} within 10 s`,
      show(status),
      'setup',
    );
  };

  const overQuota = (strict: boolean) => (t: CaseContext) =>
    inNamespace(t, async (ns) => {
      // a quota counts from the namespace's objects; a fresh namespace may already hold some (its
      // root CA, which a cluster's publisher writes a moment after the namespace). Admission
      // judges by the usage in the quota's status, which a cluster's quota controller counts when
      // the quota appears, and after that only on deletions and a resync every 5 minutes
      // (Kubernetes 1.28): so the namespace gets its config maps first (the root CA within 5 s,
      // else one of the case's own), then the quota, and the case waits (at most 10 s) until
      // the status counts what the namespace holds
      const count = async () =>
        (await t.client.get(`/api/v1/namespaces/${ns}/configmaps`)).json?.items?.length ?? 0;
      for (const until = Date.now() + 5_000; (await count()) === 0 && Date.now() < until; )
        await new Promise((res) => setTimeout(res, 200));
      if ((await count()) === 0) await create(t, `/api/v1/namespaces/${ns}/configmaps`, configMap('one'));
      await createQuota(t, ns, quota('q', { hard: { configmaps: '1', 'count/secrets': '0' } }));
      const counted = async () => {
        const until = Date.now() + 10_000;
        let used = '';
        for (;;) {
          used = (await t.client.get(`${quotas(ns)}/q`)).json?.status?.used?.configmaps ?? '';
          if ((used !== '' && Number(used) === (await count())) || Date.now() > until) return used;
          await new Promise((res) => setTimeout(res, 200));
        }
      };
      const used = await counted();
      check(
        used !== '' && Number(used) >= 1,
        "the quota's status counts the namespace's config maps (at least 1) within 10 s",
        show(used),
        'setup',
      );
      const r = await t.step('create a config map over the quota', () =>
        t.client.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('two')),
      );
      const secret = await t.step('create a secret over a zero quota', () =>
        t.client.post(`/api/v1/namespaces/${ns}/secrets`, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 's' },
        }),
      );
      if (strict) {
        await checkRefused(
          t,
          r,
          `/api/v1/namespaces/${ns}/configmaps/two`,
          'one config map allowed',
          `configmaps "two" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=${used}, limited: configmaps=1`,
        );
        await checkRefused(
          t,
          secret,
          `/api/v1/namespaces/${ns}/secrets/s`,
          'no secret allowed',
          'secrets "s" is forbidden: exceeded quota: q, requested: count/secrets=1, used: count/secrets=0, limited: count/secrets=0',
        );
      } else {
        for (const [res, path] of [
          [r, `/api/v1/namespaces/${ns}/configmaps/two`],
          [secret, `/api/v1/namespaces/${ns}/secrets/s`],
        ] as const) {
          check(res.status >= 400 && res.status < 500, 'a 4xx refusal', res.describe());
          checkStatus(await t.client.get(path), 404, undefined, 'nothing is created');
        }
      }
    });

  kase(
    'quota-exceeded',
    "A creation that would take a namespace over a quota's hard limit is refused",
    ROW.quota,
    'MUST',
    overQuota(false),
  );
  kase(
    'quota-exceeded/kubernetes-shape',
    'A creation over quota is refused as Kubernetes refuses it: 403 Forbidden, `exceeded quota: <name>, requested: ..., used: ..., limited: ...`',
    `${ROW.quota} (Kubernetes 1.28: 403 and the message naming the quota and the resources)`,
    'BEYOND',
    overQuota(true),
  );

  kase(
    'quota-usage-in-status',
    "A quota's status holds its hard limits and the namespace's usage, updated as objects come and go",
    `${ROW.quota} (Kubernetes 1.28: status.hard and status.used)`,
    'BEYOND',
    (t) =>
      inNamespace(t, async (ns) => {
        await createQuota(
          t,
          ns,
          quota('q', { hard: { pods: '5', 'requests.cpu': '2', 'limits.memory': '1Gi' } }),
        );
        const used = async (want: Record<string, string>, when: string) => {
          let q: any;
          for (let i = 0; i < 40; i++) {
            q = (await t.client.get(`${quotas(ns)}/q`)).json;
            if (Object.entries(want).every(([k, v]) => q?.status?.used?.[k] === v)) break;
            await new Promise((r) => setTimeout(r, 250));
          }
          check(
            q?.status?.hard?.pods === '5' && q?.status?.hard?.['requests.cpu'] === '2',
            'status.hard as spec.hard',
            show(q?.status?.hard),
            when,
          );
          for (const [k, v] of Object.entries(want))
            check(q?.status?.used?.[k] === v, `status.used[${k}] ${v}`, show(q?.status?.used), when);
        };
        await used({ pods: '0', 'requests.cpu': '0', 'limits.memory': '0' }, 'a new quota');
        await create(
          t,
          pods(ns),
          pod('a', {}, [container({ requests: { cpu: '500m' }, limits: { memory: '256Mi' } })]),
        );
        await create(
          t,
          pods(ns),
          pod('b', {}, [container({ requests: { cpu: '250m' }, limits: { memory: '256Mi' } })]),
        );
        await used({ pods: '2', 'requests.cpu': '750m', 'limits.memory': '512Mi' }, 'after two pods');
        checkStatus(
          await t.client.delete(`${pods(ns)}/a?gracePeriodSeconds=0`),
          [200, 202],
          undefined,
          'delete pod a',
        );
        await used({ pods: '1', 'requests.cpu': '250m' }, 'after deleting one');
      }),
  );

  kase(
    'quota-compute-must-be-set',
    'Once a quota limits cpu or memory, a new pod whose container does not set it is refused',
    `${ROW.quota} (Kubernetes 1.28: "failed quota: <name>: must specify ...")`,
    'BEYOND',
    (t) =>
      inNamespace(t, async (ns) => {
        await createQuota(t, ns, quota('q', { hard: { 'limits.memory': '1Gi' } }));
        const r = await t.client.post(pods(ns), pod('p'));
        await checkRefused(
          t,
          r,
          `${pods(ns)}/p`,
          'no memory limit',
          'pods "p" is forbidden: failed quota: q: must specify limits.memory for: app',
        );
      }),
  );

  kase(
    'quota-scopes',
    'A quota scoped to BestEffort pods counts only pods that set no cpu or memory',
    `${ROW.quota} (Kubernetes 1.28: quota scopes)`,
    'BEYOND',
    (t) =>
      inNamespace(t, async (ns) => {
        await createQuota(t, ns, quota('q', { hard: { pods: '1' }, scopes: ['BestEffort'] }));
        await create(t, pods(ns), pod('a'));
        const second = await t.client.post(pods(ns), pod('b'));
        await checkRefused(t, second, `${pods(ns)}/b`, 'a second best-effort pod');
        await create(t, pods(ns), pod('c', {}, [container({ requests: { cpu: '10m' } })]));
      }),
  );
});

// ---------------------------------------------------------------- default classes

/** The names of the classes annotated as the default. */
async function defaults(t: CaseContext, path: string, annotation: string): Promise<string[]> {
  const items = (await t.client.get(path)).json?.items ?? [];
  return items
    .filter((c: any) => c.metadata?.annotations?.[annotation] === 'true')
    .map((c: any) => c.metadata.name);
}

/**
 * One default class on the target, the case's own if there was none: the names of the defaults
 * when there is exactly one, else undefined (try again). A case that made a default and finds
 * others too withdraws its own, so concurrent runs do not wait on each other for ever.
 */
async function settleDefaults(
  t: CaseContext,
  path: string,
  annotation: string,
  make: () => Record<string, unknown>,
  made: string[],
): Promise<string[] | undefined> {
  const now = await defaults(t, path, annotation);
  if (now.length === 0) {
    await create(t, path, make(), made);
    return undefined;
  }
  if (now.length > 1) {
    for (const m of [...made]) {
      await t.client.delete(m);
      made.splice(made.indexOf(m), 1);
    }
    return undefined;
  }
  return now;
}

describe('admission plugins: DefaultIngressClass and DefaultStorageClass', () => {
  const INGRESS_DEFAULT = 'ingressclass.orch.io/is-default-class';
  const STORAGE_DEFAULT = 'storageclass.orch.io/is-default-class';
  const ingressClass = (name: string) => ({
    apiVersion: 'networking.orch.io/v1',
    kind: 'IngressClass',
    metadata: { name, annotations: { [INGRESS_DEFAULT]: 'true' } },
    spec: { controller: 'example.com/ingress' },
  });
  const storageClass = (name: string) => ({
    apiVersion: 'storage.orch.io/v1',
    kind: 'StorageClass',
    metadata: { name, annotations: { [STORAGE_DEFAULT]: 'true' } },
    provisioner: 'example.com/disk',
  });
  const ingress = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'networking.orch.io/v1',
    kind: 'Ingress',
    metadata: { name },
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
  });
  const claim = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  });

  kase(
    'default-ingress-class',
    'A new ingress naming no class gets the default ingress class',
    ROW.ingress,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        await inNamespace(t, async (ns) => {
          await untilSettled(t, 'an ingress created while one default ingress class exists', async () => {
            const before = await settleDefaults(
              t,
              ICS,
              INGRESS_DEFAULT,
              () => ingressClass(uniqueName('ic')),
              made,
            );
            if (!before) return 'again';
            const r = await t.client.post(ingresses(ns), ingress(uniqueName('i')));
            const after = await defaults(t, ICS, INGRESS_DEFAULT);
            // another client's default came and went in between
            if (after.length !== 1 || after[0] !== before[0] || r.status === 403) return 'again';
            checkStatus(r, 201, undefined, 'one default ingress class');
            check(
              r.json?.spec?.ingressClassName === before[0],
              `spec.ingressClassName ${show(before[0])}`,
              show(r.json?.spec?.ingressClassName),
            );
            return undefined;
          });
          const named = await create(t, ingresses(ns), ingress('n', { ingressClassName: 'other' }));
          check(
            named.spec?.ingressClassName === 'other',
            'an ingress naming its class keeps it',
            show(named.spec?.ingressClassName),
          );
        });
      }),
  );

  kase(
    'default-ingress-class-two-defaults',
    'With more than one default ingress class, a new ingress naming no class is refused',
    ROW.ingress,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        for (let i = 0; i < 2; i++) await create(t, ICS, ingressClass(uniqueName('ic')), made);
        await inNamespace(t, async (ns) => {
          const r = await t.step('create an ingress naming no class', () =>
            t.client.post(ingresses(ns), ingress('i')),
          );
          await checkRefused(t, r, `${ingresses(ns)}/i`, 'two defaults reject creations lacking a class');
          await create(t, ingresses(ns), ingress('n', { ingressClassName: 'other' }));
        });
      }),
  );

  kase(
    'default-storage-class',
    'A new volume claim naming no class gets the default storage class',
    ROW.storage,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        await inNamespace(t, async (ns) => {
          await untilSettled(t, 'a claim created while one default storage class exists', async () => {
            const before = await settleDefaults(
              t,
              SCS,
              STORAGE_DEFAULT,
              () => storageClass(uniqueName('sc')),
              made,
            );
            if (!before) return 'again';
            const r = await t.client.post(claims(ns), claim(uniqueName('c')));
            const after = await defaults(t, SCS, STORAGE_DEFAULT);
            // another client's default came and went in between
            if (after.length !== 1 || after[0] !== before[0] || r.status === 403) return 'again';
            checkStatus(r, 201, undefined, 'one default storage class');
            check(
              r.json?.spec?.storageClassName === before[0],
              `spec.storageClassName ${show(before[0])}`,
              show(r.json?.spec?.storageClassName),
            );
            return undefined;
          });
          const none = await create(t, claims(ns), claim('e', { storageClassName: '' }));
          check(
            none.spec?.storageClassName === '',
            'a claim asking for no class ("") keeps it',
            show(none.spec?.storageClassName),
          );
        });
      }),
  );

  kase(
    'default-storage-class-two-defaults',
    'With more than one default storage class, a new volume claim naming no class is refused',
    ROW.storage,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        for (let i = 0; i < 2; i++) await create(t, SCS, storageClass(uniqueName('sc')), made);
        await inNamespace(t, async (ns) => {
          const r = await t.step('create a claim naming no class', () =>
            t.client.post(claims(ns), claim('c')),
          );
          await checkRefused(t, r, `${claims(ns)}/c`, 'two defaults reject claims lacking a class');
        });
      }),
  );
});

// ---------------------------------------------------------------- volume claims

describe('admission plugins: PersistentVolumeClaimResize and StorageObjectInUseProtection', () => {
  // the volume controller writes a claim too (its provisioner annotations): each write is made
  // from a fresh read, again when one of the controller's came in between (409)
  const bound = async (t: CaseContext, ns: string, name: string, cls: string) => {
    await create(t, claims(ns), {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: cls,
        resources: { requests: { storage: '1Gi' } },
      },
    });
    const s = await updateFresh(
      t.client,
      `${claims(ns)}/${name}`,
      (c) => ({
        ...c,
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
      }),
      { subresource: 'status' },
    );
    checkStatus(s, 200, undefined, 'setup: the claim is bound (its status written)');
    return s.json;
  };
  const grow = (t: CaseContext, ns: string, o: any) =>
    t.step(`grow ${o.metadata.name} to 2Gi`, () =>
      updateFresh(t.client, `${claims(ns)}/${o.metadata.name}`, (c) => ({
        ...c,
        spec: { ...c.spec, resources: { requests: { storage: '2Gi' } } },
      })),
    );
  const sc = (name: string, expand: boolean) => ({
    apiVersion: 'storage.orch.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner: 'example.com/disk',
    allowVolumeExpansion: expand,
  });

  kase(
    'pvc-resize-allowed',
    'A bound claim whose class sets allowVolumeExpansion true may grow',
    ROW.resize,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        const cls = uniqueName('grow');
        await create(t, SCS, sc(cls, true), made);
        await inNamespace(t, async (ns) => {
          const r = await grow(t, ns, await bound(t, ns, 'c', cls));
          checkStatus(r, 200, undefined, 'the class allows expansion');
          check(
            r.json?.spec?.resources?.requests?.storage === '2Gi',
            'spec.resources.requests.storage 2Gi',
            show(r.json?.spec?.resources),
          );
        });
      }),
  );

  kase(
    'pvc-resize-refused',
    'A bound claim whose class does not allow expansion may not grow',
    ROW.resize,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        const cls = uniqueName('fixed');
        await create(t, SCS, sc(cls, false), made);
        await inNamespace(t, async (ns) => {
          const before = await bound(t, ns, 'c', cls);
          const r = await grow(t, ns, before);
          checkStatus(r, 403, 'Forbidden', 'the class does not allow expansion');
          check(
            r.statusObj?.message ===
              'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
            "Kubernetes 1.28's message",
            show(r.statusObj?.message),
          );
          const read = await t.client.get(`${claims(ns)}/c`);
          check(
            read.json?.spec?.resources?.requests?.storage === '1Gi',
            'the claim still asks for 1Gi',
            show(read.json?.spec?.resources),
          );
        });
      }),
  );

  kase(
    'protection-finalizers',
    'A new volume claim gets the finalizer orch.io/pvc-protection, a new volume orch.io/pv-protection',
    ROW.protection,
    'MUST',
    (t) =>
      withCleanup(t, async (made) => {
        await inNamespace(t, async (ns) => {
          const c = await create(t, claims(ns), {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'c' },
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: '',
              resources: { requests: { storage: '1Gi' } },
            },
          });
          check(
            (c.metadata?.finalizers ?? []).includes('orch.io/pvc-protection'),
            'metadata.finalizers holds orch.io/pvc-protection',
            show(c.metadata?.finalizers),
          );
        });
        const pv = await create(
          t,
          '/api/v1/persistentvolumes',
          {
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: { name: uniqueName('pv') },
            spec: {
              capacity: { storage: '1Gi' },
              accessModes: ['ReadWriteOnce'],
              hostPath: { path: '/tmp/data' },
            },
          },
          made,
        );
        check(
          (pv.metadata?.finalizers ?? []).includes('orch.io/pv-protection'),
          'metadata.finalizers holds orch.io/pv-protection',
          show(pv.metadata?.finalizers),
        );
      }),
  );
});
