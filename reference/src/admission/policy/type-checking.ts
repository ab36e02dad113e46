// Type checking of a policy against the resources it matches, as Kubernetes 1.28's policy status
// controller does it: for each group/version/kind its match constraints name exactly (no `*`, no
// subresource; at most ten), the validation expressions, message expressions and audit annotation
// values are compiled with `object` and `oldObject` typed by that resource's schema (and `params`
// by the parameter kind's); each expression that fails for some kind gets a warning listing,
// per kind, `<group>/<version>, Kind=<Kind>: <the compiler's report>`.
import type { Registry } from '../../registry/registry.ts';
import { typedCompiler } from '../../registry/kinds/policy-cel.ts';
import { schemaFor } from '../../registry/types.ts';
import type { ValueSchema } from '../../schema/validate.ts';
import type { KObject } from '../../storage/types.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Kubernetes checks at most this many kinds per policy. */
const MAX_TYPES = 10;

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

interface Typed {
  gvk: string;
  schema: ValueSchema;
}

/** The kinds the match constraints name exactly, with their schemas. */
function matchedKinds(registry: Registry, spec: Rec): Typed[] {
  const out: Typed[] = [];
  const seen = new Set<string>();
  for (const raw of list(rec(spec.matchConstraints).resourceRules)) {
    const r = rec(raw);
    for (const group of strs(r.apiGroups))
      for (const version of strs(r.apiVersions))
        for (const resource of strs(r.resources)) {
          if (group === '*' || version === '*' || resource.includes('*') || resource.includes('/')) continue;
          const served = registry.lookup(group, version, resource);
          if (!served) continue;
          const gvk = `${group}/${version}, Kind=${served.def.kind}`;
          const schema = schemaFor(served.def, version) as ValueSchema | undefined;
          if (!schema || seen.has(gvk)) continue;
          seen.add(gvk);
          out.push({ gvk, schema });
          if (out.length >= MAX_TYPES) return out;
        }
  }
  return out;
}

/** The parameter kind's schema, when the registry serves it. */
function paramSchema(registry: Registry, pk: Rec): ValueSchema | undefined {
  const apiVersion = text(pk.apiVersion);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  for (const s of registry.all())
    if (s.def.group === group && s.def.kind === text(pk.kind) && s.def.versions.includes(version))
      return schemaFor(s.def, version) as ValueSchema | undefined;
  return undefined;
}

/** The warnings of a policy's expressions, in field order. */
export function typeCheck(registry: Registry, policy: KObject): ExpressionWarning[] {
  const spec = rec(policy.spec);
  const kinds = matchedKinds(registry, spec);
  if (kinds.length === 0) return [];
  const hasParams = !!spec.paramKind && typeof spec.paramKind === 'object';
  const params = hasParams ? paramSchema(registry, rec(spec.paramKind)) : undefined;
  const variables = list(spec.variables)
    .map((v) => text(rec(v).name))
    .filter(Boolean);
  const expressions: { fieldRef: string; source: string; messages: boolean }[] = [];
  list(spec.validations).forEach((raw, i) => {
    const v = rec(raw);
    if (text(v.expression).trim())
      expressions.push({
        fieldRef: `spec.validations[${i}].expression`,
        source: text(v.expression),
        messages: false,
      });
    if (text(v.messageExpression).trim())
      expressions.push({
        fieldRef: `spec.validations[${i}].messageExpression`,
        source: text(v.messageExpression),
        messages: true,
      });
  });
  list(spec.auditAnnotations).forEach((raw, i) => {
    const a = rec(raw);
    if (text(a.valueExpression).trim())
      expressions.push({
        fieldRef: `spec.auditAnnotations[${i}].valueExpression`,
        source: text(a.valueExpression),
        messages: false,
      });
  });
  const problems = new Map<string, string[]>();
  for (const k of kinds) {
    const withAuthorizer = typedCompiler(
      { hasParams, hasAuthorizer: true, variables },
      { object: k.schema, params },
    );
    const withoutAuthorizer = typedCompiler(
      { hasParams, hasAuthorizer: false, variables },
      { object: k.schema, params },
    );
    for (const e of expressions) {
      const c = (e.messages ? withoutAuthorizer : withAuthorizer)(e.source);
      if ('error' in c)
        problems.set(e.fieldRef, [...(problems.get(e.fieldRef) ?? []), `${k.gvk}: ${c.error}`]);
    }
  }
  return expressions
    .filter((e) => problems.has(e.fieldRef))
    .map((e) => ({ fieldRef: e.fieldRef, warning: problems.get(e.fieldRef)!.join('\n') }));
}
