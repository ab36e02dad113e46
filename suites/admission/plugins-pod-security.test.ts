// doc3 § Webhook configuration objects, plugin table row PodSecurity ("checks new workload units
// against namespace pod security standards"). The row names the plugin's purpose; the labels,
// levels, checks and messages are Kubernetes 1.28's pod security admission (`pod-security.orch.io/`
// labels here), so every case but the first is beyond the text. Audit annotations and the
// configuration's exemptions are not visible through the API (the reference's own tests check them).
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { dropNamespace } from '../../harness/src/fixtures.ts';
import type { CaseDef } from '../../harness/src/spec.ts';
import { namespace, pluginRules, row, SECTION, warningsOf } from './plugin-helpers.ts';

const L = 'pod-security.orch.io/';
const PLACE = row('PodSecurity', 'V', 'Checks new workload units against namespace pod security standards');
const needs = { admissionPlugins: ['PodSecurity'] };
const def = (id: string, title: string, level: CaseDef['level'] = 'BEYOND'): CaseDef => ({
  id: `admission/plugins/pod-security/${id}`,
  title,
  doc: 3,
  section: SECTION,
  place: PLACE,
  specRules: pluginRules(PLACE),
  level,
});

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }], ...spec },
});
const RESTRICTED_OK = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [
    {
      name: 'c',
      image: 'registry.example/app:1',
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
};

/** The baseline checks of 1.28, each with a pod spec that fails only it and the reason and detail it gives. */
const BASELINE: {
  id: string;
  spec: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  says: string;
}[] = [
  {
    id: 'host-namespaces',
    spec: { hostNetwork: true, hostIPC: true },
    says: 'host namespaces (hostNetwork=true, hostIPC=true)',
  },
  {
    id: 'privileged',
    spec: { containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] },
    says: 'privileged (container "c" must not set securityContext.privileged=true)',
  },
  {
    id: 'capabilities',
    spec: {
      containers: [
        { name: 'c', image: 'i', securityContext: { capabilities: { add: ['SYS_ADMIN', 'CHOWN'] } } },
      ],
    },
    says: 'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  {
    id: 'host-path',
    spec: { volumes: [{ name: 'root', hostPath: { path: '/' } }] },
    says: 'hostPath volumes (volume "root")',
  },
  {
    id: 'host-ports',
    spec: {
      containers: [
        { name: 'a', image: 'i', ports: [{ containerPort: 80, hostPort: 8080 }] },
        { name: 'b', image: 'i', ports: [{ containerPort: 81, hostPort: 8081 }] },
      ],
    },
    says: 'hostPort (containers "a", "b" use hostPorts 8080, 8081)',
  },
  {
    id: 'sysctls',
    spec: { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } },
    says: 'forbidden sysctls (kernel.msgmax)',
  },
  {
    id: 'seccomp-unconfined',
    spec: { securityContext: { seccompProfile: { type: 'Unconfined' } } },
    says: 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
  },
  {
    id: 'selinux',
    spec: { securityContext: { seLinuxOptions: { type: 'spc_t' } } },
    says: 'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t")',
  },
];

describe('admission: PodSecurity', () => {
  conformance(
    def(
      'enforce-rejects',
      'In a namespace labelled enforce=baseline a pod that violates baseline is refused (403) and a compliant pod is admitted',
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-enforce', { [`${L}enforce`]: 'baseline' });
      try {
        const bad = await t.step('create a pod with hostNetwork: true', () =>
          t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('bad', { hostNetwork: true })),
        );
        checkStatus(bad, 403, 'Forbidden', 'baseline forbids host namespaces');
        const read = await t.client.get(`/api/v1/namespaces/${ns.name}/pods/bad`);
        checkStatus(read, 404, undefined, 'the refused pod is not stored');
        const ok = await t.step('create a pod without host namespaces', () =>
          t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('ok')),
        );
        checkStatus(ok, 201, undefined, 'a pod that meets baseline is admitted');
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'enforce-message',
      'The refusal says `pods "<name>" is forbidden: violates PodSecurity "<level>:<version>": <reason> (<detail>)`, the version from the enforce-version label',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-msg', {
        [`${L}enforce`]: 'baseline',
        [`${L}enforce-version`]: 'v1.27',
      });
      try {
        const r = await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('p', { hostPID: true }));
        checkStatus(r, 403, 'Forbidden');
        const want =
          'pods "p" is forbidden: violates PodSecurity "baseline:v1.27": host namespaces (hostPID=true)';
        check(r.statusObj?.message === want, show(want), show(r.statusObj?.message));
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  for (const b of BASELINE)
    conformance(
      def(
        `baseline-${b.id}`,
        `baseline refuses a pod that fails the ${b.id} check, naming it as 1.28 does: ${b.says}`,
      ),
      async (t) => {
        const ns = await namespace(t.client, `psa-${b.id}`.slice(0, 20), { [`${L}enforce`]: 'baseline' });
        try {
          const r = await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('p', b.spec, b.metadata));
          checkStatus(r, 403, 'Forbidden');
          const want = `violates PodSecurity "baseline:latest": ${b.says}`;
          check(
            String(r.statusObj?.message).endsWith(want),
            `a message ending ${show(want)}`,
            show(r.statusObj?.message),
          );
        } finally {
          await ns.remove();
        }
      },
      // SecurityContextDeny, when on, refuses seLinuxOptions before PodSecurity sees the pod
      { needs: b.id === 'selinux' ? { ...needs, admissionPluginsOff: ['SecurityContextDeny'] } : needs },
    );

  conformance(
    def(
      'restricted',
      "restricted refuses an unconstrained pod with its four reasons in 1.28's order and admits one that drops capabilities, runs as non-root, sets seccomp and forbids privilege escalation",
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-restricted', { [`${L}enforce`]: 'restricted' });
      try {
        const r = await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('p'));
        checkStatus(r, 403, 'Forbidden');
        const want =
          'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
          'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
          'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
          'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
        check(
          String(r.statusObj?.message).endsWith(want),
          `a message ending ${show(want)}`,
          show(r.statusObj?.message),
        );
        const hostPath = await t.client.post(
          `/api/v1/namespaces/${ns.name}/pods`,
          pod('v', { ...RESTRICTED_OK, volumes: [{ name: 'h', hostPath: { path: '/' } }] }),
        );
        checkStatus(hostPath, 403, 'Forbidden');
        const vol = 'restricted volume types (volume "h" uses restricted volume type "hostPath")';
        check(
          String(hostPath.statusObj?.message).endsWith(vol),
          `a message ending ${show(vol)} (restricted replaces the hostPath check)`,
          show(hostPath.statusObj?.message),
        );
        checkStatus(
          await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('ok', RESTRICTED_OK)),
          201,
          undefined,
          'a restricted pod is admitted',
        );
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'warn',
      'warn admits the pod and adds a Warning `would violate PodSecurity "<level>:<version>": ...`',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-warn', { [`${L}warn`]: 'baseline' });
      try {
        const r = await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('p', { hostNetwork: true }));
        checkStatus(r, 201, undefined, 'warn never refuses');
        const w = warningsOf(r);
        check(
          w.includes('would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'),
          'a Warning naming the violation',
          show(w),
        );
        const clean = await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('q'));
        check(
          !warningsOf(clean).includes('PodSecurity'),
          'no PodSecurity warning for a compliant pod',
          show(warningsOf(clean)),
        );
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'workload-warn-only',
      "A workload that carries a pod template (a Deployment) is never refused, even under enforce=restricted; warn tells its template's violations",
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-workload', {
        [`${L}enforce`]: 'restricted',
        [`${L}warn`]: 'restricted',
      });
      try {
        const d = {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'd' },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'd' } },
            template: {
              metadata: { labels: { app: 'd' } },
              spec: { hostNetwork: true, containers: [{ name: 'c', image: 'i' }] },
            },
          },
        };
        const r = await t.client.post(`/apis/apps/v1/namespaces/${ns.name}/deployments`, d);
        checkStatus(r, 201, undefined, 'templates get warn and audit only');
        const w = warningsOf(r);
        check(
          w.includes('would violate PodSecurity "restricted:latest": host namespaces (hostNetwork=true)'),
          "a Warning naming the template's violations",
          show(w),
        );
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'bad-labels',
      'A namespace whose pod security labels name an unknown level or a malformed version is refused (422) with a cause per label',
    ),
    async (t) => {
      const name = `psa-bad-${Math.random().toString(36).slice(2, 8)}`;
      const r = await t.client.post('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { [`${L}enforce`]: 'strict', [`${L}audit-version`]: '1.28' } },
      });
      try {
        checkStatus(r, 422, 'Invalid');
        const causes = r.statusObj?.details?.causes ?? [];
        for (const [field, msg] of [
          [`metadata.labels[${L}enforce]`, 'must be one of privileged, baseline, restricted'],
          [`metadata.labels[${L}audit-version]`, 'must be "latest" or "v1.x"'],
        ] as const)
          check(
            causes.some((c) => c.field === field && String(c.message).includes(msg)),
            `a cause on ${field} saying ${show(msg)}`,
            show(causes),
          );
      } finally {
        if (r.status < 300) await dropNamespace(t.client, name);
      }
    },
    { needs },
  );

  conformance(
    def(
      'existing-pods-warning',
      "Raising a namespace's enforce level warns about the pods already there that violate it, pods with the same reasons told together",
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-existing');
      try {
        for (const p of ['a', 'b'])
          checkStatus(
            await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod(p, { hostNetwork: true })),
            201,
          );
        checkStatus(
          await t.client.post(
            `/api/v1/namespaces/${ns.name}/pods`,
            pod('c', { containers: [{ name: 'x', image: 'i', securityContext: { privileged: true } }] }),
          ),
          201,
        );
        const wants = [
          `existing pods in namespace "${ns.name}" violate the new PodSecurity enforce level "baseline:latest"`,
          'a (and 1 other pod): host namespaces',
          'c: privileged',
        ];
        const label = (level: string | null) =>
          t.client.patch(
            `/api/v1/namespaces/${ns.name}`,
            { metadata: { labels: { [`${L}enforce`]: level } } },
            'application/merge-patch+json',
          );
        // a server may check the pods it has cached (kube-apiserver 1.28 lists them from an
        // informer), so a pod created a moment ago can be missing: the label is set again,
        // for at most 10 s, until every pod is seen
        const until = Date.now() + 10_000;
        let r = await t.step('label the namespace enforce=baseline', () => label('baseline'));
        while (!wants.every((x) => warningsOf(r).includes(x)) && Date.now() < until && r.status === 200) {
          await label(null);
          await new Promise((res) => setTimeout(res, 250));
          r = await label('baseline');
        }
        checkStatus(r, 200, undefined, 'the label change itself is admitted');
        const w = warningsOf(r);
        for (const want of wants) check(w.includes(want), `a Warning ${show(want)}`, show(w));
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'insignificant-update',
      'Once enforce is raised, an existing violating pod may still have its labels changed; a change to its containers is checked and refused',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'psa-update');
      try {
        checkStatus(
          await t.client.post(`/api/v1/namespaces/${ns.name}/pods`, pod('p', { hostNetwork: true })),
          201,
        );
        checkStatus(
          await t.client.patch(
            `/api/v1/namespaces/${ns.name}`,
            { metadata: { labels: { [`${L}enforce`]: 'baseline' } } },
            'application/merge-patch+json',
          ),
          200,
        );
        const labels = await t.client.patch(
          `/api/v1/namespaces/${ns.name}/pods/p`,
          { metadata: { labels: { tier: 'x' } } },
          'application/merge-patch+json',
        );
        checkStatus(labels, 200, undefined, 'metadata-only updates are not checked');
        const image = await t.client.patch(
          `/api/v1/namespaces/${ns.name}/pods/p`,
          { spec: { containers: [{ name: 'c', image: 'registry.example/app:2' }] } },
          'application/strategic-merge-patch+json',
        );
        checkStatus(image, 403, 'Forbidden', 'a spec change is checked against enforce');
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );
});
