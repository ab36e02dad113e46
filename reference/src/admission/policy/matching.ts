// Whether a policy's match constraints (or a binding's match resources) select a request, as
// Kubernetes 1.28 decides it: the namespace selector (on the namespace's labels; a Namespace
// on its own labels; no effect on other cluster-scoped resources), the object selector (on the
// new or the old object's labels), a resource rule that matches (operation, group, version,
// resource and subresource, scope, names) and no exclude rule that does. With the Equivalent
// match policy a rule naming the same resource at another served version matches too.

import { type LabelSelectorObj, selectorMatches } from '../../registry/kinds/common.ts';
import type { Registry } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes } from '../types.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

const labelsOf = (o: KObject | undefined): Record<string, string> | undefined =>
  o?.metadata?.labels as Record<string, string> | undefined;

function resourceMatches(patterns: string[], resource: string, subresource: string): boolean {
  const full = subresource ? `${resource}/${subresource}` : resource;
  return patterns.some((p) => {
    if (p === '*/*' || p === full) return true;
    if (p === '*') return !subresource;
    const slash = p.indexOf('/');
    if (slash < 0) return false;
    const [res, sub] = [p.slice(0, slash), p.slice(slash + 1)];
    if (!subresource) return false;
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

const any = (values: string[], v: string) => values.includes('*') || values.includes(v);

/** Whether one rule matches the request at the given version of its resource. */
function ruleMatches(rule: Rec, a: AdmissionAttributes, version: string, namespaced: boolean): boolean {
  if (!any(strs(rule.operations), a.operation)) return false;
  if (!any(strs(rule.apiGroups), a.resource.group)) return false;
  if (!any(strs(rule.apiVersions), version)) return false;
  if (!resourceMatches(strs(rule.resources), a.resource.resource, a.subresource)) return false;
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  if (scope === 'Cluster' && namespaced) return false;
  if (scope === 'Namespaced' && !namespaced) return false;
  const names = strs(rule.resourceNames);
  return names.length === 0 || names.includes(a.name);
}

export class Matcher {
  constructor(private readonly registry: Registry) {}

  private served(a: AdmissionAttributes) {
    return this.registry.byResource(a.resource.group, a.resource.resource);
  }

  /** The namespace's labels the selector is matched against; undefined: the selector does not apply. */
  private namespaceLabels(a: AdmissionAttributes): Record<string, string> | undefined | 'none' {
    if (a.resource.group === '' && a.resource.resource === 'namespaces' && !a.subresource)
      return labelsOf(a.object ?? a.oldObject) ?? {};
    if (!a.namespace) return 'none';
    const ns = this.registry.storage.get(`core/namespaces//${a.namespace}`)?.obj;
    return labelsOf(ns) ?? {};
  }

  private rulesMatch(m: Rec, a: AdmissionAttributes): boolean {
    const served = this.served(a);
    const namespaced = served ? served.def.namespaced : a.namespace !== '';
    const versions = [a.resource.version];
    if (m.matchPolicy !== 'Exact' && served)
      for (const v of served.def.versions) if (!versions.includes(v)) versions.push(v);
    const matchesAt = (rules: unknown) =>
      (Array.isArray(rules) ? rules : []).some((r) =>
        versions.some((v) => ruleMatches(rec(r), a, v, namespaced)),
      );
    if (matchesAt(m.excludeResourceRules)) return false;
    // no resource rules (a binding's): every resource not excluded
    return !Array.isArray(m.resourceRules) || m.resourceRules.length === 0 || matchesAt(m.resourceRules);
  }

  /** Whether match resources select the request. */
  matches(m: Rec, a: AdmissionAttributes): boolean {
    const nsLabels = this.namespaceLabels(a);
    if (nsLabels !== 'none' && !selectorMatches(rec(m.namespaceSelector) as LabelSelectorObj, nsLabels))
      return false;
    const sel = rec(m.objectSelector) as LabelSelectorObj;
    const objects = [a.object, a.oldObject].filter((o): o is KObject => !!o);
    if (objects.length && !objects.some((o) => selectorMatches(sel, labelsOf(o)))) return false;
    if (!objects.length && !selectorMatches(sel, {})) return false;
    return this.rulesMatch(m, a);
  }

  /** A binding's match resources: none set selects every request its policy matches. */
  bindingMatches(m: unknown, a: AdmissionAttributes): boolean {
    return !m || typeof m !== 'object' ? true : this.matches(rec(m), a);
  }
}
