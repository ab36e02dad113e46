// doc3 § States and transitions, property-based: for random sets of mutating and validating
// webhooks (some matching the write and some not, by rule, selector or match condition; each
// allowing, patching, denying or failing under either failure policy, mutating ones with either
// reinvocation policy, spread over several configurations) and a create or an update, the calls
// the target makes, what each webhook saw and how the write ends match the model of
// ordering-model.ts. The harness's webhook servers record every call (harness/src/admission).
//
// Two cases: `phases` holds what doc3 states whatever order a server picks inside a phase;
// `kubernetes-order` holds the whole model, Kubernetes 1.28's order and reinvocation round
// included. fast-check prints the seed and path of a failure (replay with ORCH_SEED).
import fc from 'fast-check';
import { describe } from 'vitest';
import {
  type Call,
  type Script,
  startWebhookServer,
  type WebhookServer,
} from '../../harness/src/admission/callbacks.ts';
import { CASE_LABEL, type CaseScope, openScope } from '../../harness/src/admission/webhook-scope.ts';
import { check, show } from '../../harness/src/assert.ts';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { propertySettings } from '../../harness/src/session.ts';
import {
  type Behaviour,
  expectedOutcome,
  labelOf,
  type ModelOutcome,
  type ModelWebhook,
} from './ordering-model.ts';

const SECTION = 'States and transitions';
const RUNS = 10;

type Miss = 'operation' | 'objectSelector' | 'matchCondition';
interface GenHook extends ModelWebhook {
  miss: Miss;
}
interface Scenario {
  operation: 'CREATE' | 'UPDATE';
  hooks: GenHook[];
}

const behaviourArb = fc.constantFrom<Behaviour>('allow', 'patch', 'patch', 'patch', 'allow', 'deny', 'fail');
const hookArb = (phase: 'mutating' | 'validating') =>
  fc.record({
    phase: fc.constant(phase),
    configuration: phase === 'mutating' ? fc.constantFrom('c', 'a', 'b') : fc.constant('v'),
    matches: fc.constantFrom(true, true, true, true, false),
    miss: fc.constantFrom<Miss>('operation', 'objectSelector', 'matchCondition'),
    behaviour: behaviourArb,
    failurePolicy: fc.constantFrom<'Fail' | 'Ignore'>('Fail', 'Ignore'),
    reinvocation:
      phase === 'mutating'
        ? fc.constantFrom<'Never' | 'IfNeeded'>('Never', 'IfNeeded', 'IfNeeded')
        : fc.constant('Never' as const),
  });

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    operation: fc.constantFrom<'CREATE' | 'UPDATE'>('CREATE', 'UPDATE'),
    mutating: fc.array(hookArb('mutating'), { minLength: 0, maxLength: 5 }),
    validating: fc.array(hookArb('validating'), { minLength: 0, maxLength: 3 }),
  })
  .map(({ operation, mutating, validating }) => {
    const hooks: GenHook[] = [];
    const perConfig = new Map<string, number>();
    for (const [i, h] of mutating.entries()) {
      const index = perConfig.get(h.configuration) ?? 0;
      perConfig.set(h.configuration, index + 1);
      hooks.push({ ...h, id: `m${i}`, index });
    }
    for (const [i, h] of validating.entries()) hooks.push({ ...h, id: `v${i}`, index: i });
    return { operation, hooks };
  });

const m = (
  id: string,
  configuration: string,
  index: number,
  behaviour: Behaviour,
  o: Partial<GenHook> = {},
): GenHook => ({
  id,
  phase: 'mutating',
  configuration,
  index,
  matches: true,
  miss: 'operation',
  behaviour,
  failurePolicy: 'Fail',
  reinvocation: 'Never',
  ...o,
});
const v = (id: string, index: number, behaviour: Behaviour, o: Partial<GenHook> = {}): GenHook => ({
  ...m(id, 'v', index, behaviour, o),
  phase: 'validating',
});

/** Scenarios worth running every time: the edges of the model. */
const EDGES: Scenario[] = [
  // a patch before a webhook that wants reinvocation: it is called again and sees the patch
  {
    operation: 'CREATE',
    hooks: [
      m('m0', 'a', 0, 'allow', { reinvocation: 'IfNeeded' }),
      m('m1', 'b', 0, 'patch'),
      v('v0', 0, 'allow'),
    ],
  },
  // configurations run by name, not by creation: c is created first, a runs first
  {
    operation: 'UPDATE',
    hooks: [
      m('m0', 'c', 0, 'patch'),
      m('m1', 'a', 0, 'patch', { reinvocation: 'IfNeeded' }),
      v('v0', 0, 'allow'),
    ],
  },
  // a denial in the mutating phase: no later webhook, no validating webhook
  { operation: 'CREATE', hooks: [m('m0', 'a', 0, 'deny'), m('m1', 'b', 0, 'patch'), v('v0', 0, 'allow')] },
  // failures: ignored under Ignore, fatal under Fail
  {
    operation: 'CREATE',
    hooks: [
      m('m0', 'a', 0, 'fail', { failurePolicy: 'Ignore' }),
      v('v0', 0, 'fail', { failurePolicy: 'Fail' }),
      v('v1', 1, 'allow'),
    ],
  },
  // a webhook whose failure was ignored was still called: with IfNeeded it is called again after a later patch
  {
    operation: 'CREATE',
    hooks: [
      m('m0', 'c', 0, 'patch'),
      m('m1', 'a', 0, 'fail', { failurePolicy: 'Ignore', reinvocation: 'IfNeeded' }),
    ],
  },
  // webhooks that do not match are never called
  {
    operation: 'UPDATE',
    hooks: [
      m('m0', 'a', 0, 'deny', { matches: false, miss: 'matchCondition' }),
      m('m1', 'a', 1, 'deny', { matches: false, miss: 'objectSelector' }),
      v('v0', 0, 'deny', { matches: false, miss: 'operation' }),
    ],
  },
];

/** The webhook's path on the server: one per scope and webhook, so runs never mix. */
const pathOf = (scope: CaseScope, h: ModelWebhook) => `${scope.id}-${h.id}`;
const nameOf = (h: ModelWebhook) => `${h.id}.ordering.conformance`;

function scriptOf(h: GenHook): Script {
  switch (h.behaviour) {
    case 'allow':
      return {};
    case 'patch':
      return { patch: [{ op: 'add', path: `/metadata/labels/${labelOf(h.id)}`, value: '1' }] };
    case 'deny':
      return { allowed: false, status: { code: 403, message: `denied by ${h.id}` } };
    case 'fail':
      return { httpStatus: 500, raw: 'webhook failure', contentType: 'text/plain' };
  }
}

function webhookOf(
  scope: CaseScope,
  server: WebhookServer,
  h: GenHook,
  operation: string,
): Record<string, unknown> {
  const hit = h.matches || h.miss !== 'operation';
  const hook: Record<string, unknown> = {
    name: nameOf(h),
    clientConfig: server.clientConfig(pathOf(scope, h)),
    rules: [
      {
        operations: hit ? [operation] : [operation === 'CREATE' ? 'DELETE' : 'CREATE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps'],
        scope: 'Namespaced',
      },
    ],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: h.failurePolicy,
    timeoutSeconds: 5,
  };
  if (!h.matches && h.miss === 'objectSelector') hook.objectSelector = { matchLabels: { 'never-set': 'x' } };
  if (!h.matches && h.miss === 'matchCondition')
    hook.matchConditions = [{ name: 'never', expression: "object.metadata.name == 'no-such-name'" }];
  if (h.phase === 'mutating') hook.reinvocationPolicy = h.reinvocation;
  return hook;
}

/** The labels a call's object carried, without the case's own. */
function seenLabels(c: Call): Record<string, string> {
  const { [CASE_LABEL]: _case, ...rest } = (c.review?.request?.object?.metadata?.labels ?? {}) as Record<
    string,
    string
  >;
  return rest;
}

interface Observed {
  mutating: { id: string; seq: number; labels: Record<string, string> }[];
  validating: { id: string; seq: number; labels: Record<string, string> }[];
  answer: Response;
  /** The labels of the object stored afterwards (without the case label); undefined when absent. */
  stored?: Record<string, string>;
}

const BASE = { base: '1' };

async function runScenario(t: CaseContext, s: Scenario, server: WebhookServer): Promise<Observed> {
  const scope = await openScope(t.client);
  try {
    const path = `/api/v1/namespaces/${scope.namespace}/configmaps`;
    const obj = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'subject', labels: { ...scope.labels, ...labels }, ...extra },
      data: { k: 'v' },
    });
    let old: Response | undefined;
    if (s.operation === 'UPDATE') {
      old = await t.client.post(path, obj({ base: '0' }));
      check(old.status === 201, 'setup: the object to update is created (201)', old.describe());
    }
    for (const h of s.hooks) server.script(pathOf(scope, h), scriptOf(h));
    // mutating configurations created in reverse name order, so creation order never explains a by-name order
    const configs = [...new Set(s.hooks.filter((h) => h.phase === 'mutating').map((h) => h.configuration))]
      .sort()
      .reverse();
    for (const c of configs) {
      const hooks = s.hooks
        .filter((h) => h.phase === 'mutating' && h.configuration === c)
        .sort((a, b) => a.index - b.index);
      const r = await scope.register(
        'mutating',
        hooks.map((h) => webhookOf(scope, server, h, s.operation)),
        server,
        { name: `${scope.id}-${c}` },
      );
      check(r.status === 201, `setup: the mutating configuration ${c} is created (201)`, r.describe());
    }
    const validating = s.hooks.filter((h) => h.phase === 'validating');
    if (validating.length) {
      const r = await scope.register(
        'validating',
        validating.map((h) => webhookOf(scope, server, h, s.operation)),
        server,
      );
      check(r.status === 201, 'setup: the validating configuration is created (201)', r.describe());
    }
    const first = server.calls.length;
    const answer =
      s.operation === 'CREATE'
        ? await t.client.post(path, obj(BASE))
        : await t.client.put(
            `${path}/subject`,
            obj(BASE, { resourceVersion: old!.json.metadata.resourceVersion }),
          );
    const ours = new Map(s.hooks.map((h) => [pathOf(scope, h), h]));
    const calls = server.calls.slice(first).filter((c) => ours.has(c.webhook));
    const pick = (phase: 'mutating' | 'validating') =>
      calls
        .filter((c) => ours.get(c.webhook)!.phase === phase)
        .map((c) => ({ id: ours.get(c.webhook)!.id, seq: c.seq, labels: seenLabels(c) }));
    const got = await t.client.get(`${path}/subject`);
    let stored: Record<string, string> | undefined;
    if (got.status === 200) {
      const { [CASE_LABEL]: _c, ...rest } = (got.json.metadata.labels ?? {}) as Record<string, string>;
      stored = rest;
    }
    return { mutating: pick('mutating'), validating: pick('validating'), answer, stored };
  } finally {
    await scope.close();
  }
}

const sortById = <T extends { id: string }>(xs: T[]) =>
  [...xs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const eq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const labelsEq = (a: Record<string, string>, b: Record<string, string>) =>
  eq(Object.entries(a).sort(), Object.entries(b).sort());

function describeScenario(s: Scenario): string {
  return s.hooks
    .map(
      (h) =>
        `${h.id}(${h.phase === 'mutating' ? `config ${h.configuration}[${h.index}], ${h.reinvocation}, ` : ''}${h.matches ? 'matches' : `no match by ${h.miss}`}, ${h.behaviour}, ${h.failurePolicy})`,
    )
    .join('; ');
}

/** The answer ended the write as the model says: stored with these labels, or refused naming a rejecting webhook. */
function checkResult(s: Scenario, want: ModelOutcome, o: Observed, why: string): void {
  const ctx = `${s.operation} with webhooks ${describeScenario(s)}`;
  if ('stored' in want.result) {
    check(
      o.answer.status === 200 || o.answer.status === 201,
      `${ctx}: the write succeeds (no webhook rejects)`,
      o.answer.describe(),
      why,
    );
    check(
      !!o.stored && labelsEq(o.stored, want.result.stored),
      `${ctx}: the stored object carries the labels the mutating phase left: ${show(want.result.stored)}`,
      show(o.stored),
      why,
    );
    return;
  }
  const by = want.result.rejectedBy.map((id) => s.hooks.find((h) => h.id === id)!);
  const message = String(o.answer.statusObj?.message ?? '');
  check(
    o.answer.status >= 400,
    `${ctx}: the write is refused (rejected by ${by.map(nameOf).join(' or ')})`,
    o.answer.describe(),
    why,
  );
  check(
    by.some((h) => message.includes(nameOf(h))),
    `${ctx}: the refusal names the webhook that rejected it (${by.map(nameOf).join(' or ')})`,
    show(message),
    why,
  );
  const before = s.operation === 'UPDATE' ? { base: '0' } : undefined;
  check(
    s.operation === 'CREATE' ? o.stored === undefined : !!o.stored && labelsEq(o.stored, before!),
    `${ctx}: nothing is written (${s.operation === 'CREATE' ? 'no object' : 'the object unchanged'})`,
    show(o.stored),
    why,
  );
}

/** doc3's phases, whatever order a server picks inside one. */
function checkPhases(s: Scenario, o: Observed): void {
  const why =
    'doc3 § States and transitions: mutating phase, then validating phase; any rejection rejects the write at once';
  const ctx = `${s.operation} with webhooks ${describeScenario(s)}`;
  const byId = new Map(s.hooks.map((h) => [h.id, h]));
  for (const c of [...o.mutating, ...o.validating])
    check(
      byId.get(c.id)!.matches,
      `${ctx}: only webhooks that match the write are called`,
      `${c.id} was called`,
      'doc3 § Webhook configuration objects: rules, selectors and match conditions choose the webhooks',
    );
  const lastMutating = Math.max(0, ...o.mutating.map((c) => c.seq));
  for (const c of o.validating)
    check(
      c.seq > lastMutating,
      `${ctx}: every validating webhook is called after the last mutating call`,
      `${c.id} was called before a mutating webhook`,
      why,
    );
  for (const h of s.hooks.filter((x) => x.phase === 'mutating' && x.reinvocation === 'Never'))
    check(
      o.mutating.filter((c) => c.id === h.id).length <= 1,
      `${ctx}: ${h.id} (reinvocationPolicy Never) is called at most once`,
      `${o.mutating.filter((c) => c.id === h.id).length} calls`,
      'doc3 § Webhook configuration objects: reinvocationPolicy Never',
    );
  const mutators = s.hooks.filter((h) => h.phase === 'mutating' && h.matches);
  const mutatingRejects = mutators.filter(
    (h) => h.behaviour === 'deny' || (h.behaviour === 'fail' && h.failurePolicy === 'Fail'),
  );
  const validators = s.hooks.filter((h) => h.phase === 'validating' && h.matches);
  if (mutatingRejects.length) {
    check(
      o.validating.length === 0,
      `${ctx}: a rejection in the mutating phase means no validating webhook is called`,
      show(o.validating.map((c) => c.id)),
      why,
    );
    const ids = mutatingRejects.map((h) => h.id);
    check(
      o.answer.status >= 400 &&
        mutatingRejects.some((h) => String(o.answer.statusObj?.message ?? '').includes(nameOf(h))),
      `${ctx}: refused, naming one of ${ids.join(', ')}`,
      o.answer.describe(),
      why,
    );
    return;
  }
  // every matching mutating webhook was called; the patches of all of them are in what validating webhooks saw and what is stored
  for (const h of mutators)
    check(
      o.mutating.some((c) => c.id === h.id),
      `${ctx}: the matching mutating webhook ${h.id} is called`,
      show(o.mutating.map((c) => c.id)),
      why,
    );
  const final: Record<string, string> = { ...BASE };
  for (const h of mutators) if (h.behaviour === 'patch') final[labelOf(h.id)] = '1';
  check(
    eq(
      sortById(o.validating).map((c) => c.id),
      validators.map((h) => h.id).sort(),
    ),
    `${ctx}: each matching validating webhook is called once: ${validators.map((h) => h.id).join(', ') || 'none'}`,
    show(o.validating.map((c) => c.id)),
    why,
  );
  for (const c of o.validating)
    check(
      labelsEq(c.labels, final),
      `${ctx}: validating webhook ${c.id} sees the object as the mutating phase left it: ${show(final)}`,
      show(c.labels),
      why,
    );
  checkResult(s, expectedOutcome(s.hooks, BASE), o, why);
}

/** The whole model: Kubernetes 1.28's order (configurations by name, webhooks in order) and its reinvocation round. */
function checkModel(s: Scenario, o: Observed): void {
  const why =
    'Kubernetes 1.28 (beyond doc3): mutating webhooks in configuration name order, then in order; webhooks with reinvocationPolicy IfNeeded called once more, in order, when a later webhook changed the object';
  const want = expectedOutcome(s.hooks, BASE);
  const ctx = `${s.operation} with webhooks ${describeScenario(s)}`;
  const gotM = o.mutating.map((c) => ({ id: c.id, labels: c.labels }));
  const wantM = want.mutating.map((c) => ({ id: c.id, labels: c.labels }));
  check(
    gotM.length === wantM.length &&
      gotM.every((c, i) => c.id === wantM[i]!.id && labelsEq(c.labels, wantM[i]!.labels)),
    `${ctx}: mutating calls (webhook and the labels it saw) ${show(wantM)}`,
    show(gotM),
    why,
  );
  const gotV = sortById(o.validating).map((c) => ({ id: c.id, labels: c.labels }));
  const wantV = want.validating.map((c) => ({ id: c.id, labels: c.labels }));
  check(
    gotV.length === wantV.length &&
      gotV.every((c, i) => c.id === wantV[i]!.id && labelsEq(c.labels, wantV[i]!.labels)),
    `${ctx}: validating calls ${show(wantV)}`,
    show(gotV),
    why,
  );
  checkResult(s, want, o, why);
}

describe('admission: ordering of webhooks (property-based)', () => {
  for (const [id, title, level, checkFn] of [
    [
      'phases',
      'for random webhooks and writes: mutating calls before validating ones, only matching webhooks called, Never-webhooks called once, validating webhooks see the mutated object, any rejection (a denial, a failure under Fail) refuses the write and leaves nothing written',
      'MUST',
      checkPhases,
    ],
    [
      'kubernetes-order',
      "for random webhooks and writes: the calls, their order, what each saw and the result match Kubernetes 1.28's order (configurations by name) and reinvocation round",
      'BEYOND',
      checkModel,
    ],
  ] as const) {
    conformance(
      {
        id: `admission/ordering/${id}`,
        title,
        doc: 3,
        section: SECTION,
        place: 'Admission order per write request (table)',
        specRules: [
          'doc3/states-transitions/authenticated-authorized-write-request-passes-mutating',
          'doc3/states-transitions/mutating-phase-all-mutating-steps-finish',
          'doc3/states-transitions/validating-phase-all-validating-steps-finish',
          'doc3/states-transitions/either-phase-any-plugin-webhook-rejects',
          'doc3/webhook-configuration-objects/mutatingadmissionwebhook-m-calls-matching-mutating-webhooks',
          'doc3/webhook-configuration-objects/validatingadmissionwebhook-v-calls-matching-validating-webhooks',
        ],
        level,
      },
      async (t) => {
        const server = await startWebhookServer();
        try {
          for (const s of EDGES) checkFn(s, await runScenario(t, s, server));
          await fc.assert(
            fc.asyncProperty(scenarioArb, async (s) => checkFn(s, await runScenario(t, s, server))),
            propertySettings(RUNS),
          );
        } finally {
          await server.close();
        }
      },
      { timeout: 240_000 },
    );
  }
});
