// doc3's plugin table row ValidatingAdmissionPolicy ("Runs expression-language policies; any
// failing policy fails the request") and doc2's expression language as policies use it (gradual
// type checking, the authorizer library, the runtime budget), with what a Kubernetes 1.28 server
// shows beyond the text: the policy API (admissionregistration.orch.io/v1beta1, which 1.28 serves
// only with --runtime-config and acts on only with the ValidatingAdmissionPolicy feature gate),
// its defaults and validation, the binding's actions (Deny, Warn, Audit), parameters, the failure
// policy, composition variables and message expressions, and the denial's shape.
//
// Every case needs a target with the gate on and the API served (the embedded `policies`
// server); each writes its own policy and binding, scoped to objects carrying a label unique
// to the case, and removes them after.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import type { CaseDef } from '../../harness/src/spec.ts';
import { IN_FORCE_SECONDS, type Needs } from '../../harness/src/targets.ts';
import { pluginRules } from './plugin-helpers.ts';

const GROUP = 'admissionregistration.orch.io';
const POLICIES = `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings`;
const NEEDS: Needs = { featureGates: { ValidatingAdmissionPolicy: true } };
const PLUGIN_ROW =
  'ValidatingAdmissionPolicy | V | Runs expression-language policies; any failing policy fails the request';
const PLUGINS = 'Resources and their fields';
const CEL_INPUTS = 'Expression language inputs';

type Rec = Record<string, unknown>;

function doc3(id: string, title: string, level: CaseDef['level'], place = PLUGIN_ROW): CaseDef {
  return {
    id: `admission/policy/${id}`,
    title,
    doc: 3,
    section: PLUGINS,
    place,
    specRules: pluginRules(place),
    level,
  };
}

function doc2(
  id: string,
  title: string,
  section: string,
  place: string,
  specRules: string[],
  level: CaseDef['level'] = 'MUST',
): CaseDef {
  return { id: `admission/policy/${id}`, title, doc: 2, section, place, specRules, level };
}

/** A policy on configmap writes; the case's binding narrows it to objects with its label. */
function policy(name: string, spec: Rec): Rec {
  return {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
      },
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, label: string, spec: Rec = {}): Rec {
  return {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: {
      policyName,
      validationActions: ['Deny'],
      matchResources: { objectSelector: { matchLabels: { 'policy-case': label } } },
      ...spec,
    },
  };
}

interface Scene {
  ns: string;
  label: string;
  /** Creates a configmap carrying the case's label. */
  write(name: string, data?: Record<string, string>): Promise<Response>;
}

/**
 * Runs `body` with a namespace, the policies and bindings created (each must be accepted), and
 * everything removed after. A policy may be in force only some time after it and its binding
 * are written (Kubernetes 1.28 loads both through informers): the body probes with
 * `untilInForce` before it relies on one.
 */
async function withPolicies(
  t: CaseContext,
  make: (label: string) => { policies: Rec[]; bindings: Rec[] },
  body: (s: Scene) => Promise<void>,
): Promise<void> {
  const label = uniqueName('c');
  const ns = uniqueName('vap');
  const { policies, bindings } = make(label);
  const made: string[] = [];
  try {
    const n = await t.client.post('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    checkStatus(n, 201, undefined, 'setup: a namespace for the case');
    for (const [path, objs] of [
      [POLICIES, policies],
      [BINDINGS, bindings],
    ] as const)
      for (const o of objs) {
        const name = (o.metadata as Rec).name as string;
        const r = await t.step(`create ${(o as Rec).kind} ${name}`, () => t.client.post(path, o));
        checkStatus(r, 201, undefined, `setup: the ${(o as Rec).kind} is valid`);
        made.push(`${path}/${name}`);
      }
    const write = (name: string, data: Record<string, string> = {}) =>
      t.step(`create configmap ${name} with data ${show(data)}`, () =>
        t.client.post(`/api/v1/namespaces/${ns}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, labels: { 'policy-case': label } },
          data,
        }),
      );
    await body({ ns, label, write });
  } finally {
    for (const p of made.reverse()) await t.client.delete(p).catch(() => undefined);
    await dropNamespace(t.client, ns);
  }
}

const refused = (r: Response) => r.status >= 400 && r.status < 500;
const admitted = (r: Response) => r.status >= 200 && r.status < 300;

/**
 * Writes the configmap `name` until the answer is `settled` (by default: refused), for at most
 * the time the target is declared to take to put a policy in force (ORCH_IN_FORCE_SECONDS,
 * else IN_FORCE_SECONDS): the text does not say when a policy written takes effect, and
 * Kubernetes 1.28 acts on it once its informers have it. What a try admits is removed before
 * the next. Answers the last try (the case checks it).
 */
async function untilInForce(
  t: CaseContext,
  s: Scene,
  name: string,
  data: Record<string, string>,
  settled: (r: Response) => boolean = refused,
): Promise<Response> {
  const deadline = Date.now() + (t.target.declared.inForceSeconds ?? IN_FORCE_SECONDS) * 1000;
  for (;;) {
    const r = await s.write(name, data);
    if (settled(r) || Date.now() > deadline) return r;
    if (admitted(r)) await t.client.delete(`/api/v1/namespaces/${s.ns}/configmaps/${name}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

/** A write refused by a policy: 4xx, and nothing stored. */
async function checkRefused(t: CaseContext, s: Scene, r: Response, name: string, why: string): Promise<void> {
  check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe(), why);
  const read = await t.client.get(`/api/v1/namespaces/${s.ns}/configmaps/${name}`);
  checkStatus(read, 404, undefined, `${why}: a refused write stores nothing`);
}

const denyMessage = (p: string, b: string, m: string) =>
  `ValidatingAdmissionPolicy '${p}' with binding '${b}' denied request: ${m}`;

describe('admission: ValidatingAdmissionPolicy', () => {
  conformance(
    doc3(
      'failing-policy-fails',
      'A write that fails a matching policy (binding action Deny) is refused, and nothing is stored',
      'MUST',
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              validations: [{ expression: "!('forbidden' in object.data)", message: 'no forbidden key' }],
            }),
          ],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          const bad = await untilInForce(t, s, 'bad', { forbidden: 'x' });
          await checkRefused(t, s, bad, 'bad', 'the policy fails');
          checkStatus(await s.write('good', { fine: 'x' }), 201, undefined, 'the policy passes: admitted');
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3('any-failing-policy', 'Of two matching policies, one failing is enough to refuse the write', 'MUST'),
    async (t) => {
      const [p1, p2] = [uniqueName('p'), uniqueName('p')];
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p1, { validations: [{ expression: "'a' in object.data" }] }),
            policy(p2, { validations: [{ expression: "'b' in object.data" }] }),
          ],
          bindings: [binding(p1, p1, label), binding(p2, p2, label)],
        }),
        async (s) => {
          const onlyA = await untilInForce(t, s, 'only-a', { a: '1' });
          await checkRefused(t, s, onlyA, 'only-a', 'the second policy fails');
          checkStatus(await s.write('both', { a: '1', b: '2' }), 201, undefined, 'both policies pass');
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'deny-shape',
      "A denial is 422 Invalid: `<resource> \"<name>\" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request: <message>`, the message also a cause",
      'BEYOND',
      `${PLUGIN_ROW} (the refusal's shape: not shown; Kubernetes 1.28: 422 Invalid unless the validation names a reason)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              validations: [{ expression: "!('forbidden' in object.data)", message: 'no forbidden key' }],
            }),
          ],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          const r = await untilInForce(t, s, 'bad', { forbidden: 'x' });
          checkStatus(r, 422, 'Invalid', 'a validation without a reason refuses with Invalid');
          const msg = denyMessage(p, p, 'no forbidden key');
          check(
            r.statusObj?.message === `configmaps "bad" is forbidden: ${msg}`,
            `message ${show(`configmaps "bad" is forbidden: ${msg}`)}`,
            show(r.statusObj?.message),
          );
          const causes = r.statusObj?.details?.causes ?? [];
          check(
            causes.some((c) => c.message === msg),
            `a cause with message ${show(msg)}`,
            show(causes),
          );
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'reason-code',
      'A validation naming reason Forbidden refuses with 403 Forbidden; without a message the denial says `failed expression: <expression>`',
      'BEYOND',
      `${PLUGIN_ROW} (reasons and codes: not shown; Kubernetes 1.28: the validation's reason and its code)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              validations: [{ expression: " !('forbidden' in object.data) ", reason: 'Forbidden' }],
            }),
          ],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          const r = await untilInForce(t, s, 'bad', { forbidden: 'x' });
          checkStatus(r, 403, 'Forbidden', 'the validation names reason Forbidden');
          const want = denyMessage(p, p, "failed expression: !('forbidden' in object.data)");
          check(
            String(r.statusObj?.message).endsWith(want),
            `a message ending ${show(want)}`,
            show(r.statusObj?.message),
          );
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'message-expression',
      "A message expression's string is the denial's message; one that fails to evaluate falls back to the static message",
      'BEYOND',
      `${PLUGIN_ROW} (messages: not shown; Kubernetes 1.28: messageExpression, else message)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              validations: [
                {
                  expression: "!('a' in object.data)",
                  message: 'static a',
                  messageExpression: "'key a in ' + object.metadata.name",
                },
                {
                  // a string (so the policy is valid) that fails to evaluate: no key `missing`
                  expression: "!('b' in object.data)",
                  message: 'static b',
                  messageExpression: "'b is ' + object.data.missing",
                },
              ],
            }),
          ],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          const a = await untilInForce(t, s, 'with-a', { a: '1' });
          check(
            String(a.statusObj?.message).endsWith(denyMessage(p, p, 'key a in with-a')),
            "the message expression's text",
            a.describe(),
          );
          const b = await s.write('with-b', { b: '1' });
          check(
            String(b.statusObj?.message).endsWith(denyMessage(p, p, 'static b')),
            'the static message',
            b.describe(),
          );
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'warn',
      "Binding action Warn: the write is admitted with a Warning `Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>`",
      'BEYOND',
      `${PLUGIN_ROW} (binding actions: not shown; Kubernetes 1.28: Deny, Warn, Audit)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, { validations: [{ expression: "!('forbidden' in object.data)", message: 'bad key' }] }),
          ],
          bindings: [binding(p, p, label, { validationActions: ['Warn', 'Audit'] })],
        }),
        async (s) => {
          const want = `Validation failed for ValidatingAdmissionPolicy '${p}' with binding '${p}': bad key`;
          const r = await untilInForce(t, s, 'warned', { forbidden: 'x' }, (x) =>
            x.headerAll('warning').some((w) => w.includes(want)),
          );
          checkStatus(r, 201, undefined, 'Warn and Audit do not refuse');
          const warnings = r.headerAll('warning');
          check(
            warnings.some((w) => w.includes(want)),
            `a Warning header with ${show(want)}`,
            show(warnings),
          );
          const ok = await s.write('quiet', { fine: 'x' });
          check(
            !ok.headerAll('warning').some((w) => w.includes('ValidatingAdmissionPolicy')),
            'no policy warning for a passing write',
            show(ok.headerAll('warning')),
          );
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'params',
      "Parameters: the binding names a ConfigMap in the request's namespace; a missing one with parameterNotFoundAction Deny refuses (`failed to configure binding: no params found ...`), with Allow the binding is skipped",
      'BEYOND',
      `${PLUGIN_ROW} (parameters: not shown; Kubernetes 1.28: paramKind and paramRef)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      const b2 = uniqueName('b');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
              validations: [
                {
                  expression: 'size(object.data) <= int(params.data.max)',
                  messageExpression: "'at most ' + params.data.max",
                },
              ],
            }),
          ],
          bindings: [binding(p, p, label, { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } })],
        }),
        async (s) => {
          const lim = await t.client.post(`/api/v1/namespaces/${s.ns}/configmaps`, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'limits' },
            data: { max: '2' },
          });
          checkStatus(
            lim,
            201,
            undefined,
            'setup: the parameter object (no case label, so not checked itself)',
          );
          const r = await untilInForce(t, s, 'three', { a: '1', b: '2', c: '3' });
          checkStatus(r, 422, 'Invalid', 'three keys: the parameter says at most 2');
          checkStatus(await s.write('two', { a: '1', b: '2' }), 201, undefined, 'two keys, at most 2');
          check(
            String(r.statusObj?.message).endsWith(denyMessage(p, p, 'at most 2')),
            'the message from params',
            r.describe(),
          );
          const missing = await t.client.post(
            BINDINGS,
            binding(b2, p, s.label, { paramRef: { name: 'nope', parameterNotFoundAction: 'Deny' } }),
          );
          checkStatus(missing, 201, undefined, 'setup: a binding whose parameter does not exist');
          try {
            const m = await untilInForce(t, s, 'one', { a: '1' });
            checkStatus(m, 422, 'Invalid', 'missing parameters with parameterNotFoundAction Deny');
            const want = denyMessage(
              p,
              b2,
              'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
            );
            check(String(m.statusObj?.message).endsWith(want), show(want), m.describe());
            const cur = (await t.client.get(`${BINDINGS}/${b2}`)).json;
            cur.spec.paramRef.parameterNotFoundAction = 'Allow';
            checkStatus(await t.client.put(`${BINDINGS}/${b2}`, cur), 200, undefined, 'setup: Allow');
            // the binding changed: Allow is in force once the write is admitted
            checkStatus(
              await untilInForce(t, s, 'one-again', { a: '1' }, admitted),
              201,
              undefined,
              'missing parameters with Allow: the binding is skipped',
            );
          } finally {
            await t.client.delete(`${BINDINGS}/${b2}`);
          }
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'failure-policy',
      "An expression that fails to evaluate refuses the write under failurePolicy Fail (`expression '<e>' resulted in error: ...`) and admits it under Ignore",
      'BEYOND',
      `${PLUGIN_ROW} (evaluation errors: not shown; Kubernetes 1.28: the policy's failurePolicy, default Fail)`,
    ),
    async (t) => {
      const [pf, pi] = [uniqueName('p'), uniqueName('p')];
      const expression = "object.data.missing == 'x'";
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(pf, { validations: [{ expression }] }),
            // the second validation shows when the policy is in force (a write with key probe is refused)
            policy(pi, {
              failurePolicy: 'Ignore',
              validations: [{ expression }, { expression: "!('probe' in object.data)" }],
            }),
          ],
          bindings: [binding(pf, pf, `${label}-fail`), binding(pi, pi, label)],
        }),
        async (s) => {
          const probe = await untilInForce(t, s, 'probe', { probe: 'x' });
          checkStatus(probe, 422, 'Invalid', 'setup: the Ignore policy is in force');
          checkStatus(await s.write('ignored', { a: '1' }), 201, undefined, 'Ignore: the error admits');
          const fail: Scene = {
            ...s,
            write: (name, data = {}) =>
              t.step(`create configmap ${name} (bound to the Fail policy) with data ${show(data)}`, () =>
                t.client.post(`/api/v1/namespaces/${s.ns}/configmaps`, {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  metadata: { name, labels: { 'policy-case': `${s.label}-fail` } },
                  data,
                }),
              ),
          };
          const r = await untilInForce(t, fail, 'failed', { a: '1' });
          checkStatus(r, 422, 'Invalid', 'Fail: the error refuses');
          check(
            String(r.statusObj?.message).includes(
              `denied request: expression '${expression}' resulted in error: `,
            ),
            'the evaluation error in the message',
            r.describe(),
          );
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'variables',
      'Composition variables: each may use the ones before it; validations and message expressions read them as `variables.<name>`',
      'BEYOND',
      `${PLUGIN_ROW} (variables: not shown; Kubernetes 1.28: spec.variables)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              variables: [
                { name: 'keys', expression: 'has(object.data) ? object.data.size() : 0' },
                { name: 'tooMany', expression: 'variables.keys > 1' },
              ],
              validations: [
                {
                  expression: '!variables.tooMany',
                  messageExpression: "'has ' + string(variables.keys) + ' keys'",
                },
              ],
            }),
          ],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          const r = await untilInForce(t, s, 'two', { a: '1', b: '2' });
          checkStatus(r, 422, 'Invalid', 'two keys');
          checkStatus(await s.write('one', { a: '1' }), 201, undefined, 'one key');
          check(
            String(r.statusObj?.message).endsWith(denyMessage(p, p, 'has 2 keys')),
            'the message from the variables',
            r.describe(),
          );
        },
      );
    },
    { needs: NEEDS },
  );

  // ---------------------------------------------------------------- the objects

  conformance(
    doc3(
      'defaults',
      'A policy gets failurePolicy Fail and matchPolicy Equivalent with empty selectors',
      'BEYOND',
      `${PLUGIN_ROW} (the policy objects: not shown; Kubernetes 1.28's v1beta1 defaults)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      const r = await t.client.post(
        POLICIES,
        policy(p, {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          validations: [{ expression: 'true' }],
        }),
      );
      try {
        checkStatus(r, 201);
        const spec = r.json?.spec ?? {};
        check(spec.failurePolicy === 'Fail', 'spec.failurePolicy "Fail"', show(spec.failurePolicy));
        const mc = spec.matchConstraints ?? {};
        check(mc.matchPolicy === 'Equivalent', 'matchPolicy "Equivalent"', show(mc.matchPolicy));
        check(
          JSON.stringify(mc.namespaceSelector) === '{}' && JSON.stringify(mc.objectSelector) === '{}',
          'empty selectors',
          show(mc),
        );
      } finally {
        await t.client.delete(`${POLICIES}/${p}`);
      }
    },
    { needs: NEEDS },
  );

  conformance(
    doc3(
      'type-checking',
      "A policy's status reports its type checking against the kinds it matches: an expression naming a field ConfigMap does not have gets a warning `/v1, Kind=ConfigMap: ERROR: ... undefined field`, and observedGeneration follows the generation",
      'BEYOND',
      `${PLUGIN_ROW} (the policy status: not shown; Kubernetes 1.28's status controller)`,
    ),
    async (t) => {
      const p = uniqueName('p');
      const r = await t.client.post(
        POLICIES,
        policy(p, {
          validations: [{ expression: 'object.spec.replicas < 5' }, { expression: "!('x' in object.data)" }],
        }),
      );
      try {
        checkStatus(r, 201);
        let got: any;
        // the status controller (Kubernetes 1.28: in the controller manager) writes it some time after
        const deadline = Date.now() + IN_FORCE_SECONDS * 1000;
        for (;;) {
          got = (await t.client.get(`${POLICIES}/${p}`)).json;
          if (got?.status?.observedGeneration === got?.metadata?.generation || Date.now() > deadline) break;
          await new Promise((res) => setTimeout(res, 200));
        }
        check(
          got?.status?.observedGeneration === got?.metadata?.generation,
          `status.observedGeneration equal to metadata.generation within ${IN_FORCE_SECONDS} s`,
          show(got?.status),
        );
        const warnings: any[] = got?.status?.typeChecking?.expressionWarnings ?? [];
        check(
          warnings.length === 1 && warnings[0].fieldRef === 'spec.validations[0].expression',
          'one warning, for spec.validations[0].expression',
          show(warnings),
        );
        const w = String(warnings[0]?.warning);
        check(
          w.startsWith('/v1, Kind=ConfigMap: ') && w.includes("undefined field 'spec'"),
          "a warning `/v1, Kind=ConfigMap: ... undefined field 'spec'`",
          show(w),
        );
      } finally {
        await t.client.delete(`${POLICIES}/${p}`);
      }
    },
    { needs: NEEDS },
  );

  const refusedBinding = (id: string, title: string, spec: Rec, field: string, fragment: string) =>
    conformance(
      doc3(id, title, 'BEYOND', `${PLUGIN_ROW} (binding validation: not shown; Kubernetes 1.28)`),
      async (t) => {
        const name = uniqueName('b');
        const r = await t.client.post(BINDINGS, binding(name, 'some-policy', 'nothing', spec));
        if (r.status < 300) await t.client.delete(`${BINDINGS}/${name}`);
        checkStatus(r, 422, 'Invalid');
        const causes = r.statusObj?.details?.causes ?? [];
        check(
          causes.some((c) => c.field === field && String(c.message).includes(fragment)),
          `a cause at ${field} saying ${show(fragment)}`,
          show(causes),
        );
      },
      { needs: NEEDS },
    );
  refusedBinding(
    'binding-deny-and-warn',
    'A binding may not have both Deny and Warn',
    { validationActions: ['Deny', 'Warn'] },
    'spec.validationActions',
    'must not contain both Deny and Warn',
  );
  refusedBinding(
    'binding-no-actions',
    'A binding needs at least one validation action',
    { validationActions: [] },
    'spec.validationActions',
    'at least one validation action is required',
  );
  refusedBinding(
    'binding-param-action-required',
    "A v1beta1 binding's paramRef needs its parameterNotFoundAction (v1beta1 has no default for it)",
    { paramRef: { name: 'x', namespace: 'default' } },
    'spec.paramRef.parameterNotFoundAction',
    'Required value',
  );
  refusedBinding(
    'binding-name-and-selector',
    "A binding's paramRef may not have both a name and a selector",
    { paramRef: { name: 'a', selector: {} } },
    'spec.paramRef.name',
    'name and selector are mutually exclusive',
  );

  const refusedPolicy = (id: string, def: CaseDef, spec: Rec, field: string, fragment: string) =>
    conformance(
      def,
      async (t) => {
        const name = uniqueName('p');
        const r = await t.client.post(POLICIES, policy(name, spec));
        if (r.status < 300) await t.client.delete(`${POLICIES}/${name}`);
        checkStatus(r, 422, 'Invalid', `${id}: refused at write time`);
        const causes = r.statusObj?.details?.causes ?? [];
        check(
          causes.some((c) => c.field === field && String(c.message).includes(fragment)),
          `a cause at ${field} saying ${show(fragment)}`,
          show(causes),
        );
      },
      { needs: NEEDS },
    );
  refusedPolicy(
    'expression-not-compiling',
    doc3(
      'expression-not-compiling',
      'A policy whose validation expression does not compile is refused at write time',
      'BEYOND',
      `${PLUGIN_ROW} (policy validation: not shown; Kubernetes 1.28)`,
    ),
    { validations: [{ expression: 'object.' }] },
    'spec.validations[0].expression',
    'compilation failed',
  );
  refusedPolicy(
    'expression-not-bool',
    doc3(
      'expression-not-bool',
      'A policy whose validation expression is not a bool is refused',
      'BEYOND',
      `${PLUGIN_ROW} (policy validation: not shown; Kubernetes 1.28)`,
    ),
    { validations: [{ expression: "'text'" }] },
    'spec.validations[0].expression',
    'must evaluate to bool',
  );
  refusedPolicy(
    'expression-dyn-not-bool',
    doc3(
      'expression-dyn-not-bool',
      'A policy whose validation expression is of no known type (a field of the dynamic `object`) is refused: it must be a bool',
      'BEYOND',
      `${PLUGIN_ROW} (policy validation: not shown; Kubernetes 1.28)`,
    ),
    { validations: [{ expression: 'object.data.flag' }] },
    'spec.validations[0].expression',
    'must evaluate to bool',
  );
  refusedPolicy(
    'message-expression-not-string',
    doc3(
      'message-expression-not-string',
      'A policy whose message expression is not of type string (a field of the dynamic `object`) is refused',
      'BEYOND',
      `${PLUGIN_ROW} (policy validation: not shown; Kubernetes 1.28)`,
    ),
    { validations: [{ expression: 'true', messageExpression: 'object.data.missing' }] },
    'spec.validations[0].messageExpression',
    'must evaluate to string',
  );
  refusedPolicy(
    'typed-request',
    doc2(
      'typed-request',
      'Gradual typing in policies: an unknown field of the typed `request` variable is refused when the policy is written',
      CEL_INPUTS,
      'some fields (admission policies) type some variables and leave others dynamic, so an unknown field on a typed variable fails and on a dynamic variable passes',
      [
        'doc2/expression-language-inputs/type-checking-gradual',
        'doc2/expression-language-inputs/custom-definition-validation-rules-fully-type',
      ],
    ),
    { validations: [{ expression: "request.noSuchField == 'x'" }] },
    'spec.validations[0].expression',
    "undefined field 'noSuchField'",
  );

  conformance(
    doc2(
      'dynamic-object',
      'Gradual typing in policies: an unknown field of the dynamic `object` variable is accepted when the policy is written (and fails only at evaluation)',
      CEL_INPUTS,
      'some fields (admission policies) type some variables and leave others dynamic, so an unknown field on a typed variable fails and on a dynamic variable passes',
      [
        'doc2/expression-language-inputs/type-checking-gradual',
        'doc2/expression-language-inputs/custom-definition-validation-rules-fully-type',
      ],
    ),
    async (t) => {
      const name = uniqueName('p');
      const r = await t.client.post(
        POLICIES,
        policy(name, { validations: [{ expression: "object.noSuchField == 'x'" }] }),
      );
      if (r.status < 300) await t.client.delete(`${POLICIES}/${name}`);
      checkStatus(r, 201, undefined, 'object is dynamic: any field name type checks');
    },
    { needs: NEEDS },
  );

  conformance(
    doc2(
      'authorizer',
      "The authorizer library in a policy: `authorizer.group(g).resource(r).namespace(ns).check(verb).allowed()` answers for the request's user, `authorizer.serviceAccount(ns, name)` for a service account",
      CEL_INPUTS,
      'Authorizer: `Authorizer.group(string).resource(string)` gives a ResourceCheck; optional chained `subresource(string)`, `namespace(string)`, `name(string)`; `check(verb)` returns a Decision with `allowed()` (bool) and `reason()` (string)',
      [
        'doc2/expression-language-inputs/authorizer-authorizer-group-string-resource-string',
        'doc2/expression-language-inputs/service-account-authorizer-serviceaccount-namespace-name',
      ],
    ),
    async (t) => {
      const p = uniqueName('p');
      await withPolicies(
        t,
        (label) => ({
          policies: [
            policy(p, {
              validations: [
                {
                  expression:
                    "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('delete').allowed()",
                  message: 'the writer may delete secrets',
                },
                {
                  expression:
                    "!authorizer.serviceAccount('default', 'nobody-at-all').group('').resource('secrets').check('delete').allowed()",
                  message: 'an unknown service account may not',
                },
                // shows when the policy is in force (a write with key probe is refused)
                { expression: "!('probe' in object.data)" },
              ],
            }),
          ],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          checkStatus(
            await untilInForce(t, s, 'probe', { probe: 'x' }),
            422,
            'Invalid',
            'setup: the policy is in force',
          );
          // the suite's identity administers the target; an unknown service account has no permission
          checkStatus(
            await s.write('checked', { a: '1' }),
            201,
            undefined,
            'both authorization checks answer as the authorizers do',
          );
        },
      );
    },
    { needs: NEEDS },
  );

  conformance(
    doc2(
      'runtime-budget',
      'A policy expression over its runtime cost limit halts with an error, which (failurePolicy Fail) refuses the write',
      'Limits',
      'Every expression runs under a runtime budget; when exceeded, evaluation halts with an error',
      ['doc2/limits/every-expression-runs-under-runtime-budget'],
    ),
    async (t) => {
      const p = uniqueName('p');
      const ten = '[1,2,3,4,5,6,7,8,9,10]';
      const nest = (depth: number): string =>
        depth === 0 ? 'true' : `${ten}.all(x${depth}, ${nest(depth - 1)})`;
      await withPolicies(
        t,
        (label) => ({
          policies: [policy(p, { validations: [{ expression: nest(6) }] })],
          bindings: [binding(p, p, label)],
        }),
        async (s) => {
          const r = await untilInForce(t, s, 'costly', { a: '1' });
          await checkRefused(t, s, r, 'costly', 'a million iterations exceed the per-expression limit');
          check(
            String(r.statusObj?.message).includes('cost'),
            'a message about the cost limit',
            r.describe(),
          );
        },
      );
    },
    { needs: NEEDS },
  );
});
