// Whether a webhook is called for a request, and in which form (Kubernetes 1.28's order):
// namespaceSelector and objectSelector, then the rules (the request's own resource first,
// then, under `matchPolicy: Equivalent`, the other forms of the same resource), then the
// match conditions over the objects in the matched form. A selector that cannot be evaluated
// (the namespace does not exist) fails the request only when a rule matched.
import { errors, qualifiedResource, type StatusError } from '../../errors/status.ts';
import type { AuthorizerFn } from '../../cel/library-authorizer.ts';
import type { Registry } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes } from '../types.ts';
import type { WebhookAccessor } from './accessor.ts';
import { equivalentsOf } from './equivalent.ts';
import { evaluateMatchConditions } from './match-conditions.ts';
import { type Invocation, reviewRequest, type VersionedObjects } from './review.ts';
import { ruleMatches } from './rules.ts';
import { matchNamespaceSelector, matchObjectSelector } from './selectors.ts';

export interface Match extends Invocation {
  hook: WebhookAccessor;
  /** The request's objects in this form (converted under Equivalent), and back. */
  versioned: VersionedObjects;
  /** The webhook's form of an object back to the request's form (identity when they are one). */
  back(o: KObject): KObject;
}

export type MatchOutcome = { match?: Match; error?: undefined } | { match?: undefined; error: StatusError };

const identity = <T>(o: T) => o;

/** The webhook configuration kinds and policies are never sent to webhooks (Kubernetes 1.28). */
const EXEMPT = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
]);

export function isExempt(a: AdmissionAttributes): boolean {
  return a.resource.group === 'admissionregistration.orch.io' && EXEMPT.has(a.resource.resource);
}

export async function matchWebhook(
  registry: Registry,
  hook: WebhookAccessor,
  a: AdmissionAttributes,
  authorizer: () => AuthorizerFn,
): Promise<MatchOutcome> {
  const ns = matchNamespaceSelector(registry, hook.namespaceSelector, a);
  if (!ns.matches && !ns.error) return {};
  if (!matchObjectSelector(hook.objectSelector, a)) return {};
  // a Namespace's own requests name it as their namespace (the rules' scope reads it so)
  const isNs = a.resource.group === '' && a.resource.resource === 'namespaces';
  const ruleAttrs = {
    operation: a.operation,
    resource: a.resource,
    subresource: a.subresource,
    namespace: isNs ? a.name || a.namespace : a.namespace,
  };
  let match: Match | undefined;
  if (hook.rules.some((r) => ruleMatches(r, ruleAttrs)))
    match = {
      hook,
      resource: a.resource,
      subresource: a.subresource,
      kind: a.kind,
      versioned: { object: a.object, oldObject: a.oldObject },
      back: identity,
    };
  if (!match && hook.matchPolicy === 'Equivalent') {
    const equivalents = equivalentsOf(registry, a.resource, a.kind, a.subresource);
    outer: for (const rule of hook.rules)
      for (const eq of equivalents)
        if (ruleMatches(rule, { ...ruleAttrs, resource: eq.resource })) {
          match = {
            hook,
            resource: eq.resource,
            subresource: a.subresource,
            kind: eq.kind,
            versioned: {
              object: a.object && eq.convert(a.object),
              oldObject: a.oldObject && eq.convert(a.oldObject),
            },
            back: eq.back,
          };
          break outer;
        }
  }
  if (!match) return {};
  if (ns.error) return { error: ns.error };
  if (hook.matchConditions.length) {
    const request = reviewRequest(a, match, match.versioned, '', false);
    const c = await evaluateMatchConditions(
      hook,
      { ...match.versioned, operation: a.operation },
      request,
      authorizer(),
    );
    if (!c.matches) {
      if (c.error === undefined) return {};
      const what = qualifiedResource(a.resource.group, a.resource.resource);
      return {
        error: errors.forbidden(
          a.name
            ? `${what} ${JSON.stringify(a.name)} is forbidden: ${c.error}`
            : `${what} is forbidden: ${c.error}`,
          {
            name: a.name || undefined,
            group: a.resource.group || undefined,
            kind: a.resource.resource,
          },
        ),
      };
    }
  }
  return { match };
}
