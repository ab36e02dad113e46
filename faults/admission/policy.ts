// Faults against validating admission policies (doc3's plugin table row ValidatingAdmissionPolicy,
// doc2's expression language as policies use it, and what Kubernetes 1.28 shows beyond the
// text); suites/admission/policy.test.ts must catch every one. Each rewrites the policies or
// bindings a client writes (so the server enforces something else), or the answers about them
// and about the writes they refuse. They run against a server with the policy gate on and the
// policy API served, declared to the suite (POLICY_SERVER).
import type { FaultHooks, FaultServerOptions, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
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

/** A create or replace of a policy (`POLICIES`) or binding (`BINDINGS`), its spec changed by `f` (left alone when `f` changes nothing). */
function rewriteSpec(r: ProxiedRequest, which: RegExp, f: (spec: Rec) => boolean): ProxiedRequest {
  if (
    (r.method !== 'POST' && r.method !== 'PUT') ||
    !POLICY_OBJECTS.test(r.url.pathname) ||
    !which.test(r.url.pathname)
  )
    return r;
  const b = bodyOf(r.body);
  if (!b?.spec || typeof b.spec !== 'object') return r;
  return f(b.spec) ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
}

/** Every validation of a policy spec whose expression `f` rewrites (true when one changed). */
function rewriteValidations(spec: Rec, f: (v: Rec) => boolean): boolean {
  let changed = false;
  for (const v of Array.isArray(spec.validations) ? spec.validations : [])
    if (v && typeof v === 'object' && f(v)) changed = true;
  return changed;
}

/** A refusal of a write by a policy (its Status names the policy). */
const isPolicyDenial = (res: ProxiedResponse) =>
  res.status >= 400 && res.body.toString('utf8').includes('denied request');

export const HOOKS: FaultHooks[] = [
  {
    name: 'policy-deny-not-enforced',
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
    response: (_r, res) => {
      if (res.status !== 422 || !isPolicyDenial(res)) return res;
      return mapJson({ ...res, status: 403 }, (j) => ({ ...j, code: 403, reason: 'Forbidden' }));
    },
  },
  {
    name: 'policy-reason-ignored',
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
    response: (_r, res) => {
      const w = res.headers.warning;
      if (w === undefined) return res;
      const lines = (Array.isArray(w) ? w : [w]).filter(
        (x) => !x.includes('Validation failed for ValidatingAdmissionPolicy'),
      );
      const headers = { ...res.headers };
      if (lines.length) headers.warning = lines;
      else delete headers.warning;
      return { ...res, headers };
    },
  },
  {
    name: 'policy-params-not-found-allowed',
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
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) => {
        if (spec.failurePolicy !== 'Ignore') return false;
        spec.failurePolicy = 'Fail';
        return true;
      }),
  },
  {
    name: 'policy-defaults-missing',
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
    response: (r, res) => {
      if (r.method !== 'POST' || !POLICY_OBJECTS.test(r.url.pathname) || !POLICIES.test(r.url.pathname))
        return res;
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
    request: (r) =>
      rewriteSpec(r, POLICIES, (spec) =>
        rewriteValidations(spec, (v) => {
          if (typeof v.expression !== 'string' || (v.expression.match(/\.all\(/g) ?? []).length < 6)
            return false;
          v.expression = 'true';
          return true;
        }),
      ),
  },
];
