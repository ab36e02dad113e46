// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.orch.io
// v1beta1 and v1alpha1; doc3's plugin table row ValidatingAdmissionPolicy, doc2's expression
// language; Kubernetes 1.28 where they are silent): off unless --runtime-config switches the
// group versions on, the policy plugin idle unless the ValidatingAdmissionPolicy gate is on;
// 1.28's defaults and validation; Deny, Warn and Audit; parameters; failure policy; variables;
// message expressions and reasons; audit annotations; the runtime cost budget.
// Expected values come from Kubernetes 1.28's behaviour, never from the server's output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMap, startServer, type TestServer, uniqueName } from './helpers.ts';

const GROUP = 'admissionregistration.orch.io';
const POLICIES = `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings`;
const ON = {
  runtimeConfig: `${GROUP}/v1beta1=true,${GROUP}/v1alpha1=true`,
  featureGates: { ValidatingAdmissionPolicy: true },
  auditInMemory: 200,
};

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer(ON);
});
afterAll(async () => {
  await ts?.close();
});

type Rec = Record<string, unknown>;

function policy(name: string, spec: Rec = {}): Rec {
  return {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      },
      validations: [{ expression: "!has(object.data) || !('forbidden' in object.data)" }],
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: Rec = {}): Rec {
  return {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

async function ns(labels: Record<string, string> = {}): Promise<string> {
  const name = uniqueName('vap');
  const r = await ts.req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  expect(r.status).toBe(201);
  return name;
}

/** A policy and binding, both created, scoped to one namespace by a label. */
async function install(p: Rec, b: Rec): Promise<void> {
  const rp = await ts.req('POST', POLICIES, p);
  expect(rp.status, rp.text).toBe(201);
  const rb = await ts.req('POST', BINDINGS, b);
  expect(rb.status, rb.text).toBe(201);
}

const only = (n: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': n } } });

describe('served only when switched on (Kubernetes 1.28: beta, off by default)', () => {
  it('a default server serves neither version, nor lists them in discovery', async () => {
    const plain = await startServer();
    try {
      expect((await plain.req('GET', POLICIES)).status).toBe(404);
      expect((await plain.req('GET', `/apis/${GROUP}/v1alpha1/validatingadmissionpolicybindings`)).status).toBe(404);
      const g = await plain.req('GET', `/apis/${GROUP}`);
      expect(g.json.versions.map((v: Rec) => v.version)).toEqual(['v1']);
    } finally {
      await plain.close();
    }
  });

  it('--runtime-config serves both versions; v1 stays preferred', async () => {
    const g = await ts.req('GET', `/apis/${GROUP}`);
    expect(g.json.versions.map((v: Rec) => v.version)).toEqual(['v1', 'v1beta1', 'v1alpha1']);
    expect(g.json.preferredVersion.version).toBe('v1');
    const rl = await ts.req('GET', `/apis/${GROUP}/v1beta1`);
    const names = rl.json.resources.map((r: Rec) => r.name).sort();
    expect(names).toEqual(['validatingadmissionpolicies', 'validatingadmissionpolicies/status', 'validatingadmissionpolicybindings']);
  });

  it('without the gate, stored policies are not enforced', async () => {
    const off = await startServer({ runtimeConfig: ON.runtimeConfig });
    try {
      const n = uniqueName('p');
      expect((await off.req('POST', POLICIES, policy(n))).status).toBe(201);
      expect((await off.req('POST', BINDINGS, binding(n, n))).status).toBe(201);
      const r = await off.req('POST', '/api/v1/namespaces/default/configmaps', configMap(uniqueName('cm'), { forbidden: 'x' }));
      expect(r.status).toBe(201);
    } finally {
      await off.close();
    }
  });
});
