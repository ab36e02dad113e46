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
import { qualifiedResource, type Reason, StatusError } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';
import { celAuthorizer } from '../cel-authorizer.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { type CompiledPolicy, compiledPolicy } from './compiled.ts';
import { type Decision, validate } from './evaluate.ts';
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

export function validatingAdmissionPolicy(env: PolicyPluginEnv): AdmissionPlugin {
  const { registry, authorizer } = env;
  const on = env.options.featureGates.ValidatingAdmissionPolicy === true;
  const matcher = new Matcher(registry);
  return {
    name: 'ValidatingAdmissionPolicy',
    handles: (a) =>
      on &&
      !(a.resource.group === GROUP && (a.resource.resource === POLICIES || a.resource.resource === BINDINGS)),
    async validate(a) {
      const policies = stored(registry, POLICIES);
      if (policies.length === 0) return;
      const bindings = stored(registry, BINDINGS);
      const denials: Denial[] = [];
      const annotated = new Set<string>();
      const annotate = (key: string, value: string) => {
        if (annotated.has(key)) return;
        annotated.add(key);
        a.ctx.audit?.annotate(key, value);
      };
      const authz = celAuthorizer(authorizer, a.ctx.user);
      let namespaceObject: KObject | undefined | null;
      const nsObject = () => {
        if (namespaceObject === undefined) {
          const isNamespace = a.kind.group === '' && a.kind.kind === 'Namespace';
          namespaceObject =
            a.namespace && !isNamespace
              ? (registry.storage.get(`core/namespaces//${a.namespace}`)?.obj ?? null)
              : null;
        }
        return namespaceObject;
      };
      for (const p of policies.sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1))) {
        const policy: CompiledPolicy = compiledPolicy(p);
        const configError = (message: string, binding?: string) => {
          if (policy.failurePolicy === 'Ignore') return;
          denials.push({
            policy: policy.name,
            binding,
            message: binding
              ? `failed to configure binding: ${message}`
              : `failed to configure policy: ${message}`,
          });
        };
        if (!matcher.matches(policy.matchConstraints, a)) continue;
        const collected = new Map<string, string[]>();
        for (const b of bindings) {
          const spec = rec(b.spec);
          if (spec.policyName !== policy.name) continue;
          const binding = b.metadata.name ?? '';
          if (!matcher.bindingMatches(spec.matchResources, a)) continue;
          let params: (KObject | null)[];
          try {
            params = collectParams(registry, policy.paramKind, spec.paramRef, a.namespace);
          } catch (e) {
            if (!(e instanceof ParamError)) throw e;
            configError(e.message, binding);
            continue;
          }
          const actions = strs(spec.validationActions);
          for (const param of params) {
            const result = await validate(policy, {
              object: a.operation === 'DELETE' ? null : a.object,
              oldObject: a.oldObject ?? null,
              params: param,
              namespaceObject: nsObject(),
              request: reviewRequest(a),
              authorizer: authz,
            });
            for (const d of result.decisions) {
              // a failed validation, or an evaluation error under Fail, acts as the binding says
              if (d.action !== 'deny') continue;
              for (const action of actions) {
                if (action === 'Deny')
                  denials.push({ policy: policy.name, binding, message: d.message, reason: d.reason });
                else if (action === 'Warn')
                  a.ctx.warnings.push(
                    `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding}': ${d.message}`,
                  );
                else if (action === 'Audit')
                  annotate(
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
            for (const an of result.annotations) {
              if (an.action === 'publish') {
                const values = collected.get(an.key) ?? [];
                const v = an.value!.slice(0, MAX_ANNOTATION_VALUE);
                if (!values.includes(v)) values.push(v);
                collected.set(an.key, values);
              } else if (an.action === 'error')
                denials.push({ policy: policy.name, binding, message: an.error ?? '' });
            }
          }
        }
        for (const [key, values] of collected) annotate(`${policy.name}/${key}`, values.join(', '));
      }
      if (denials.length) throw denialError(denials[0]!, a);
    },
  };
}
