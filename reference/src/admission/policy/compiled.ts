// A policy's expressions compiled once per version of its spec (match conditions, composition
// variables, validations with their message expressions, audit annotations), in the policy
// environment of registry/kinds/policy-cel.ts. An expression that does not compile (which
// validation refuses, but a stored policy may predate a library) stays an error to report.
import { CompileCache } from '../../cel/cache.ts';
import type { Compiled } from '../../cel/compile.ts';
import {
  compilePolicyExpression,
  isCelIdentifier,
  type PolicyVariables,
} from '../../registry/kinds/policy-cel.ts';
import type { KObject } from '../../storage/types.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface CompiledValidation {
  expression: string;
  message: string;
  reason?: string;
  compiled: Compiled;
  messageExpression?: Compiled;
}

export interface CompiledPolicy {
  name: string;
  failurePolicy: string;
  paramKind?: Rec;
  matchConstraints: Rec;
  matchConditions: { name: string; expression: string; compiled: Compiled }[];
  variables: { name: string; compiled: Compiled }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; compiled: Compiled }[];
}

const cache = new CompileCache<CompiledPolicy>(256);

function build(p: KObject): CompiledPolicy {
  const spec = rec(p.spec);
  const hasParams = !!spec.paramKind && typeof spec.paramKind === 'object';
  const base: PolicyVariables = { hasParams, hasAuthorizer: true, variables: [] };
  const variables: CompiledPolicy['variables'] = [];
  for (const raw of list(spec.variables)) {
    const v = rec(raw);
    const name = text(v.name);
    const compiled = compilePolicyExpression(
      text(v.expression),
      { ...base, variables: variables.map((x) => x.name) },
      'any',
    );
    if (isCelIdentifier(name)) variables.push({ name, compiled });
  }
  const all: PolicyVariables = { ...base, variables: variables.map((x) => x.name) };
  return {
    name: p.metadata.name ?? '',
    failurePolicy: text(spec.failurePolicy) || 'Fail',
    paramKind: hasParams ? rec(spec.paramKind) : undefined,
    matchConstraints: rec(spec.matchConstraints),
    matchConditions: list(spec.matchConditions).map((raw) => {
      const c = rec(raw);
      const expression = text(c.expression);
      return { name: text(c.name), expression, compiled: compilePolicyExpression(expression, base, 'bool') };
    }),
    variables,
    validations: list(spec.validations).map((raw) => {
      const v = rec(raw);
      const expression = text(v.expression);
      const me = text(v.messageExpression);
      return {
        expression,
        message: text(v.message),
        reason: typeof v.reason === 'string' && v.reason ? v.reason : undefined,
        compiled: compilePolicyExpression(expression, all, 'bool'),
        messageExpression: me.trim()
          ? compilePolicyExpression(me, { ...all, hasAuthorizer: false }, 'string')
          : undefined,
      };
    }),
    auditAnnotations: list(spec.auditAnnotations).map((raw) => {
      const a = rec(raw);
      return {
        key: text(a.key),
        compiled: compilePolicyExpression(text(a.valueExpression).trim(), all, 'string-or-null'),
      };
    }),
  };
}

/** The compiled form of a stored policy (compiled once per distinct name and spec). */
export function compiledPolicy(p: KObject): CompiledPolicy {
  return cache.get(JSON.stringify([p.metadata.name, p.spec]), () => build(p));
}
