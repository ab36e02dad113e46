// PodSecurity (doc3 plugin table; the levels, checks and messages of Kubernetes 1.28's pod
// security admission): enforce, warn and audit by namespace labels, workload templates warned
// and audited only, label validation, the warning about existing pods when enforce tightens,
// and the configuration's defaults and exemptions.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describe as describeViolations, evaluate } from '../src/admission/plugins/pod-security/checks.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const L = 'pod-security.orch.io/';
const warnings = (h: string | string[] | undefined) =>
  (Array.isArray(h) ? h : h ? h.split(/,(?=\s*299 )/) : []).map((w) => w.trim());

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'c', image: 'img' }], ...spec },
});
const RESTRICTED_OK = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [
    {
      name: 'c',
      image: 'img',
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
};

describe('the checks', () => {
  it('an unconstrained pod passes baseline and fails restricted with four reasons in 1.28 order', () => {
    expect(evaluate('baseline', {}, { containers: [{ name: 'c' }] })).toEqual([]);
    const vs = evaluate('restricted', {}, { containers: [{ name: 'c' }] });
    expect(describeViolations(vs)).toBe(
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });
  it('baseline: host namespaces, hostPath, hostPort, privileged, capabilities, sysctls, procMount, seccomp, AppArmor', () => {
    const spec = {
      hostNetwork: true,
      hostPID: true,
      volumes: [{ name: 'h', hostPath: { path: '/' } }],
      securityContext: {
        sysctls: [{ name: 'kernel.msgmax', value: '1' }],
        seccompProfile: { type: 'Unconfined' },
      },
      containers: [
        {
          name: 'a',
          ports: [{ containerPort: 80, hostPort: 80 }],
          securityContext: {
            privileged: true,
            capabilities: { add: ['NET_ADMIN', 'CHOWN'] },
            procMount: 'Unmasked',
          },
        },
        { name: 'b', ports: [{ containerPort: 81, hostPort: 81 }] },
      ],
    };
    const r = evaluate(
      'baseline',
      { annotations: { 'container.apparmor.security.beta.orch.io/a': 'unconfined' } },
      spec,
    );
    expect(r.map((v) => v.reason)).toEqual([
      'forbidden AppArmor profile',
      'non-default capabilities',
      'host namespaces',
      'hostPath volumes',
      'hostPort',
      'privileged',
      'procMount',
      'seccompProfile',
      'forbidden sysctls',
    ]);
    expect(r.find((v) => v.reason === 'hostPort')!.detail).toBe('containers "a", "b" use hostPorts 80, 81');
    expect(r.find((v) => v.reason === 'host namespaces')!.detail).toBe('hostNetwork=true, hostPID=true');
    expect(r.find((v) => v.reason === 'non-default capabilities')!.detail).toBe(
      'container "a" must not include "NET_ADMIN" in securityContext.capabilities.add',
    );
  });
  it('restricted replaces hostPath volumes by restricted volume types and allows the restricted shape', () => {
    const r = evaluate(
      'restricted',
      {},
      {
        ...RESTRICTED_OK,
        volumes: [
          { name: 'h', hostPath: { path: '/' } },
          { name: 'e', emptyDir: {} },
        ],
      },
    );
    expect(r).toEqual([
      { reason: 'restricted volume types', detail: 'volume "h" uses restricted volume type "hostPath"' },
    ]);
    expect(evaluate('restricted', {}, RESTRICTED_OK)).toEqual([]);
    expect(
      evaluate(
        'restricted',
        {},
        { ...RESTRICTED_OK, securityContext: { ...RESTRICTED_OK.securityContext, runAsUser: 0 } },
      ),
    ).toEqual([{ reason: 'runAsUser=0', detail: 'pod must not set runAsUser=0' }]);
  });
});

describe('the plugin on a server', () => {
  let ts: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'orch-psa-'));
  beforeAll(async () => {
    writeFileSync(
      join(dir, 'admission.yaml'),
      [
        'apiVersion: apiserver.config.orch.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        '    apiVersion: pod-security.admission.config.orch.io/v1',
        '    kind: PodSecurityConfiguration',
        '    defaults: { enforce: privileged, warn: baseline }',
        '    exemptions: { usernames: [exempt-user], runtimeClasses: [exempt-rc], namespaces: [exempt-ns] }',
      ].join('\n'),
    );
    ts = await startServer({ auditInMemory: 500, admissionControlConfigFile: join(dir, 'admission.yaml') });
  });
  afterAll(async () => {
    await ts?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The audit event of the last pod created in a namespace (a POST names no object). */
  const lastPodCreate = (n: string) =>
    ts.server
      .audit!.events.filter(
        (e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.objectRef?.namespace === n,
      )
      .at(-1);
  const ns = async (labels: Record<string, string>, name = uniqueName('psa')) => {
    const r = await ts.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels },
    });
    expect(r.status, r.text).toBe(201);
    return name;
  };

  it("enforce rejects a violating pod with 1.28's message and records the policy in the audit event", async () => {
    const n = await ns({ [`${L}enforce`]: 'baseline' });
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod('p', { hostNetwork: true }));
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe('Forbidden');
    expect(r.json.message).toBe(
      'pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    );
    const ok = await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod('q'));
    expect(ok.status).toBe(201);
    const ev = lastPodCreate(n);
    expect(ev?.annotations?.[`${L}enforce-policy`]).toBe('baseline:latest');
  });

  it('warn adds a Warning header and audit an annotation; the pod is created', async () => {
    const n = await ns({
      [`${L}warn`]: 'restricted',
      [`${L}audit`]: 'baseline',
      [`${L}audit-version`]: 'v1.27',
    });
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod('w', { hostPID: true }));
    expect(r.status).toBe(201);
    const w = warnings(r.headers.warning);
    expect(
      w.some((x) =>
        x.includes(
          'would violate PodSecurity \\"restricted:latest\\": host namespaces (hostPID=true), allowPrivilegeEscalation != false',
        ),
      ),
    ).toBe(true);
    const ev = lastPodCreate(n);
    expect(ev?.annotations?.[`${L}audit-violations`]).toBe(
      'would violate PodSecurity "baseline:v1.27": host namespaces (hostPID=true)',
    );
  });

  it('the configured default warn level applies to unlabelled namespaces', async () => {
    const n = await ns({});
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod('d', { hostIPC: true }));
    expect(r.status).toBe(201);
    expect(String(r.headers.warning)).toContain(
      'would violate PodSecurity \\"baseline:latest\\": host namespaces (hostIPC=true)',
    );
  });

  it('a workload template is warned about, never rejected', async () => {
    const n = await ns({ [`${L}enforce`]: 'restricted', [`${L}warn`]: 'restricted' });
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    const r = await ts.req('POST', `/apis/apps/v1/namespaces/${n}/deployments`, d);
    expect(r.status, r.text).toBe(201);
    expect(String(r.headers.warning)).toContain('would violate PodSecurity \\"restricted:latest\\"');
  });

  it('bad labels are refused with 422; a bad level counts as restricted', async () => {
    const r = await ts.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: uniqueName('psa'),
        labels: { [`${L}enforce`]: 'strict', [`${L}warn-version`]: '1.28' },
      },
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes.map((c: any) => c.field)).toEqual([
      `metadata.labels[${L}enforce]`,
      `metadata.labels[${L}warn-version]`,
    ]);
    expect(r.json.message).toContain(
      'Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
  });

  it('tightening enforce warns about the existing pods, grouped by reasons', async () => {
    const n = await ns({});
    for (const p of ['a', 'b'])
      expect(
        (await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod(p, { hostNetwork: true }))).status,
      ).toBe(201);
    expect(
      (
        await ts.req(
          'POST',
          `/api/v1/namespaces/${n}/pods`,
          pod('c', { containers: [{ name: 'x', image: 'i', securityContext: { privileged: true } }] }),
        )
      ).status,
    ).toBe(201);
    const r = await ts.req(
      'PATCH',
      `/api/v1/namespaces/${n}`,
      { metadata: { labels: { [`${L}enforce`]: 'baseline' } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(r.status).toBe(200);
    const w = String(r.headers.warning);
    expect(w).toContain(
      `existing pods in namespace \\"${n}\\" violate the new PodSecurity enforce level \\"baseline:latest\\"`,
    );
    expect(w).toContain('a (and 1 other pod): host namespaces');
    expect(w).toContain('c: privileged');
  });

  it('exempt users, runtime classes and namespaces are not checked', async () => {
    const n = await ns({ [`${L}enforce`]: 'baseline' });
    const byUser = await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod('u', { hostNetwork: true }), {
      'impersonate-user': 'exempt-user',
      'impersonate-group': 'system:masters',
    });
    expect(byUser.status, byUser.text).toBe(201);
    // the RuntimeClass plugin refuses pods naming a class that does not exist
    const rc = await ts.req('POST', '/apis/node.orch.io/v1/runtimeclasses', {
      apiVersion: 'node.orch.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'exempt-rc' },
      handler: 'exempt',
    });
    expect(rc.status, rc.text).toBe(201);
    const byRc = await ts.req(
      'POST',
      `/api/v1/namespaces/${n}/pods`,
      pod('r', { hostNetwork: true, runtimeClassName: 'exempt-rc' }),
    );
    expect(byRc.status, byRc.text).toBe(201);
    const exNs = await ns({ [`${L}enforce`]: 'restricted' }, 'exempt-ns');
    expect(
      (await ts.req('POST', `/api/v1/namespaces/${exNs}/pods`, pod('n', { hostNetwork: true }))).status,
    ).toBe(201);
    const ev = lastPodCreate(n);
    expect(ev?.annotations?.[`${L}exempt`]).toBe('runtimeClass');
  });

  it('an update that changes only labels is not checked; one that changes the spec is', async () => {
    const n = await ns({});
    expect(
      (await ts.req('POST', `/api/v1/namespaces/${n}/pods`, pod('p', { hostNetwork: true }))).status,
    ).toBe(201);
    await ts.req(
      'PATCH',
      `/api/v1/namespaces/${n}`,
      { metadata: { labels: { [`${L}enforce`]: 'baseline' } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    const labels = await ts.req(
      'PATCH',
      `/api/v1/namespaces/${n}/pods/p`,
      { metadata: { labels: { x: 'y' } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(labels.status, labels.text).toBe(200);
    const img = await ts.req(
      'PATCH',
      `/api/v1/namespaces/${n}/pods/p`,
      { spec: { containers: [{ name: 'c', image: 'img2' }] } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(img.status, img.text).toBe(403);
  });
});
