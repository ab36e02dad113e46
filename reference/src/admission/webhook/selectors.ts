// The two label selectors of a webhook (doc3 "Webhook configuration objects", Kubernetes
// 1.28's matchers). namespaceSelector: the labels of the request's namespace, or of the
// Namespace object itself (the new object, the stored one on DELETE); other cluster-scoped
// requests always match. objectSelector: the new or the old object's labels; an empty selector
// matches everything.
import { errors, type StatusError } from '../../errors/status.ts';
import { type LabelSelectorObj, selectorIsEmpty, selectorMatches } from '../../registry/kinds/common.ts';
import type { Registry } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes } from '../types.ts';

export type SelectorResult = { matches: boolean; error?: undefined } | { matches: false; error: StatusError };

const labelsOf = (o: KObject | undefined): Record<string, string> | undefined =>
  o?.metadata && typeof o.metadata === 'object'
    ? (o.metadata.labels as Record<string, string> | undefined)
    : undefined;

const isNamespaces = (a: AdmissionAttributes) =>
  a.resource.group === '' && a.resource.resource === 'namespaces';

export function matchNamespaceSelector(
  registry: Registry,
  sel: LabelSelectorObj,
  a: AdmissionAttributes,
): SelectorResult {
  if (!a.namespace && !isNamespaces(a)) return { matches: true };
  if (selectorIsEmpty(sel)) return { matches: true };
  let labels: Record<string, string> | undefined;
  if (isNamespaces(a) && a.operation !== 'DELETE') labels = labelsOf(a.object);
  else {
    const name = isNamespaces(a) ? a.name || a.namespace : a.namespace;
    const ns = registry.storage.get(`core/namespaces//${name}`)?.obj;
    if (!ns) return { matches: false, error: errors.notFound('', 'namespaces', name) };
    labels = labelsOf(ns);
  }
  return { matches: selectorMatches(sel, labels) };
}

export function matchObjectSelector(sel: LabelSelectorObj, a: AdmissionAttributes): boolean {
  if (selectorIsEmpty(sel)) return true;
  const match = (o: KObject | undefined) => o !== undefined && selectorMatches(sel, labelsOf(o));
  return match(a.object) || match(a.oldObject);
}
