// Policy rules of role-based access control: whether a rule allows a request (Kubernetes'
// RuleAllows), and whether a set of rules covers another (escalation prevention), with the
// missing rules printed as Kubernetes prints them.
import type { AuthorizationAttributes } from '../types.ts';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

/** A rule as stored, with anything that is not a list of strings dropped (never more access). */
export function toRule(v: unknown): PolicyRule | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const r: PolicyRule = { verbs: strings(o.verbs) ?? [] };
  for (const k of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    const s = strings(o[k]);
    if (s?.length) r[k] = s;
  }
  return r;
}

export function toRules(v: unknown): PolicyRule[] {
  if (!Array.isArray(v)) return [];
  const out: PolicyRule[] = [];
  for (const x of v) {
    const r = toRule(x);
    if (r) out.push(r);
  }
  return out;
}

const has = (list: readonly string[] | undefined, v: string) =>
  !!list && (list.includes('*') || list.includes(v));

function resourceMatches(rule: PolicyRule, combined: string, sub: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // `*/scale` matches the scale subresource of every resource
    if (sub && r.length === sub.length + 2 && r.startsWith('*/') && r.endsWith(sub)) return true;
  }
  return false;
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule allows the request. */
export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return urlMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  if (!resourceMatches(rule, combined, a.subresource)) return false;
  return !rule.resourceNames?.length || rule.resourceNames.includes(a.name);
}

// ------------------------------------------------------------------ coverage

/** One rule per verb, group, resource (and name) or per verb and URL. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    for (const g of rule.apiGroups ?? [])
      for (const r of rule.resources ?? []) {
        if (rule.resourceNames?.length)
          for (const n of rule.resourceNames)
            out.push({ verbs: [verb], apiGroups: [g], resources: [r], resourceNames: [n] });
        else out.push({ verbs: [verb], apiGroups: [g], resources: [r] });
      }
    for (const u of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [u] });
  }
  return out;
}

function resourceCovers(owner: readonly string[], r: string): boolean {
  if (owner.includes('*') || owner.includes(r)) return true;
  const slash = r.indexOf('/');
  return slash >= 0 && owner.includes(`*${r.slice(slash)}`);
}

function urlCovers(owner: readonly string[], u: string): boolean {
  for (const o of owner) {
    if (o === u || o === '*') return true;
    if (o.endsWith('*') && u.startsWith(o.slice(0, -1))) return true;
  }
  return false;
}

/** Whether an owner rule covers a broken-down rule. */
function covers(owner: PolicyRule, r: PolicyRule): boolean {
  if (!r.verbs.every((v) => owner.verbs.includes('*') || owner.verbs.includes(v))) return false;
  if (r.nonResourceURLs?.length)
    return !!owner.nonResourceURLs && r.nonResourceURLs.every((u) => urlCovers(owner.nonResourceURLs!, u));
  if (!owner.apiGroups || !owner.resources) return false;
  if (!(r.apiGroups ?? []).every((g) => owner.apiGroups!.includes('*') || owner.apiGroups!.includes(g)))
    return false;
  if (!(r.resources ?? []).every((x) => resourceCovers(owner.resources!, x))) return false;
  if (!owner.resourceNames?.length) return true;
  return !!r.resourceNames?.length && r.resourceNames.every((n) => owner.resourceNames!.includes(n));
}

/** The rules of `wanted` that `owner` does not cover, broken down and compacted as Kubernetes prints them. */
export function missingRules(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): string[] {
  const missing: PolicyRule[] = [];
  for (const w of wanted) for (const r of breakdown(w)) if (!owner.some((o) => covers(o, r))) missing.push(r);
  // compact: the verbs of rules that differ only by verb are merged
  const merged = new Map<string, PolicyRule>();
  for (const r of missing) {
    const key = JSON.stringify([r.apiGroups, r.resources, r.resourceNames, r.nonResourceURLs]);
    const m = merged.get(key);
    if (m) {
      if (!m.verbs.includes(r.verbs[0]!)) m.verbs.push(r.verbs[0]!);
    } else merged.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...new Set([...merged.values()].map(compactString))].sort();
}

const goQuoted = (l: readonly string[]) => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;

/** Kubernetes' CompactString of a rule: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoted(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoted(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoted(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuoted(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
