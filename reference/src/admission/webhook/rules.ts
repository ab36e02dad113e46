// Whether a webhook rule covers a request (doc3 "Webhook configuration objects", Kubernetes
// 1.28's rule matcher): scope, operation, group, version, and resource with its subresource
// patterns (`*` every resource without subresources, `*/*` everything, `<type>/*` every
// subresource of a type, `*/<sub>` one subresource of every type).
import type { GroupVersionResource, Operation } from '../types.ts';
import type { WebhookRule } from './accessor.ts';

export interface RuleAttributes {
  operation: Operation;
  resource: GroupVersionResource;
  subresource: string;
  /** The request's namespace; the object's own name for a Namespace. */
  namespace: string;
}

const isNamespaceResource = (r: GroupVersionResource) =>
  r.group === '' && r.version === 'v1' && r.resource === 'namespaces';

const exactOrWildcard = (items: string[], requested: string) =>
  items.some((i) => i === '*' || i === requested);

function scopeMatches(rule: WebhookRule, a: RuleAttributes): boolean {
  switch (rule.scope) {
    case '':
    case '*':
      return true;
    // a Namespace is cluster-scoped, though its requests name a namespace (itself)
    case 'Namespaced':
      return !isNamespaceResource(a.resource) && a.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(a.resource) || a.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(rule: WebhookRule, a: RuleAttributes): boolean {
  return rule.resources.some((pattern) => {
    const slash = pattern.indexOf('/');
    const res = slash < 0 ? pattern : pattern.slice(0, slash);
    const sub = slash < 0 ? '' : pattern.slice(slash + 1);
    return (res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource);
  });
}

export function ruleMatches(rule: WebhookRule, a: RuleAttributes): boolean {
  return (
    scopeMatches(rule, a) &&
    exactOrWildcard(rule.operations, a.operation) &&
    exactOrWildcard(rule.apiGroups, a.resource.group) &&
    exactOrWildcard(rule.apiVersions, a.resource.version) &&
    resourceMatches(rule, a)
  );
}
