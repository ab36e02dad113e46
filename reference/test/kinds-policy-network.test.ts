// policy/v1 PodDisruptionBudget and networking.orch.io/v1 NetworkPolicy: discovery and table
// columns as a Kubernetes 1.28 server lists them, their defaults and validation, and evictions
// that honour a pod's budget with policy/v1's selector rule (doc2, retired versions:
// "in policy/v1 an empty spec.selector selects all pods in the namespace; an unset selector
// selects none").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, readFact } from './k8s-facts.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];

async function namespace(): Promise<string> {
  const ns = uniqueName('pn');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  return ns;
}

function checkDiscovery(gv: string, names: string[]) {
  it(`${gv}: ${names.join(', ')} as 1.28 lists them`, async () => {
    const facts = (readFact('discovery.json') as any).resources[gv] as any[];
    const r = await ts.req('GET', `/apis/${gv.replace('.k8s.io', '.orch.io')}`);
    expect(r.status).toBe(200);
    for (const name of names) {
      const want = facts.find((x) => x.name === name);
      const got = r.json.resources.find((x: any) => x.name === name);
      expect(got, name).toBeDefined();
      expectResourceAsFact(got, want);
    }
  });
}

describe('discovery', () => {
  checkDiscovery('policy/v1', ['poddisruptionbudgets', 'poddisruptionbudgets/status']);
  checkDiscovery('networking.k8s.io/v1', ['networkpolicies']);
  it('networkpolicies has no status subresource in 1.28', async () => {
    const r = await ts.req('GET', '/apis/networking.orch.io/v1');
    expect(r.json.resources.map((x: any) => x.name)).not.toContain('networkpolicies/status');
  });
});

// ====================================================================== PodDisruptionBudget

describe('PodDisruptionBudget: defaults, table, validation', () => {
  let ns: string;
  const pdbs = (name = '') =>
    `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets${name ? `/${name}` : ''}`;
  beforeAll(async () => {
    ns = await namespace();
  });

  it('a new budget has the four status counts at 0; the row prints N/A for the unset bound', async () => {
    const r = await ts.req('POST', pdbs(), {
      metadata: { name: 'p1' },
      spec: { minAvailable: '50%', selector: { matchLabels: { app: 'a' } } },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toEqual({
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
    expect(r.json.metadata.generation).toBe(1);
    const t = await ts.req('GET', pdbs('p1'), undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((d: any) => d.name)).toEqual(
      columnsOf('policy', 'v1', 'poddisruptionbudgets').map((d) => d.name),
    );
    expect(t.json.rows[0].cells.slice(1, 4)).toEqual(['50%', 'N/A', 0]);
  });

  it('an empty selector is stored and served as given (it selects every pod)', async () => {
    const r = await ts.req('POST', pdbs(), {
      metadata: { name: 'p2' },
      spec: { maxUnavailable: 1, selector: {} },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec).toEqual({ maxUnavailable: 1, selector: {} });
    expect((await ts.req('GET', pdbs('p2'))).json.spec.selector).toEqual({});
  });

  it('minAvailable and maxUnavailable together, bad percents, negatives, unknown eviction policy', async () => {
    const both = await ts.req('POST', pdbs(), {
      metadata: { name: 'b1' },
      spec: { minAvailable: 1, maxUnavailable: 1 },
    });
    expect(both.status).toBe(422);
    expect(
      causesOf(both).some(
        (c) => c.field === 'spec' && c.message.endsWith('minAvailable and maxUnavailable cannot be both set'),
      ),
    ).toBe(true);
    const r = await ts.req('POST', pdbs(), {
      metadata: { name: 'b2' },
      spec: { minAvailable: 'half', unhealthyPodEvictionPolicy: 'Sometimes' },
    });
    expect(r.status).toBe(422);
    expect(causesOf(r)).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.minAvailable',
          message:
            "Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"half\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        },
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.unhealthyPodEvictionPolicy',
          message: 'Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"',
        },
      ]),
    );
    const over = await ts.req('POST', pdbs(), { metadata: { name: 'b3' }, spec: { maxUnavailable: '101%' } });
    expect(causesOf(over)).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.maxUnavailable',
      message:
        'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"101%"}: must not be greater than 100%',
    });
    const neg = await ts.req('POST', pdbs(), { metadata: { name: 'b4' }, spec: { minAvailable: -1 } });
    expect(causesOf(neg)).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.minAvailable',
      message: 'Invalid value: -1: must be greater than or equal to 0',
    });
  });

  it('status counts may not be negative; a spec change bumps the generation', async () => {
    const g = await ts.req('GET', pdbs('p1'));
    const s = await ts.req('PUT', `${pdbs('p1')}/status`, { ...g.json, status: { disruptionsAllowed: -1 } });
    expect(s.status).toBe(422);
    expect(causesOf(s)).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'status.disruptionsAllowed',
      message: 'Invalid value: -1: must be greater than or equal to 0',
    });
    const u = await ts.req('PUT', pdbs('p1'), { ...g.json, spec: { ...g.json.spec, minAvailable: 2 } });
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
  });
});

describe('evictions honour the PodDisruptionBudget (policy/v1 selector rule)', () => {
  const pod = (ns: string, name: string) => ({
    metadata: { name, namespace: ns, labels: { app: 'web' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  const evict = (ns: string, name: string, dryRun = false) =>
    ts.req('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name },
      ...(dryRun ? { deleteOptions: { dryRun: ['All'] } } : {}),
    });

  /** A pod that runs and is ready (only those are guarded by a budget). */
  async function runningPod(ns: string, name: string, ready = true): Promise<void> {
    const c = await ts.req('POST', `/api/v1/namespaces/${ns}/pods`, pod(ns, name));
    expect(c.status, c.text).toBe(201);
    const st = await ts.req('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
      ...c.json,
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
    });
    expect(st.status, st.text).toBe(200);
  }

  /** A budget whose status says it was observed, with `allowed` disruptions. */
  async function budget(
    ns: string,
    name: string,
    spec: Record<string, unknown>,
    allowed: number,
    observed = true,
  ) {
    const c = await ts.req('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
      metadata: { name },
      spec,
    });
    expect(c.status, c.text).toBe(201);
    const st = await ts.req('PUT', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}/status`, {
      ...c.json,
      status: {
        observedGeneration: observed ? 1 : 0,
        disruptionsAllowed: allowed,
        currentHealthy: 3,
        desiredHealthy: 3,
        expectedPods: 3,
      },
    });
    expect(st.status, st.text).toBe(200);
  }
  const podExists = async (ns: string, name: string) =>
    (await ts.req('GET', `/api/v1/namespaces/${ns}/pods/${name}`)).status === 200;

  it('an empty selector covers the pod: no disruption allowed answers 429 with the DisruptionBudget cause', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p');
    await budget(ns, 'all', { minAvailable: 3, selector: {} }, 0);
    const r = await evict(ns, 'p');
    expect(r.status, r.text).toBe(429);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'TooManyRequests',
      code: 429,
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget all needs 3 healthy pods and has 3 currently',
          },
        ],
      },
    });
    expect(await podExists(ns, 'p')).toBe(true);
  });

  it('an unset selector covers no pod: the eviction goes through', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p');
    await budget(ns, 'none', { minAvailable: 3 }, 0);
    expect((await evict(ns, 'p')).status).toBe(201);
    expect(await podExists(ns, 'p')).toBe(false);
  });

  it('an allowed disruption is spent: count down, the pod recorded, DisruptionAllowed False at 0', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p');
    await budget(ns, 'one', { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } }, 1);
    const r = await evict(ns, 'p');
    expect(r.status, r.text).toBe(201);
    expect(await podExists(ns, 'p')).toBe(false);
    const b = await ts.req('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/one`);
    expect(b.json.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(b.json.status.disruptedPods)).toEqual(['p']);
    expect(b.json.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }),
    );
  });

  it('a dry run spends nothing and deletes nothing', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p');
    await budget(ns, 'one', { maxUnavailable: 1, selector: {} }, 1);
    expect((await evict(ns, 'p', true)).status).toBe(201);
    expect(await podExists(ns, 'p')).toBe(true);
    const b = await ts.req('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/one`);
    expect(b.json.status.disruptionsAllowed).toBe(1);
  });

  it('a budget not yet observed answers 429 with Retry-After 10', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p');
    await budget(ns, 'new', { minAvailable: 1, selector: {} }, 1, false);
    const r = await evict(ns, 'p');
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('10');
    expect(r.json.details).toMatchObject({
      retryAfterSeconds: 10,
      causes: [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget new is still being processed by the server.',
        },
      ],
    });
  });

  it('two budgets covering the pod fail the eviction (500); a pending pod goes regardless', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p');
    await budget(ns, 'a', { minAvailable: 1, selector: {} }, 1);
    await budget(ns, 'b', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }, 1);
    const r = await evict(ns, 'p');
    expect(r.status).toBe(500);
    expect(r.json.message).toBe(
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
    const pending = await ts.req('POST', `/api/v1/namespaces/${ns}/pods`, pod(ns, 'pending'));
    expect(pending.status).toBe(201);
    expect((await evict(ns, 'pending')).status).toBe(201);
  });

  it('an unready pod goes when the budget says AlwaysAllow, and spends nothing', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p', false);
    await budget(ns, 'aa', { minAvailable: 5, selector: {}, unhealthyPodEvictionPolicy: 'AlwaysAllow' }, 0);
    expect((await evict(ns, 'p')).status).toBe(201);
  });
});

// ====================================================================== NetworkPolicy

describe('NetworkPolicy: defaults, table, validation', () => {
  let ns: string;
  const netpols = (name = '') =>
    `/apis/networking.orch.io/v1/namespaces/${ns}/networkpolicies${name ? `/${name}` : ''}`;
  beforeAll(async () => {
    ns = await namespace();
  });

  it('policyTypes default to Ingress, with Egress when egress rules are given; ports default to TCP; podSelector to {}', async () => {
    const a = await ts.req('POST', netpols(), {
      metadata: { name: 'a' },
      spec: { ingress: [{ ports: [{ port: 80 }] }] },
    });
    expect(a.status, a.text).toBe(201);
    expect(a.json.spec).toEqual({
      podSelector: {},
      ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }],
      policyTypes: ['Ingress'],
    });
    const b = await ts.req('POST', netpols(), {
      metadata: { name: 'b' },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
      },
    });
    expect(b.status, b.text).toBe(201);
    expect(b.json.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    const t = await ts.req('GET', netpols(), undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((d: any) => d.name)).toEqual(
      columnsOf('networking.orch.io', 'v1', 'networkpolicies').map((d) => d.name),
    );
    expect(t.json.rows.map((r: any) => r.cells.slice(0, 2))).toEqual([
      ['a', '<none>'],
      ['b', 'app=db'],
    ]);
  });

  it('ports, peers, ipBlock CIDRs and exceptions, policy types (422 with 1.28 causes)', async () => {
    const r = await ts.req('POST', netpols(), {
      metadata: { name: 'bad' },
      spec: {
        ingress: [
          {
            ports: [
              { protocol: 'ICMP', port: 0 },
              { port: 'http', endPort: 90 },
              { port: 100, endPort: 90 },
            ],
            from: [
              {},
              { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} },
              { ipBlock: { cidr: '10.0.0.300/8' } },
              { ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/8', '192.168.0.0/24'] } },
            ],
          },
        ],
        policyTypes: ['Ingress', 'Sideways'],
      },
    });
    expect(r.status).toBe(422);
    const p = 'spec.ingress[0]';
    expect(causesOf(r)).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueNotSupported',
          field: `${p}.ports[0].protocol`,
          message: 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${p}.ports[0].port`,
          message: 'Invalid value: 0: must be between 1 and 65535, inclusive',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${p}.ports[1].endPort`,
          message: 'Invalid value: 90: may not be specified when `port` is non-numeric',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${p}.ports[2].endPort`,
          message: 'Invalid value: 100: must be greater than or equal to `port`',
        },
        {
          reason: 'FieldValueRequired',
          field: `${p}.from[0]`,
          message: 'Required value: must specify a peer',
        },
        {
          reason: 'FieldValueForbidden',
          field: `${p}.from[1]`,
          message: 'Forbidden: may not specify both ipBlock and another peer',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${p}.from[2].ipBlock.cidr`,
          message: 'Invalid value: "10.0.0.300/8": not a valid CIDR',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${p}.from[3].ipBlock.except[0]`,
          message: 'Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${p}.from[3].ipBlock.except[1]`,
          message: 'Invalid value: "192.168.0.0/24": must be a strict subset of `cidr`',
        },
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.policyTypes[1]',
          message: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
        },
      ]),
    );
  });

  it('IPv6 blocks: exceptions inside the block pass, other families do not', async () => {
    const ok = await ts.req('POST', netpols(), {
      metadata: { name: 'v6' },
      spec: { egress: [{ to: [{ ipBlock: { cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] } }] }] },
    });
    expect(ok.status, ok.text).toBe(201);
    const bad = await ts.req('POST', netpols(), {
      metadata: { name: 'v6bad' },
      spec: { egress: [{ to: [{ ipBlock: { cidr: '2001:db8::/32', except: ['10.0.0.0/8'] } }] }] },
    });
    expect(bad.status).toBe(422);
    expect(causesOf(bad)[0]?.message).toBe('Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`');
  });
});
