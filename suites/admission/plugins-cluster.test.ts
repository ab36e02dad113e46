// doc3's plugin table (under § Webhook configuration objects), the plugins about namespaces,
// nodes, services and service accounts, and the all-or-nothing ones: AlwaysAdmit, AlwaysDeny,
// NamespaceAutoProvision, NamespaceExists, NamespaceLifecycle (its missing-namespace refusal;
// the system namespaces are suites/deletion/protected.test.ts), TaintNodesByCondition,
// DenyServiceExternalIPs and ServiceAccount. The off-by-default ones need a target declared
// with them on (`needs.admissionPlugins`); what the table leaves out follows Kubernetes 1.28 at
// level BEYOND.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import { configMap, dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import { checkRefused, createPod, inNamespace, pluginCase, pod, podsPath } from './plugin-support.ts';

const T = 60_000;
const on = (plugins: string[], off: string[] = []) => ({
  timeout: T,
  needs: { admissionPlugins: plugins, ...(off.length ? { admissionPluginsOff: off } : {}) },
});

const ALWAYS = 'AlwaysAdmit, AlwaysDeny | V | Admit all or reject all; both deprecated';
const NAP = 'NamespaceAutoProvision | M | Creates a missing namespace';
const NEX = 'NamespaceExists | V | Rejects requests naming a missing namespace';
const NLC =
  'NamespaceLifecycle | V | Blocks creation in terminating namespaces; protects three system namespaces from deletion';
const TNC = 'TaintNodesByCondition | M | Adds a not-ready no-schedule taint to new nodes';
const DSE = 'DenyServiceExternalIPs | V | Rejects new use of `externalIPs` on Services; off by default';
const SA = 'ServiceAccount | M+V | Automates service accounts';

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const servicesPath = (ns: string) => `/api/v1/namespaces/${ns}/services`;

describe('admission: built-in plugins of namespaces, nodes, services and accounts', () => {
  conformance(
    pluginCase('always-admit/admits', 'With AlwaysAdmit on, a valid write is admitted', ALWAYS, 'MUST'),
    async (t) => {
      const name = uniqueName('admit');
      const r = await t.step('create a config map', () => t.client.post(cms('default'), configMap(name)));
      checkStatus(r, 201, undefined, 'AlwaysAdmit admits all');
      await t.client.delete(`${cms('default')}/${name}`);
    },
    on(['AlwaysAdmit']),
  );

  const deny = (strict: boolean) => async (t: CaseContext) => {
    const name = uniqueName('deny');
    const r = await t.step('create a config map', () => t.client.post(cms('default'), configMap(name)));
    await checkRefused(
      t.client,
      r,
      `${cms('default')}/${name}`,
      'AlwaysDeny rejects all',
      strict
        ? {
            code: 403,
            reason: 'Forbidden',
            message: `configmaps "${name}" is forbidden: admission control is denying all modifications`,
          }
        : undefined,
    );
    const list = await t.client.get(cms('default'));
    checkStatus(list, 200, undefined, 'reads are not admitted, so they still answer');
  };
  conformance(
    pluginCase(
      'always-deny/refuses-writes',
      'With AlwaysDeny on, every write is refused and nothing is written; reads answer',
      ALWAYS,
      'MUST',
    ),
    deny(false),
    on(['AlwaysDeny']),
  );
  conformance(
    pluginCase(
      'always-deny/refuses-writes/kubernetes-shape',
      'AlwaysDeny\'s refusal is 403 Forbidden, "admission control is denying all modifications"',
      `${ALWAYS} (Kubernetes 1.28: 403 Forbidden)`,
      'BEYOND',
    ),
    deny(true),
    on(['AlwaysDeny']),
  );

  conformance(
    pluginCase(
      'namespace-auto-provision/creates',
      'With NamespaceAutoProvision on, creating an object in a namespace that does not exist creates the namespace, and the object in it',
      NAP,
      'MUST',
    ),
    async (t) => {
      const ns = uniqueName('autoprov');
      try {
        const r = await t.step(`create a config map in the missing namespace ${ns}`, () =>
          t.client.post(cms(ns), configMap('c')),
        );
        checkStatus(r, 201, undefined, 'the namespace is provisioned, so the creation succeeds');
        const n = await t.client.get(`/api/v1/namespaces/${ns}`);
        checkStatus(n, 200, undefined, 'the namespace now exists');
        const g = await t.client.get(`${cms(ns)}/c`);
        checkStatus(g, 200, undefined, 'the object is stored in it');
      } finally {
        await dropNamespace(t.client, ns);
      }
    },
    on(['NamespaceAutoProvision']),
  );

  const missing = (strict: boolean) => async (t: CaseContext) => {
    const ns = uniqueName('missing');
    const r = await t.step(`create a config map in the missing namespace ${ns}`, () =>
      t.client.post(cms(ns), configMap('c')),
    );
    if (strict) {
      checkStatus(r, 404, 'NotFound', 'Kubernetes answers NotFound for the namespace');
      check(
        r.statusObj?.message === `namespaces "${ns}" not found`,
        `the message namespaces "${ns}" not found`,
        show(r.statusObj?.message),
      );
      check(
        r.statusObj?.details?.kind === 'namespaces',
        'details.kind namespaces',
        show(r.statusObj?.details),
      );
    } else
      check(
        r.status >= 400 && r.status < 500,
        'a 4xx refusal',
        r.describe(),
        'a missing namespace is rejected',
      );
    const n = await t.client.get(`/api/v1/namespaces/${ns}`);
    checkStatus(n, 404, undefined, 'the namespace is not created');
  };
  conformance(
    pluginCase(
      'namespace-exists/refuses',
      'With NamespaceExists on (and NamespaceAutoProvision off), a creation in a namespace that does not exist is refused',
      NEX,
      'MUST',
    ),
    missing(false),
    on(['NamespaceExists'], ['NamespaceAutoProvision']),
  );
  conformance(
    pluginCase(
      'namespace-exists/refuses/kubernetes-shape',
      'The refusal of a write in a missing namespace is 404 NotFound for the namespace',
      `${NEX} (Kubernetes 1.28: 404 NotFound, details.kind namespaces)`,
      'BEYOND',
    ),
    missing(true),
    on(['NamespaceExists'], ['NamespaceAutoProvision']),
  );
  conformance(
    pluginCase(
      'namespace-lifecycle/missing-namespace',
      'With NamespaceLifecycle on (the default), a creation in a namespace that does not exist is refused with 404 NotFound for the namespace',
      `${NLC} (Kubernetes 1.28: it also refuses creations in a missing namespace, 404)`,
      'BEYOND',
    ),
    missing(true),
    on(['NamespaceLifecycle'], ['NamespaceAutoProvision']),
  );

  conformance(
    pluginCase(
      'taint-nodes-by-condition/new-node',
      'A node created without it gets the not-ready NoSchedule taint, beside its own',
      TNC,
      'MUST',
    ),
    async (t) => {
      const name = uniqueName('node');
      try {
        const r = await t.step(`create node ${name} with a taint of its own`, () =>
          t.client.post('/api/v1/nodes', {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name },
            spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] },
          }),
        );
        checkStatus(r, 201, undefined, 'setup');
        const taints: { key?: string; effect?: string; value?: string }[] = r.json.spec?.taints ?? [];
        check(
          taints.some((x) => x.key === 'node.orch.io/not-ready' && x.effect === 'NoSchedule'),
          'a node.orch.io/not-ready NoSchedule taint',
          show(taints),
        );
        check(
          taints.some((x) => x.key === 'dedicated' && x.value === 'db'),
          'its own taint kept',
          show(taints),
        );
      } finally {
        await t.client.delete(`/api/v1/nodes/${name}`);
      }
    },
    { timeout: T },
  );

  const svc = (name: string, externalIPs?: string[]) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) },
  });
  const dse = (strict: boolean) => (t: CaseContext) =>
    inNamespace(t, 'dse', async (ns) => {
      const name = uniqueName('ext');
      const r = await t.step('create a service with an external IP', () =>
        t.client.post(servicesPath(ns), svc(name, ['192.0.2.10'])),
      );
      await checkRefused(
        t.client,
        r,
        `${servicesPath(ns)}/${name}`,
        'new use of externalIPs is rejected',
        strict
          ? {
              code: 403,
              reason: 'Forbidden',
              message: `services "${name}" is forbidden: Use of external IPs is denied by admission control`,
            }
          : undefined,
      );
      const plain = await t.step('create one without', () => t.client.post(servicesPath(ns), svc('plain')));
      checkStatus(plain, 201, undefined, 'a service without external IPs is accepted');
      const next = structuredClone(plain.json);
      next.spec.externalIPs = ['192.0.2.11'];
      const u = await t.step('add an external IP to it', () =>
        t.client.put(`${servicesPath(ns)}/plain`, next),
      );
      check(
        u.status >= 400 && u.status < 500,
        'a 4xx refusal of the update',
        u.describe(),
        'adding externalIPs is new use',
      );
      const g = await t.client.get(`${servicesPath(ns)}/plain`);
      check(
        !(g.json?.spec?.externalIPs ?? []).length,
        'the stored service has no external IPs',
        show(g.json?.spec?.externalIPs),
      );
    });
  conformance(
    pluginCase(
      'deny-service-external-ips/new-use',
      'With DenyServiceExternalIPs on, a service created with an external IP, or updated to add one, is refused',
      DSE,
      'MUST',
    ),
    dse(false),
    on(['DenyServiceExternalIPs']),
  );
  conformance(
    pluginCase(
      'deny-service-external-ips/new-use/kubernetes-shape',
      'The refusal of external IPs is 403 Forbidden, "Use of external IPs is denied by admission control"',
      `${DSE} (Kubernetes 1.28: 403 Forbidden)`,
      'BEYOND',
    ),
    dse(true),
    on(['DenyServiceExternalIPs']),
  );

  conformance(
    pluginCase(
      'service-account/default-and-token',
      'A pod created without a service account runs as `default` (which every namespace has) and every container mounts the projected token volume read-only at /var/run/secrets/orch.io/serviceaccount',
      `${SA} (Kubernetes 1.28: the default account, a projected token, root CA and namespace volume mounted in each container)`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'sa', async (ns) => {
        const r = await createPod(
          t,
          ns,
          pod('p', {
            containers: [
              { name: 'a', image: 'registry.example/app:1.0' },
              { name: 'b', image: 'registry.example/app:1.0' },
            ],
          }),
          'no service account',
        );
        checkStatus(r, 201, undefined, "the namespace's default account exists");
        const spec = r.json.spec;
        check(
          spec.serviceAccountName === 'default',
          'serviceAccountName default',
          show(spec.serviceAccountName),
        );
        const vol = (spec.volumes ?? []).find((v: { name: string }) =>
          v.name?.startsWith('orch-api-access-'),
        );
        check(!!vol, 'a volume orch-api-access-<suffix>', show(spec.volumes));
        const sources = vol.projected?.sources ?? [];
        check(
          sources.some((s: any) => s.serviceAccountToken?.path === 'token') &&
            sources.some((s: any) => s.configMap?.items?.some((i: any) => i.path === 'ca.crt')) &&
            sources.some((s: any) => s.downwardAPI?.items?.some((i: any) => i.path === 'namespace')),
          'projected sources: a token, ca.crt from a config map, the namespace',
          show(sources),
        );
        for (const c of spec.containers)
          check(
            (c.volumeMounts ?? []).some(
              (m: any) =>
                m.name === vol.name &&
                m.readOnly === true &&
                m.mountPath === '/var/run/secrets/orch.io/serviceaccount',
            ),
            `container ${c.name} mounts it read-only at /var/run/secrets/orch.io/serviceaccount`,
            show(c.volumeMounts),
          );
      }),
    { timeout: T },
  );

  conformance(
    pluginCase(
      'service-account/missing-account-refused',
      'A pod naming a service account that does not exist is refused with 403 and not stored',
      `${SA} (Kubernetes 1.28: 403 Forbidden, "error looking up service account")`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'sa', async (ns) => {
        const r = await createPod(
          t,
          ns,
          pod('orphan', { serviceAccountName: 'nobody' }),
          'serviceAccountName nobody',
        );
        await checkRefused(t.client, r, `${podsPath(ns)}/orphan`, 'the account must exist', {
          code: 403,
          reason: 'Forbidden',
          message: `pods "orphan" is forbidden: error looking up service account ${ns}/nobody: serviceaccount "nobody" not found`,
        });
      }),
    { timeout: T },
  );

  conformance(
    pluginCase(
      'service-account/automount-off',
      'A pod, or its service account, with automountServiceAccountToken false gets no token volume',
      `${SA} (Kubernetes 1.28: the pod's setting wins, else the account's)`,
      'BEYOND',
    ),
    (t) =>
      inNamespace(t, 'sa', async (ns) => {
        const sa = await t.client.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'quiet' },
          automountServiceAccountToken: false,
        });
        checkStatus(sa, 201, undefined, 'setup');
        for (const [name, spec] of [
          ['pod-off', { automountServiceAccountToken: false }],
          ['sa-off', { serviceAccountName: 'quiet' }],
        ] as const) {
          const r = await createPod(t, ns, pod(name, spec), show(spec));
          checkStatus(r, 201, undefined, 'setup');
          const vols = (r.json.spec.volumes ?? []).filter((v: { name: string }) =>
            v.name?.startsWith('orch-api-access-'),
          );
          check(vols.length === 0, 'no token volume', show(r.json.spec.volumes));
        }
      }),
    { timeout: T },
  );
});
