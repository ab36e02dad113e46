// doc3's plugin table (under § Webhook configuration objects), the plugins that shape pods:
// DefaultTolerationSeconds (default-enabled; its 5 minutes also a row of § Limits),
// AlwaysPullImages, ExtendedResourceToleration, LimitPodHardAntiAffinityTopology,
// SecurityContextDeny, PodNodeSelector and PodTolerationRestriction. The off-by-default ones
// need a target declared with them on (`needs.admissionPlugins`); what the table leaves out
// (exact messages, which security-context fields, updates, memory pressure) follows
// Kubernetes 1.28 at level BEYOND.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { updateFresh } from '../../harness/src/conflict-retry.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import {
  checkHasToleration,
  checkLacksToleration,
  checkRefused,
  createPod,
  inNamespace,
  pluginCase,
  pod,
  podsPath,
  sameToleration,
  tolerationsOf,
} from './plugin-support.ts';

const NOT_READY = { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute' };
const UNREACHABLE = { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute' };
const T = 60_000;
const on = (...plugins: string[]) => ({ timeout: T, needs: { admissionPlugins: plugins } });

const DTS =
  'DefaultTolerationSeconds | M | Adds tolerations for not-ready and unreachable taints, default 5 minutes, from server flags `default-not-ready-toleration-seconds` and `default-unreachable-toleration-seconds`';
const API = 'AlwaysPullImages | M | Sets image pull policy `Always` on new workload units';
const ERT =
  'ExtendedResourceToleration | M | Adds tolerations for taints named after extended resources; off by default';
const LPH =
  'LimitPodHardAntiAffinityTopology | V | Rejects required anti-affinity with topology keys other than the hostname key; off by default';
const SCD = 'SecurityContextDeny | V | Rejects several security-context fields; deprecated';
const PNS =
  'PodNodeSelector | V | Node selectors from namespace annotation `scheduler.alpha.orch.io/node-selector` and config; conflicts reject; off by default';
const PTR =
  'PodTolerationRestriction | M+V | Merges namespace tolerations (`scheduler.alpha.orch.io/defaultTolerations`) and checks the allow-list (`scheduler.alpha.orch.io/tolerationsWhitelist`); off by default';

const antiAffinity = (topologyKey: string) => ({
  affinity: {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { app: 'a' } }, topologyKey },
      ],
    },
  },
});

describe('admission: built-in plugins that shape pods', () => {
  conformance(
    pluginCase(
      'default-toleration-seconds/adds',
      'A pod created without tolerations of the not-ready and unreachable NoExecute taints gets both, for 300 seconds',
      DTS,
      'MUST',
    ),
    (t) =>
      inNamespace(t, 'dts', async (ns) => {
        const r = await createPod(t, ns, pod('plain'), 'no tolerations');
        checkStatus(r, 201, undefined, 'setup: a plain pod is valid');
        for (const want of [NOT_READY, UNREACHABLE])
          checkHasToleration(
            r,
            { ...want, tolerationSeconds: 300 },
            'DefaultTolerationSeconds adds it, default 5 minutes',
          );
      }),
    { timeout: T },
  );

  conformance(
    pluginCase(
      'default-toleration-seconds/keeps-own',
      'A pod that tolerates the not-ready taint itself keeps its toleration and gets only the unreachable one',
      `${DTS} (Kubernetes 1.28: a toleration of the taint's key, or an empty key, with effect NoExecute or none, counts)`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'dts', async (ns) => {
        const own = { ...NOT_READY, tolerationSeconds: 10 };
        const r = await createPod(t, ns, pod('own', { tolerations: [own] }), 'its own not-ready toleration');
        checkStatus(r, 201, undefined, 'setup');
        checkHasToleration(r, own, 'its own toleration is kept');
        checkLacksToleration(r, { ...NOT_READY, tolerationSeconds: 300 }, 'no second not-ready toleration');
        checkHasToleration(r, { ...UNREACHABLE, tolerationSeconds: 300 }, 'the unreachable one is added');
      }),
    { timeout: T },
  );

  conformance(
    pluginCase(
      'always-pull-images/new-pod',
      'With AlwaysPullImages on, every container of a new pod has imagePullPolicy Always, whatever it asked for',
      API,
      'MUST',
    ),
    (t) =>
      inNamespace(t, 'api', async (ns) => {
        const r = await createPod(
          t,
          ns,
          pod('pull', {
            initContainers: [{ name: 'i', image: 'registry.example/init:2', imagePullPolicy: 'Never' }],
            containers: [{ name: 'c', image: 'registry.example/app:1.0', imagePullPolicy: 'IfNotPresent' }],
          }),
          'pull policies Never and IfNotPresent',
        );
        checkStatus(r, 201, undefined, 'setup');
        const policies = [...(r.json.spec.initContainers ?? []), ...(r.json.spec.containers ?? [])].map(
          (c: { imagePullPolicy?: string }) => c.imagePullPolicy,
        );
        check(
          policies.length === 2 && policies.every((p) => p === 'Always'),
          'imagePullPolicy Always on both',
          show(policies),
        );
      }),
    on('AlwaysPullImages'),
  );

  conformance(
    pluginCase(
      'always-pull-images/update-new-image',
      'With AlwaysPullImages on, a pod updated with a new image is set to pull Always again',
      `${API} (Kubernetes 1.28: also an update that brings a new image)`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'api', async (ns) => {
        const r = await createPod(t, ns, pod('pull'), 'an image');
        checkStatus(r, 201, undefined, 'setup');
        // from a fresh read, again if a cluster's scheduler or node agent wrote the pod meanwhile
        const u = await t.step('replace it with a new image and IfNotPresent', () =>
          updateFresh(t.client, `${podsPath(ns)}/pull`, (next) => {
            next.spec.containers[0].image = 'registry.example/app:2.0';
            next.spec.containers[0].imagePullPolicy = 'IfNotPresent';
            return next;
          }),
        );
        checkStatus(u, 200, undefined, 'an image change is a valid pod update');
        check(
          u.json.spec.containers[0].imagePullPolicy === 'Always',
          'imagePullPolicy Always',
          show(u.json.spec.containers[0].imagePullPolicy),
        );
      }),
    on('AlwaysPullImages'),
  );

  conformance(
    pluginCase(
      'extended-resource-toleration/adds',
      'With ExtendedResourceToleration on, a pod requesting an extended resource tolerates the NoSchedule taint named after it; native resources add nothing',
      ERT,
      'MUST',
    ),
    (t) =>
      inNamespace(t, 'ert', async (ns) => {
        const r = await createPod(
          t,
          ns,
          pod('gpu', {
            containers: [
              {
                name: 'c',
                image: 'registry.example/app:1.0',
                resources: { limits: { 'example.com/gpu': '1', cpu: '1' } },
              },
            ],
          }),
          'limits example.com/gpu and cpu',
        );
        checkStatus(r, 201, undefined, 'setup');
        checkHasToleration(
          r,
          { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
          'the extended resource',
        );
        check(
          !tolerationsOf(r).some((x) => x.key === 'cpu'),
          'no toleration for cpu (a native resource)',
          show(tolerationsOf(r)),
        );
      }),
    on('ExtendedResourceToleration'),
  );

  const lph = (strict: boolean) => (t: Parameters<Parameters<typeof conformance>[1]>[0]) =>
    inNamespace(t, 'lph', async (ns) => {
      const ok = await createPod(
        t,
        ns,
        pod('host', antiAffinity('orch.io/hostname')),
        'anti-affinity on orch.io/hostname',
      );
      checkStatus(ok, 201, undefined, 'the hostname key is allowed');
      const name = uniqueName('zone');
      const r = await createPod(
        t,
        ns,
        pod(name, antiAffinity('topology.orch.io/zone')),
        'anti-affinity on topology.orch.io/zone',
      );
      await checkRefused(
        t.client,
        r,
        `${podsPath(ns)}/${name}`,
        'required anti-affinity on another topology key is rejected',
        strict
          ? {
              code: 403,
              reason: 'Forbidden',
              message: `pods "${name}" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.orch.io/zone but only key orch.io/hostname is allowed`,
            }
          : undefined,
      );
    });
  conformance(
    pluginCase(
      'limit-pod-hard-anti-affinity-topology/other-key-refused',
      'With LimitPodHardAntiAffinityTopology on, a pod with required anti-affinity on a key other than orch.io/hostname is refused; on the hostname key it is accepted',
      LPH,
      'MUST',
    ),
    lph(false),
    on('LimitPodHardAntiAffinityTopology'),
  );
  conformance(
    pluginCase(
      'limit-pod-hard-anti-affinity-topology/other-key-refused/kubernetes-shape',
      'The refusal of required anti-affinity on another topology key is 403 Forbidden naming the key, as Kubernetes words it',
      `${LPH} (Kubernetes 1.28: 403 Forbidden)`,
      'BEYOND',
    ),
    lph(true),
    on('LimitPodHardAntiAffinityTopology'),
  );

  conformance(
    pluginCase(
      'security-context-deny/fields-refused',
      "With SecurityContextDeny on, a pod setting the pod's supplementalGroups, seLinuxOptions, runAsUser or fsGroup, or a container's seLinuxOptions or runAsUser, is refused with 403; runAsNonRoot passes",
      `${SCD} (Kubernetes 1.28 names those six fields)`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'scd', async (ns) => {
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
            {
              containers: [
                { name: 'c', image: 'registry.example/app:1.0', securityContext: { runAsUser: 1 } },
              ],
            },
            'SecurityContext.RunAsUser is forbidden',
          ],
          [
            {
              containers: [
                {
                  name: 'c',
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
          const r = await createPod(t, ns, pod(name, spec), show(spec));
          await checkRefused(t.client, r, `${podsPath(ns)}/${name}`, `SecurityContextDeny: ${message}`, {
            code: 403,
            reason: 'Forbidden',
            message: `pods "${name}" is forbidden: ${message}`,
          });
        }
        const ok = await createPod(
          t,
          ns,
          pod('nonroot', { securityContext: { runAsNonRoot: true } }),
          'runAsNonRoot only',
        );
        checkStatus(ok, 201, undefined, 'runAsNonRoot is not one of the fields');
      }),
    on('SecurityContextDeny'),
  );

  const NODE_SELECTOR = 'scheduler.alpha.orch.io/node-selector';
  conformance(
    pluginCase(
      'pod-node-selector/merges',
      "With PodNodeSelector on, a pod's node selector gets its namespace's annotated selector merged in",
      PNS,
      'MUST',
    ),
    (t) =>
      inNamespace(
        t,
        'pns',
        async (ns) => {
          const r = await createPod(
            t,
            ns,
            pod('merged', { nodeSelector: { gpu: 'yes' } }),
            'nodeSelector gpu=yes',
          );
          checkStatus(r, 201, undefined, 'no conflict');
          const want = { env: 'prod', disk: 'ssd', gpu: 'yes' };
          const have = r.json.spec.nodeSelector ?? {};
          check(
            Object.keys(have).length === 3 && Object.entries(want).every(([k, v]) => have[k] === v),
            `nodeSelector ${show(want)}`,
            show(have),
          );
        },
        { [NODE_SELECTOR]: 'env=prod,disk=ssd' },
      ),
    on('PodNodeSelector'),
  );

  const pnsConflict = (strict: boolean) => (t: Parameters<Parameters<typeof conformance>[1]>[0]) =>
    inNamespace(
      t,
      'pns',
      async (ns) => {
        const name = uniqueName('conflict');
        const r = await createPod(
          t,
          ns,
          pod(name, { nodeSelector: { env: 'dev' } }),
          'nodeSelector env=dev against env=prod',
        );
        await checkRefused(
          t.client,
          r,
          `${podsPath(ns)}/${name}`,
          "a pod selector that conflicts with the namespace's is rejected",
          strict
            ? {
                code: 403,
                reason: 'Forbidden',
                message: `pods "${name}" is forbidden: pod node label selector conflicts with its namespace node label selector`,
              }
            : undefined,
        );
      },
      { [NODE_SELECTOR]: 'env=prod' },
    );
  conformance(
    pluginCase(
      'pod-node-selector/conflict-refused',
      "With PodNodeSelector on, a pod whose node selector gives a key of its namespace's selector another value is refused",
      PNS,
      'MUST',
    ),
    pnsConflict(false),
    on('PodNodeSelector'),
  );
  conformance(
    pluginCase(
      'pod-node-selector/conflict-refused/kubernetes-shape',
      'The refusal of a conflicting node selector is 403 Forbidden with Kubernetes\u2019 message',
      `${PNS} (Kubernetes 1.28: 403 Forbidden)`,
      'BEYOND',
    ),
    pnsConflict(true),
    on('PodNodeSelector'),
  );

  const DEFAULTS = 'scheduler.alpha.orch.io/defaultTolerations';
  const WHITELIST = 'scheduler.alpha.orch.io/tolerationsWhitelist';
  conformance(
    pluginCase(
      'pod-toleration-restriction/defaults-merged',
      "With PodTolerationRestriction on, a new pod gets its namespace's default tolerations merged into its own",
      PTR,
      'MUST',
    ),
    (t) => {
      const dflt = { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' };
      return inNamespace(
        t,
        'ptr',
        async (ns) => {
          const own = { key: 'mine', operator: 'Exists', effect: 'NoSchedule' };
          const r = await createPod(t, ns, pod('p', { tolerations: [own] }), 'its own toleration');
          checkStatus(r, 201, undefined, 'setup');
          checkHasToleration(r, dflt, 'the namespace default is merged in');
          checkHasToleration(r, own, 'the pod keeps its own');
        },
        { [DEFAULTS]: JSON.stringify([dflt]) },
      );
    },
    on('PodTolerationRestriction'),
  );

  conformance(
    pluginCase(
      'pod-toleration-restriction/allow-list',
      "With PodTolerationRestriction on, a pod with a toleration outside its namespace's allow-list is refused; one inside it is accepted",
      PTR,
      'MUST',
    ),
    (t) =>
      inNamespace(
        t,
        'ptr',
        async (ns) => {
          const ok = await createPod(
            t,
            ns,
            pod('inside', {
              tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }],
            }),
            'a toleration the allow-list covers',
          );
          checkStatus(ok, 201, undefined, 'inside the allow-list');
          const name = uniqueName('outside');
          const r = await createPod(
            t,
            ns,
            pod(name, { tolerations: [{ key: 'other', operator: 'Exists', effect: 'NoSchedule' }] }),
            'a toleration outside it',
          );
          await checkRefused(
            t.client,
            r,
            `${podsPath(ns)}/${name}`,
            'a toleration outside the allow-list is rejected',
          );
        },
        {
          // NoExecute ones stay allowed: other plugins (DefaultTolerationSeconds) add some
          [WHITELIST]: JSON.stringify([
            { operator: 'Exists', effect: 'NoExecute' },
            { key: 'dedicated', operator: 'Exists' },
          ]),
          [DEFAULTS]: '[]',
        },
      ),
    on('PodTolerationRestriction'),
  );

  conformance(
    pluginCase(
      'pod-toleration-restriction/memory-pressure',
      'With PodTolerationRestriction on, a pod that requests resources (not BestEffort) tolerates the memory-pressure NoSchedule taint; a BestEffort pod does not',
      `${PTR} (Kubernetes 1.28 adds the memory-pressure toleration to every pod that is not BestEffort)`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'ptr', async (ns) => {
        const mp = { key: 'node.orch.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };
        const b = await createPod(
          t,
          ns,
          pod('burstable', {
            containers: [
              { name: 'c', image: 'registry.example/app:1.0', resources: { requests: { cpu: '100m' } } },
            ],
          }),
          'requests cpu',
        );
        checkStatus(b, 201, undefined, 'setup');
        checkHasToleration(b, mp, 'a Burstable pod');
        const e = await createPod(t, ns, pod('best-effort'), 'no resources');
        checkStatus(e, 201, undefined, 'setup');
        check(
          !tolerationsOf(e).some((x) => sameToleration(x, mp)),
          'no memory-pressure toleration',
          show(tolerationsOf(e)),
        );
      }),
    on('PodTolerationRestriction'),
  );
});
