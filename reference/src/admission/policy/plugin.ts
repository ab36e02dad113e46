// The ValidatingAdmissionPolicy plugin (doc3's plugin table): every stored policy that matches a
// write is evaluated for each of its bindings that match (and each parameter object the binding
// selects), as Kubernetes 1.28 does with the ValidatingAdmissionPolicy feature gate on:
//
//  - a failed validation acts as the binding says: Deny refuses the request (the first denial,
//    with its reason: 422 Invalid unless the validation names Forbidden, Unauthorized or
//    RequestEntityTooLarge), Warn adds a Warning header, Audit an audit annotation;
//  - an evaluation error, a missing policy or parameter kind, missing parameters: the policy's
//    failure policy decides (Fail refuses, Ignore admits);
//  - audit annotations are published as `<policy>/<key>`.
//
// Requests on the policies and bindings themselves are never evaluated. With the gate off the
// plugin does nothing.

import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { AuthorizerFn } from '../../cel/library-authorizer.ts';
import { qualifiedResource, type Reason, StatusError } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';
import { celAuthorizer } from '../cel-authorizer.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { type CompiledPolicy, compiledPolicy } from './compiled.ts';
import { type AnnotationResult, type Decision, validate } from './evaluate.ts';
import { Matcher } from './matching.ts';
import { collectParams, ParamError } from './params.ts';

const GROUP = 'admissionregistration.orch.io';
const POLICIES = 'validatingadmissionpolicies';
const BINDINGS = 'validatingadmissionpolicybindings';
/** The audit annotation of a failed validation whose binding says Audit. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.orch.io/validation_failure';
/** An audit annotation's value is cut to this many characters. */
const MAX_ANNOTATION_VALUE = 10 * 1024;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

interface Denial extends Pick<Decision, 'message' | 'reason'> {
  policy: string;
  binding?: string;
}

const CODES: Record<string, number> = {
  Forbidden: 403,
  Unauthorized: 401,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

function stored(registry: Registry, plural: string): KObject[] {
  const served = registry.byResource(GROUP, plural);
  if (!served) return [];
  return registry.storage.list(served.store.bucket, `${served.store.bucket}/`).map((s) => s.obj);
}

/** The review request as `request` shows it (without object and old object). */
function reviewRequest(a: AdmissionAttributes): Record<string, unknown> {
  const u = a.ctx.user;
  return {
    uid: '',
    kind: a.kind,
    resource: a.resource,
    subResource: a.subresource,
    requestKind: a.requestKind,
    requestResource: a.requestResource,
    requestSubResource: a.subresource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: { username: u.username, uid: u.uid ?? '', groups: u.groups ?? [], extra: u.extra ?? {} },
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
}

/** The first denial as Kubernetes 1.28 answers it: NewForbidden's message, the denial's reason and its code. */
function denialError(d: Denial, a: AdmissionAttributes): StatusError {
  const message = d.binding
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const name = a.name || a.object?.metadata?.name || '';
  const resource = qualifiedResource(a.resource.group, a.resource.resource);
  const full = name
    ? `${resource} ${JSON.stringify(name)} is forbidden: ${message}`
    : `${resource} is forbidden: ${message}`;
  const reason = d.reason || 'Invalid';
  return new StatusError(CODES[reason] ?? 422, reason as Reason, full, {
    name,
    group: a.resource.group || undefined,
    kind: a.resource.resource,
    causes: [{ message }],
  });
}

/** What the plugin is made with (the catalog's PluginEnv has it). */
export interface PolicyPluginEnv {
  registry: Registry;
  authorizer: AuthorizerChain;
  options: { featureGates: Record<string, boolean> };
}

/** One request under review: the denials found so far, the audit annotations made, the namespace. */
class Review {
  readonly denials: Denial[] = [];
  private readonly annotated = new Set<string>();
  private namespaceObject: KObject | undefined | null;

  constructor(
    private readonly registry: Registry,
    readonly a: AdmissionAttributes,
    readonly authz: AuthorizerFn,
  ) {}

  /** An audit annotation, once per key (the first value stays). */
  annotate(key: string, value: string): void {
    if (this.annotated.has(key)) return;
    this.annotated.add(key);
    this.a.ctx.audit?.annotate(key, value);
  }

  /** The namespace of the request's object, read once (null: none, or the object is a namespace). */
  nsObject(): KObject | null {
    if (this.namespaceObject === undefined) {
      const a = this.a;
      const isNamespace = a.kind.group === '' && a.kind.kind === 'Namespace';
      this.namespaceObject =
        a.namespace && !isNamespace
          ? (this.registry.storage.get(`core/namespaces//${a.namespace}`)?.obj ?? null)
          : null;
    }
    return this.namespaceObject;
  }

  /** A policy or binding that cannot be used: a denial unless the policy's failure policy ignores it. */
  configError(policy: CompiledPolicy, message: string, binding?: string): void {
    if (policy.failurePolicy === 'Ignore') return;
    this.denials.push({
      policy: policy.name,
      binding,
      message: binding ? `failed to configure binding: ${message}` : `failed to configure policy: ${message}`,
    });
  }

  /** The parameter objects a binding selects (undefined: it cannot be used, and that was noted). */
  paramsOf(policy: CompiledPolicy, spec: Rec, binding: string): (KObject | null)[] | undefined {
    try {
      return collectParams(this.registry, policy.paramKind, spec.paramRef, this.a.namespace);
    } catch (e) {
      if (!(e instanceof ParamError)) throw e;
      this.configError(policy, e.message, binding);
      return undefined;
    }
  }

  /** A failed validation, or an evaluation error under Fail, acts as the binding says. */
  act(policy: CompiledPolicy, binding: string, actions: string[], decisions: Decision[]): void {
    for (const d of decisions) {
      if (d.action !== 'deny') continue;
      for (const action of actions) {
        if (action === 'Deny')
          this.denials.push({ policy: policy.name, binding, message: d.message, reason: d.reason });
        else if (action === 'Warn')
          this.a.ctx.warnings.push(
            `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding}': ${d.message}`,
          );
        else if (action === 'Audit')
          this.annotate(
            VALIDATION_FAILURE_ANNOTATION,
            JSON.stringify([
              {
                message: d.message,
                policy: policy.name,
                binding,
                expressionIndex: d.index,
                validationActions: actions,
              },
            ]),
          );
      }
    }
  }

  /** Collects the audit annotation values of one evaluation; one that failed under Fail is a denial. */
  collect(
    policy: CompiledPolicy,
    binding: string,
    annotations: AnnotationResult[],
    collected: Map<string, string[]>,
  ): void {
    for (const an of annotations) {
      if (an.action === 'publish') {
        const values = collected.get(an.key) ?? [];
        const v = an.value!.slice(0, MAX_ANNOTATION_VALUE);
        if (!values.includes(v)) values.push(v);
        collected.set(an.key, values);
      } else if (an.action === 'error')
        this.denials.push({ policy: policy.name, binding, message: an.error ?? '' });
    }
  }
}

/** Evaluates every matching policy for each of its matching bindings and parameter objects. */
async function review(
  registry: Registry,
  matcher: Matcher,
  authorizer: AuthorizerChain,
  a: AdmissionAttributes,
): Promise<void> {
  const policies = stored(registry, POLICIES);
  if (policies.length === 0) return;
  const bindings = stored(registry, BINDINGS);
  const r = new Review(registry, a, celAuthorizer(authorizer, a.ctx.user));
  for (const p of policies.sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1))) {
    const policy: CompiledPolicy = compiledPolicy(p);
    if (!matcher.matches(policy.matchConstraints, a)) continue;
    const collected = new Map<string, string[]>();
    for (const b of bindings) {
      const spec = rec(b.spec);
      if (spec.policyName !== policy.name) continue;
      const binding = b.metadata.name ?? '';
      if (!matcher.bindingMatches(spec.matchResources, a)) continue;
      const params = r.paramsOf(policy, spec, binding);
      if (!params) continue;
      const actions = strs(spec.validationActions);
      for (const param of params) {
        const result = await validate(policy, {
          object: a.operation === 'DELETE' ? null : a.object,
          oldObject: a.oldObject ?? null,
          params: param,
          namespaceObject: r.nsObject(),
          request: reviewRequest(a),
          authorizer: r.authz,
        });
        r.act(policy, binding, actions, result.decisions);
        r.collect(policy, binding, result.annotations, collected);
      }
    }
    for (const [key, values] of collected) r.annotate(`${policy.name}/${key}`, values.join(', '));
  }
  if (r.denials.length) throw denialError(r.denials[0]!, a);
}

export function validatingAdmissionPolicy(env: PolicyPluginEnv): AdmissionPlugin {
  const { registry, authorizer } = env;
  const on = env.options.featureGates.ValidatingAdmissionPolicy === true;
  const matcher = new Matcher(registry);
  return {
    name: 'ValidatingAdmissionPolicy',
    handles: (a) =>
      on &&
      !(a.resource.group === GROUP && (a.resource.resource === POLICIES || a.resource.resource === BINDINGS)),
    validate: (a) => review(registry, matcher, authorizer, a),
  };
}
