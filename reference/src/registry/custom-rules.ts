// Validation rules of custom definitions (`x-orch-validations` at any node of a version's
// schema): compiled and fully type checked once per schema (a definition version), refused at
// definition time when they do not compile or may cost too much, and evaluated at every write of
// a custom resource with `self` (and, for transition rules, `oldSelf`), reporting every violated
// rule at once, as Kubernetes 1.28 does.
// Compiling is here; definition-time checks are in custom-rules-definition.ts, write-time
// evaluation in custom-rules-eval.ts.
import type { Environment } from '@marcbachmann/cel-js';
import { CompileCache } from '../cel/cache.ts';
import { type Compiled, compile } from '../cel/compile.ts';
import { newEnvironment } from '../cel/environment.ts';
import { celEquals } from '../cel/equality.ts';
import { mul } from '../cel/estimate-calls.ts';
import { type DeclType, declare, type MessageDeclaration } from '../cel/types.ts';
import type { ValueSchema } from '../schema/validate.ts';

export interface RuleSpec {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

export const RULE_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

export interface CompiledRule {
  spec: RuleSpec;
  compiled?: Compiled;
  message?: Compiled;
  usesOldSelf: boolean;
  /** fieldPath, normalized (no leading dot). */
  fieldPath?: string;
}

export interface RuleNode {
  decl: DeclType;
  schema: ValueSchema;
  rules: CompiledRule[];
  props: Map<string, RuleNode>;
  additional?: RuleNode;
  items?: RuleNode;
  /**
   * How many values of this node one object may hold: the product of the maxItems and
   * maxProperties above it, undefined when a list or map above it has none.
   */
  cardinality: number | undefined;
  /**
   * The schema path (below the root) of the nearest enclosing list or map whose values have no
   * old counterpart (a list not of type map, a map of type atomic): oldSelf is meaningless there.
   */
  uncorrelatable?: string;
}

export interface SchemaRules {
  /** Undefined when no node has rules. */
  root?: RuleNode;
  /** The schema's types could not be declared (reported on the definition, never a 500). */
  initError?: string;
}

const cache = new CompileCache<SchemaRules>();

export const isObj = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);

function rulesOf(s: ValueSchema): RuleSpec[] {
  const r = (s as Record<string, unknown>)['x-orch-validations'];
  return Array.isArray(r) ? (r.filter(isObj) as RuleSpec[]) : [];
}

function hasRules(s: unknown): boolean {
  if (!isObj(s)) return false;
  if (rulesOf(s as ValueSchema).length) return true;
  if (isObj(s.properties)) for (const v of Object.values(s.properties)) if (hasRules(v)) return true;
  return hasRules(s.items) || hasRules(s.additionalProperties);
}

/** The compiled rules of a version's schema, compiled once per distinct schema. */
export function schemaRules(schema: ValueSchema | undefined): SchemaRules {
  if (!schema || !hasRules(schema)) return {};
  return cache.get(JSON.stringify(schema), () => {
    try {
      return build(schema);
    } catch (e) {
      return { initError: (e as Error).message };
    }
  });
}

function build(schema: ValueSchema): SchemaRules {
  const messages: MessageDeclaration[] = [];
  const rootDecl = declare(schema, 'Object', messages, true);
  const env = newEnvironment();
  for (const m of messages) env.registerType(m.name, { ctor: m.ctor, fields: m.fields });
  // message equality (the evaluator derives != from it)
  for (const m of messages)
    env.registerOperator(`${m.name} == ${m.name}`, (a: unknown, b: unknown) => celEquals(a, b));
  return { root: node(schema, rootDecl, env, 1, '', undefined) };
}

/**
 * How many values of a child each value of this node may hold, as Kubernetes bounds it: a list
 * its maxItems, a map its maxProperties (undefined without), an object's fields one each.
 */
function childFactor(s: ValueSchema): number | undefined {
  if (s.type === 'object' && s.additionalProperties !== undefined)
    return s.maxProperties === undefined ? undefined : Math.max(0, s.maxProperties);
  if (s.type === 'array') return s.maxItems === undefined ? undefined : Math.max(0, s.maxItems);
  return 1;
}

function node(
  s: ValueSchema,
  decl: DeclType,
  env: Environment,
  cardinality: number | undefined,
  path: string,
  uncorrelatable: string | undefined,
): RuleNode {
  const n: RuleNode = { decl, schema: s, rules: [], props: new Map(), cardinality, uncorrelatable };
  const specs = rulesOf(s);
  if (specs.length) {
    const scoped = env.clone();
    scoped.registerVariable('self', decl.name);
    scoped.registerVariable('oldSelf', decl.name);
    const vars = new Map([
      ['self', decl],
      ['oldSelf', decl],
    ]);
    for (const spec of specs) {
      const r: CompiledRule = { spec, usesOldSelf: false };
      if (typeof spec.rule === 'string' && spec.rule.trim()) {
        r.compiled = compile(scoped, spec.rule, vars);
        if ('program' in r.compiled) r.usesOldSelf = r.compiled.program.names.has('oldSelf');
      }
      if (typeof spec.messageExpression === 'string' && spec.messageExpression.trim())
        r.message = compile(scoped, spec.messageExpression, vars);
      if (typeof spec.fieldPath === 'string' && spec.fieldPath)
        r.fieldPath = spec.fieldPath.replace(/^\./, '');
      n.rules.push(r);
    }
  }
  const factor = childFactor(s);
  const inner = cardinality === undefined || factor === undefined ? undefined : mul(cardinality, factor);
  if (decl.kind === 'message' && isObj(s.properties)) {
    for (const [k, child] of Object.entries(s.properties as Record<string, ValueSchema>)) {
      const f = decl.fields!.get(k);
      if (!hasRules(child)) continue;
      n.props.set(
        k,
        node(
          child,
          f?.type ?? declare(child, 'Object.unreachable', []),
          env,
          inner,
          `${path}.properties[${k}]`,
          uncorrelatable,
        ),
      );
    }
  }
  if (isObj(s.additionalProperties) && hasRules(s.additionalProperties) && decl.elem)
    n.additional = node(
      s.additionalProperties as ValueSchema,
      decl.elem,
      env,
      inner,
      `${path}.additionalProperties`,
      uncorrelatable ?? (s['x-orch-map-type'] === 'atomic' ? path : undefined),
    );
  if (isObj(s.items) && hasRules(s.items) && decl.elem)
    n.items = node(
      s.items as ValueSchema,
      decl.elem,
      env,
      inner,
      `${path}.items`,
      uncorrelatable ?? (s['x-orch-list-type'] === 'map' ? undefined : path),
    );
  return n;
}
