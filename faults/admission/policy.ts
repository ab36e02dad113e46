// Faults against validating admission policies (doc3's plugin table row ValidatingAdmissionPolicy,
// doc2's expression language as policies use it, and what Kubernetes 1.28 shows beyond the
// text); suites/admission/policy.test.ts must catch every one. Each rewrites the policies or
// bindings a client writes (so the server enforces something else), or the answers about them
// and about the writes they refuse. They run against a server with the policy gate on and the
// policy API served, declared to the suite (POLICY_SERVER).
import type { Fault, FaultServerOptions, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const POLICY_OBJECTS =
  /^\/apis\/admissionregistration\.(orch|k8s)\.io\/v1(beta1|alpha1)\/validatingadmissionpolic(ies|ybindings)(\/|$)/;
const POLICIES = /validatingadmissionpolicies(\/|$)/;
const BINDINGS = /validatingadmissionpolicybindings(\/|$)/;

/** The server the policy cases need: the gate on, the API served (declared to the suite as ORCH_FEATURE_GATES). */
export const POLICY_SERVER: FaultServerOptions = {
  featureGates: { ValidatingAdmissionPolicy: true },
  runtimeConfig: 'admissionregistration.orch.io/v1beta1=true,admissionregistration.orch.io/v1alpha1=true',
};

type Rec = Record<string, any>;
const id = (s: string) => `admission/policy/${s}`;

/** A create or replace of a policy (`POLICIES`) or binding (`BINDINGS`), its spec changed by `f` (left alone when `f` changes nothing). */
function rewriteSpec(r: ProxiedRequest, which: RegExp, f: (spec: Rec) => boolean): ProxiedRequest {
  if ((r.method !== 'POST' && r.method !== 'PUT') || !POLICY_OBJECTS.test(r.url.pathname) || !which.test(r.url.pathname))
    return r;
  const b = bodyOf(r.body);
  if (!b?.spec || typeof b.spec !== 'object') return r;
  return f(b.spec) ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
}

/** Every validation of a policy spec whose expression `f` rewrites (true when one changed). */
function rewriteValidations(spec: Rec, f: (v: Rec) => boolean): boolean {
  let changed = false;
  for (const v of Array.isArray(spec.validations) ? spec.validations : []) if (v && typeof v === 'object' && f(v)) changed = true;
  return changed;
}

/** A refusal of a write by a policy (its Status names the policy). */
const isPolicyDenial = (res: ProxiedResponse) =>
  res.status >= 400 && res.body.toString('utf8').includes('denied request');

export const FAULTS: Fault[] = [
  {
    name: 'policy-deny-not-enforced',
    breaks:
      'doc3 plugin table, ValidatingAdmissionPolicy: any failing policy fails the request (the proxy writes every binding with Audit instead of Deny, so failing writes are admitted)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('failing-policy-fails'), id('any-failing-policy')],
    request: (r) =>
      rewriteSpec(r, BINDINGS, (spec) => {
        const actions = spec.validationActions;
        // (a binding that also says Warn is left to the server to refuse)
        if (!Array.isArray(actions) || !actions.includes('Deny') || actions.includes('Warn')) return false;
        spec.validationActions = actions.map((a: unknown) => (a === 'Deny' ? 'Audit' : a));
        return true;
      }),
  },
  {
    name: 'policy-denial-forbidden-code',
    breaks:
      'Kubernetes 1.28 (beyond doc3): a policy denial without a reason is 422 Invalid (the proxy answers it as 403 Forbidden)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('deny-shape')],
    response: (_r, res) => {
      if (res.status !== 422 || !isPolicyDenial(res)) return res;
      return mapJson({ ...res, status: 403 }, (j) => ({ ...j, code: 403, reason: 'Forbidden' }));
    },
  },
  {
    name: 'policy-reason-ignored',
    breaks:
      "Kubernetes 1.28 (beyond doc3): a validation's reason gives the denial's reason and code (the proxy drops the reason from the policies it writes, so Forbidden becomes Invalid)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('reason-code')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (v.reason === undefined) return false;
          delete v.reason;
          return true;
        }),
      ),
  },
  {
    name: 'policy-message-expression-ignored',
    breaks:
      "Kubernetes 1.28 (beyond doc3): a validation's messageExpression gives the denial's message (the proxy drops it from the policies it writes)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('message-expression')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (v.messageExpression === undefined) return false;
          delete v.messageExpression;
          return true;
        }),
      ),
  },
  {
    name: 'policy-warning-dropped',
    breaks:
      "Kubernetes 1.28 (beyond doc3): binding action Warn adds a Warning `Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>` (the proxy removes it from the answers)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('warn')],
    response: (_r, res) => {
      const w = res.headers.warning;
      if (w === undefined) return res;
      const lines = (Array.isArray(w) ? w : [w]).filter((x) => !x.includes('Validation failed for ValidatingAdmissionPolicy'));
      const headers = { ...res.headers };
      if (lines.length) headers.warning = lines;
      else delete headers.warning;
      return { ...res, headers };
    },
  },
  {
    name: 'policy-params-not-found-allowed',
    breaks:
      'Kubernetes 1.28 (beyond doc3): parameterNotFoundAction Deny refuses a write whose parameters are missing (the proxy writes every paramRef with Deny as Allow)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('params')],
    request: (r) =>
      rewriteSpec(r, BINDINGS, (spec) => {
        const pr = spec.paramRef;
        if (!pr || typeof pr !== 'object' || pr.parameterNotFoundAction !== 'Deny') return false;
        pr.parameterNotFoundAction = 'Allow';
        return true;
      }),
  },
  {
    name: 'policy-param-action-defaulted',
    breaks:
      'Kubernetes 1.28 (beyond doc3): a v1beta1 binding must say what to do when its parameters are missing, there is no default (the proxy writes every paramRef without an action with Deny)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('binding-param-action-required')],
    request: (r) =>
      rewriteSpec(r, BINDINGS, (spec) => {
        const pr = spec.paramRef;
        if (!pr || typeof pr !== 'object' || pr.parameterNotFoundAction !== undefined) return false;
        pr.parameterNotFoundAction = 'Deny';
        return true;
      }),
  },
  {
    name: 'policy-failure-policy-ignored',
    breaks:
      'Kubernetes 1.28 (beyond doc3): failurePolicy Ignore admits a write whose evaluation fails (the proxy writes every policy with Fail)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('failure-policy')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) => {
        if (spec.failurePolicy !== 'Ignore') return false;
        spec.failurePolicy = 'Fail';
        return true;
      }),
  },
  {
    name: 'policy-defaults-missing',
    breaks:
      "Kubernetes 1.28 (beyond doc3): a policy's failurePolicy defaults to Fail (the proxy removes it from the answers about policies)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('defaults')],
    response: (r, res) => {
      if (!POLICY_OBJECTS.test(r.url.pathname) || !POLICIES.test(r.url.pathname)) return res;
      return mapJson(res, (j) => {
        if (j?.spec && typeof j.spec === 'object') delete j.spec.failurePolicy;
        return j;
      });
    },
  },
  {
    name: 'policy-type-checking-missing',
    breaks:
      "Kubernetes 1.28 (beyond doc3): a policy's status carries its type checking warnings (the proxy removes status.typeChecking from the answers about policies)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('type-checking')],
    response: (r, res) => {
      if (!POLICY_OBJECTS.test(r.url.pathname) || !POLICIES.test(r.url.pathname)) return res;
      return mapJson(res, (j) => {
        if (j?.status && typeof j.status === 'object') delete j.status.typeChecking;
        return j;
      });
    },
  },
  {
    name: 'policy-deny-and-warn-accepted',
    breaks:
      'Kubernetes 1.28 (beyond doc3): a binding may not list both Deny and Warn (the proxy drops Warn from such a binding, so it is accepted)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('binding-deny-and-warn')],
    request: (r) =>
      rewriteSpec(r, BINDINGS, (spec) => {
        const a = spec.validationActions;
        if (!Array.isArray(a) || !a.includes('Deny') || !a.includes('Warn')) return false;
        spec.validationActions = a.filter((x: unknown) => x !== 'Warn');
        return true;
      }),
  },
  {
    name: 'policy-expressions-uncompiled',
    breaks:
      "Kubernetes 1.28 (beyond doc3): a policy's validation expressions must compile to a bool when it is written (the proxy sends every validation expression as `true`)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('expression-not-compiling'), id('expression-not-bool'), id('expression-dyn-not-bool')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (typeof v.expression !== 'string' || v.expression === 'true') return false;
          v.expression = 'true';
          return true;
        }),
      ),
  },
  {
    name: 'policy-request-untyped',
    breaks:
      'doc2 § Expression language inputs: policies type some variables (request) and leave others dynamic, so an unknown field on a typed variable fails (the proxy writes `request.` as `object.`, as if request were dynamic)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('typed-request')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (typeof v.expression !== 'string' || !v.expression.includes('request.noSuchField')) return false;
          v.expression = v.expression.replaceAll('request.', 'object.');
          return true;
        }),
      ),
  },
  {
    name: 'policy-object-typed',
    breaks:
      'doc2 § Expression language inputs: object is dynamic in policies, so an unknown field passes type checking (the proxy refuses a policy naming an unknown field of object, as a server typing object would)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('dynamic-object')],
    response: (r, res) => {
      if (r.method !== 'POST' || !POLICY_OBJECTS.test(r.url.pathname) || !POLICIES.test(r.url.pathname)) return res;
      if (!r.body.toString('utf8').includes('object.noSuchField')) return res;
      return failure(
        422,
        'Invalid',
        "ValidatingAdmissionPolicy is invalid: spec.validations[0].expression: undefined field 'noSuchField'",
      );
    },
  },
  {
    name: 'policy-authorizer-denies-all',
    breaks:
      "doc2 § Expression language inputs: the authorizer library's check(verb).allowed() answers as the server's authorizers do (the proxy makes every allowed() false)",
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('authorizer')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (typeof v.expression !== 'string' || !v.expression.includes('.allowed()')) return false;
          v.expression = v.expression.replaceAll('.allowed()', '.allowed() && false');
          return true;
        }),
      ),
  },
  {
    name: 'policy-cost-unbounded',
    breaks:
      'doc2 § Limits: every expression runs under a runtime budget and halts with an error when it is exceeded (the proxy replaces an expression of six nested comprehensions by its value, as a server without a limit would evaluate it)',
    area: 'admission',
    server: POLICY_SERVER,
    catchers: [id('runtime-budget')],
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (typeof v.expression !== 'string' || (v.expression.match(/\.all\(/g) ?? []).length < 6) return false;
          v.expression = 'true';
          return true;
        }),
      ),
  },
];
