// What ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding share
// (admissionregistration.orch.io v1beta1 and v1alpha1, off unless switched on, as in
// Kubernetes 1.28): the versions, the match resources schema, its defaults and its validation.
import type { StatusCause } from '../../errors/status.ts';
import { arr, mapOf, obj, str } from '../../schema/dsl.ts';
import type { Schema } from '../../schema/types.ts';
import { Causes, type LabelSelectorObj, validateLabelSelector } from './common.ts';
import { ADMISSION_GROUP, list, type Rec, rec, text, validateRule } from './webhook-common.ts';

export { ADMISSION_GROUP, list, type Rec, rec, text };

/** The versions both kinds are served at (preferred first); neither is on by default in 1.28. */
export const POLICY_VERSIONS = ['v1beta1', 'v1alpha1'];

/** `--runtime-config` entries that switch the policy API on. */
export const POLICY_GROUP_VERSIONS = POLICY_VERSIONS.map((v) => `${ADMISSION_GROUP}/${v}`);

export const isObj = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

// ------------------------------------------------------------------ schema

const atomic = (items: Schema): Schema => arr(items, { 'x-orch-list-type': 'atomic' });

export const labelSelector: Schema = obj(
  {
    matchLabels: mapOf(str()),
    matchExpressions: atomic(obj({ key: str(), operator: str(), values: atomic(str()) })),
  },
  { 'x-orch-map-type': 'atomic' },
);

const namedRule: Schema = obj({
  resourceNames: atomic(str()),
  operations: atomic(str()),
  apiGroups: atomic(str()),
  apiVersions: atomic(str()),
  resources: atomic(str()),
  scope: str(),
});

export const matchResources: Schema = obj(
  {
    namespaceSelector: labelSelector,
    objectSelector: labelSelector,
    resourceRules: atomic(namedRule),
    excludeResourceRules: atomic(namedRule),
    matchPolicy: str(),
  },
  { 'x-orch-map-type': 'atomic' },
);

// ------------------------------------------------------------------ defaults

/** Kubernetes 1.28's defaults of a MatchResources (and of the rules in it). */
export function defaultMatchResources(m: Rec): void {
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const key of ['resourceRules', 'excludeResourceRules'])
    for (const r of list(m[key])) if (isObj(r)) r.scope ??= '*';
}

// ------------------------------------------------------------------ validation

const MATCH_POLICIES = ['Equivalent', 'Exact'];

/** Go's ValidatePathSegmentName: each problem its own message. */
export function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const out: string[] = [];
  if (name.includes('/')) out.push("may not contain '/'");
  if (name.includes('%')) out.push("may not contain '%'");
  return out;
}

function validateNamedRule(field: string, r: Rec): StatusCause[] {
  const out = new Causes();
  const seen = new Set<string>();
  list(r.resourceNames).forEach((raw, i) => {
    const n = text(raw);
    for (const p of pathSegmentProblems(n)) out.invalid(`${field}.resourceNames[${i}]`, n, p);
    if (seen.has(n)) out.duplicate(`${field}.resourceNames[${i}]`, n);
    else seen.add(n);
  });
  out.push(...validateRule(field, r));
  return out;
}

/** A MatchResources (after defaults): match policy, selectors, rules. */
export function validateMatchResources(field: string, m: Rec): StatusCause[] {
  const out = new Causes();
  if (m.matchPolicy === undefined || m.matchPolicy === null) out.required(`${field}.matchPolicy`);
  else out.oneOf(`${field}.matchPolicy`, m.matchPolicy, MATCH_POLICIES);
  for (const k of ['namespaceSelector', 'objectSelector']) {
    if (m[k] === undefined || m[k] === null) out.required(`${field}.${k}`);
    else out.push(...validateLabelSelector(`${field}.${k}`, rec(m[k]) as LabelSelectorObj));
  }
  list(m.resourceRules).forEach((r, i) => {
    out.push(...validateNamedRule(`${field}.resourceRules[${i}]`, rec(r)));
  });
  list(m.excludeResourceRules).forEach((r, i) => {
    out.push(...validateNamedRule(`${field}.excludeResourceRules[${i}]`, rec(r)));
  });
  return out;
}
