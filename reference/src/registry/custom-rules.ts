// Validation rules of custom definitions (`x-orch-validations` at any node of a version's
// schema): compiled and fully type checked once per schema (a definition version), refused at
// definition time when they do not compile or may cost too much, and evaluated at every write of
// a custom resource with `self` (and, for transition rules, `oldSelf`), reporting every violated
// rule at once, as Kubernetes 1.28 does.
import type { Environment } from '@marcbachmann/cel-js';
import { CompileCache } from '../cel/cache.ts';
import { type Compiled, compile, EvaluationFailure, type Program } from '../cel/compile.ts';
import {
  exceedFactor,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from '../cel/cost.ts';
import { newEnvironment } from '../cel/environment.ts';
import { add, mul } from '../cel/estimate-calls.ts';
import { celEquals } from '../cel/equality.ts';
import { CostLimitError } from '../cel/errors.ts';
import { CostTracker } from '../cel/runtime-cost.ts';
import { maxCardinality } from '../cel/size.ts';
import { type DeclType, declare, type MessageDeclaration } from '../cel/types.ts';
import { toCel } from '../cel/values.ts';
import type { StatusCause } from '../errors/status.ts';
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

interface CompiledRule {
  spec: RuleSpec;
  compiled?: Compiled;
  message?: Compiled;
  usesOldSelf: boolean;
  /** fieldPath, normalized (no leading dot). */
  fieldPath?: string;
}

interface RuleNode {
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

const isObj = (x: unknown): x is Record<string, unknown> =>
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

// ---------------------------------------------------------------- definition time

/** Go's `%#v` of a rule, as Kubernetes prints the invalid value of a rule that does not compile. */
function goRule(r: RuleSpec): string {
  const reason =
    r.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : JSON.stringify(r.reason);
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}}`;
}

const COST_HINT =
  'try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared';

/** Problems of a schema's rules, at definition time (create or update of the definition). */
export function ruleProblems(schema: ValueSchema | undefined, schemaPath: string): StatusCause[] {
  const out: StatusCause[] = [];
  const { root, initError } = schemaRules(schema);
  if (initError)
    out.push({
      reason: 'FieldValueInvalid',
      field: schemaPath,
      message: `Invalid value: "object": rule compiler initialization error: ${initError}`,
    });
  if (!root) return out;
  const total = { cost: 0 };
  const perRule: { path: string; cost: number }[] = [];
  walkDefinition(root, schemaPath, schemaPath, out, total, perRule);
  if (total.cost > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    // the four costliest expressions, each at least 1% of the limit, costliest first
    const costliest = perRule
      .filter((r) => r.cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100)
      .sort((a, b) => b.cost - a.cost)
      .slice(0, 4);
    for (const r of costliest)
      out.push({
        reason: 'FieldValueForbidden',
        field: r.path,
        message:
          'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      });
    out.push({
      reason: 'FieldValueForbidden',
      field: schemaPath,
      message: `Forbidden: x-orch-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of ${exceedFactor(total.cost, STATIC_ESTIMATED_CRD_COST_LIMIT)} (${COST_HINT})`,
    });
  }
  return out;
}

function walkDefinition(
  n: RuleNode,
  rootPath: string,
  path: string,
  out: StatusCause[],
  total: { cost: number },
  perRule: { path: string; cost: number }[],
): void {
  // what a node holds first, then its own rules (the order Kubernetes adds up the costs in)
  if (n.additional)
    walkDefinition(n.additional, rootPath, `${path}.additionalProperties`, out, total, perRule);
  for (const [k, c] of n.props) walkDefinition(c, rootPath, `${path}.properties[${k}]`, out, total, perRule);
  if (n.items) walkDefinition(n.items, rootPath, `${path}.items`, out, total, perRule);
  n.rules.forEach((r, i) => {
    const p = `${path}.x-orch-validations[${i}]`;
    const invalid = (field: string, detail: string) =>
      out.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${goRule(r.spec)}: ${detail}`,
      });
    const compiled = r.compiled && 'program' in r.compiled ? r.compiled.program : undefined;
    // a bool, as checked (a value of no known type is not one)
    const ruleOk = compiled?.type === 'bool';
    // the estimate counts as often as the rule can run in one object; a rule that does not
    // compile costs nothing
    const cost = ruleOk ? mul(compiled.estimatedCost, n.cardinality ?? maxCardinality(n.decl.minSize)) : 0;
    if (cost > STATIC_ESTIMATED_COST_LIMIT)
      out.push({
        reason: 'FieldValueForbidden',
        field: `${p}.rule`,
        message: `Forbidden: estimated rule cost exceeds budget by factor of ${exceedFactor(cost, STATIC_ESTIMATED_COST_LIMIT)} (${COST_HINT})`,
      });
    total.cost = add(total.cost, cost);
    perRule.push({ path: `${p}.rule`, cost });
    if (!r.compiled)
      out.push({ reason: 'FieldValueRequired', field: `${p}.rule`, message: 'Required value' });
    else if ('error' in r.compiled) invalid(`${p}.rule`, `compilation failed: ${r.compiled.error}`);
    else if (!ruleOk) invalid(`${p}.rule`, 'cel expression must evaluate to a bool');
    // a messageExpression is compiled only with a rule that compiles
    if (ruleOk && r.message) {
      if ('error' in r.message)
        invalid(`${p}.messageExpression`, `messageExpression compilation failed: ${r.message.error}`);
      else if (r.message.program.type !== 'string')
        invalid(`${p}.messageExpression`, 'messageExpression must evaluate to a string');
      else {
        // evaluated once per failure, so not counted per value
        const mcost = r.message.program.estimatedCost;
        if (mcost > STATIC_ESTIMATED_COST_LIMIT)
          out.push({
            reason: 'FieldValueForbidden',
            field: `${p}.messageExpression`,
            message: `Forbidden: estimated messageExpression cost exceeds budget by factor of ${exceedFactor(mcost, STATIC_ESTIMATED_COST_LIMIT)} (${COST_HINT})`,
          });
        total.cost = add(total.cost, mcost);
        perRule.push({ path: `${p}.messageExpression`, cost: mcost });
      }
    }
    if (ruleOk && r.usesOldSelf && n.uncorrelatable !== undefined)
      out.push({
        reason: 'FieldValueInvalid',
        field: `${p}.rule`,
        message: `Invalid value: ${JSON.stringify(r.spec.rule)}: oldSelf cannot be used on the uncorrelatable portion of the schema within ${rootPath}${n.uncorrelatable}`,
      });
    const reason = r.spec.reason;
    if (reason !== undefined && !RULE_REASONS.includes(reason))
      out.push({
        reason: 'FieldValueNotSupported',
        field: `${p}.reason`,
        message: `Unsupported value: ${JSON.stringify(reason)}: supported values: ${RULE_REASONS.map((x) => JSON.stringify(x)).join(', ')}`,
      });
    if (r.spec.fieldPath !== undefined && !validFieldPath(r.spec.fieldPath, n.schema))
      out.push({
        reason: 'FieldValueInvalid',
        field: `${p}.fieldPath`,
        message: `Invalid value: ${JSON.stringify(r.spec.fieldPath)}: fieldPath must be a valid path`,
      });
    if (r.spec.message !== undefined && /[\n]/.test(r.spec.message))
      out.push({
        reason: 'FieldValueInvalid',
        field: `${p}.message`,
        message: `Invalid value: ${JSON.stringify(r.spec.message)}: message must not contain line breaks`,
      });
  });
}

/** A JSON path of fields (`.a.b`, `['a.b']`) that the node's schema declares. */
function validFieldPath(p: string, s: ValueSchema): boolean {
  if (!p.startsWith('.') && !p.startsWith('[')) p = `.${p}`;
  const tokens = p.match(/\.[^.[\]]+|\['(?:[^'\\]|\\.)*'\]/g);
  if (!tokens || tokens.join('') !== p) return false;
  let cur: ValueSchema | undefined = s;
  for (const t of tokens) {
    const name = t.startsWith('.') ? t.slice(1) : t.slice(2, -2).replace(/\\(.)/g, '$1');
    if (!cur) return false;
    if (cur.properties && Object.hasOwn(cur.properties, name)) cur = cur.properties[name] as ValueSchema;
    else if (!cur.properties && isObj(cur.additionalProperties))
      cur = cur.additionalProperties as ValueSchema;
    else return false;
  }
  return true;
}

// ---------------------------------------------------------------- write time

interface Budget {
  remaining: number;
  stopped: boolean;
}

/** Every violated rule of a custom resource (and each evaluation error), as field causes. */
export function validateRules(rules: SchemaRules, obj: unknown, old: unknown): StatusCause[] {
  const out: StatusCause[] = [];
  if (!rules.root) return out;
  validateNode(rules.root, obj, old, '', out, { remaining: RUNTIME_CEL_COST_BUDGET, stopped: false });
  return out;
}

const shown = (path: string) => path || '<nil>';

function cause(reason: string | undefined, field: string, schemaType: string, detail: string): StatusCause {
  const value = JSON.stringify(schemaType);
  switch (reason) {
    case 'FieldValueForbidden':
      return { reason, field, message: `Forbidden: ${detail}` };
    case 'FieldValueRequired':
      return { reason, field, message: `Required value: ${detail}` };
    case 'FieldValueDuplicate':
      return { reason, field, message: `Duplicate value: ${value}` };
    default:
      return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` };
  }
}

const ruleText = (r: RuleSpec) => (r.message?.trim() ? r.message.trim() : (r.rule ?? '').trim());

function validateNode(
  n: RuleNode,
  v: unknown,
  old: unknown,
  path: string,
  out: StatusCause[],
  budget: Budget,
): void {
  if (budget.stopped || v === undefined || v === null) return;
  if (n.rules.length) evaluateRules(n, v, old, path, out, budget);
  if (budget.stopped) return;
  if (n.props.size && isObj(v)) {
    const o = isObj(old) ? old : undefined;
    for (const [k, c] of n.props) {
      if (!Object.hasOwn(v, k)) continue;
      validateNode(c, v[k], o?.[k], path ? `${path}.${k}` : k, out, budget);
      if (budget.stopped) return;
    }
  }
  if (n.additional && isObj(v)) {
    const o = isObj(old) && n.schema['x-orch-map-type'] !== 'atomic' ? old : undefined;
    for (const [k, val] of Object.entries(v)) {
      validateNode(n.additional, val, o?.[k], `${path}[${k}]`, out, budget);
      if (budget.stopped) return;
    }
  }
  if (n.items && Array.isArray(v)) {
    const keys =
      n.schema['x-orch-list-type'] === 'map' ? (n.schema['x-orch-list-map-keys'] ?? []) : undefined;
    const olds = keys && Array.isArray(old) ? old : [];
    v.forEach((item, i) => {
      if (budget.stopped) return;
      const prev =
        keys && isObj(item)
          ? olds.find(
              (o) => isObj(o) && keys.every((k) => celEquals(o[k], (item as Record<string, unknown>)[k])),
            )
          : undefined;
      validateNode(n.items!, item, prev, `${path}[${i}]`, out, budget);
    });
  }
}

function evaluateRules(
  n: RuleNode,
  v: unknown,
  old: unknown,
  path: string,
  out: StatusCause[],
  budget: Budget,
): void {
  const self = toCel(v, n.decl);
  let oldSelf: unknown;
  let oldConverted = false;
  const type = n.decl.schemaType;
  for (const r of n.rules) {
    if (!r.compiled || 'error' in r.compiled) continue;
    if (r.usesOldSelf && (old === undefined || old === null)) continue;
    if (r.usesOldSelf && !oldConverted) {
      oldSelf = toCel(old, n.decl);
      oldConverted = true;
    }
    const vars = r.usesOldSelf ? { self, oldSelf } : { self };
    const result = run(r.compiled.program, vars, budget);
    const field = shown(path);
    if (result === STOP_CALL) {
      out.push(
        cause(
          undefined,
          field,
          type,
          `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(r.spec)}`,
        ),
      );
      budget.stopped = true;
      return;
    }
    if (result === STOP_BUDGET) {
      out.push(
        cause(
          undefined,
          field,
          type,
          'validation failed due to running out of cost budget, no further validation rules will be run',
        ),
      );
      budget.stopped = true;
      return;
    }
    if (result instanceof EvaluationFailure) {
      const m = result.message;
      out.push(
        cause(
          undefined,
          field,
          type,
          m.startsWith('no such overload')
            ? `'${m}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r.spec)}`
            : `${m} evaluating rule: ${ruleText(r.spec)}`,
        ),
      );
      continue;
    }
    if (result === true) continue;
    let detail = r.spec.message?.trim() ? r.spec.message.trim() : `failed rule: ${ruleText(r.spec)}`;
    if (r.message && 'program' in r.message) {
      const m = run(r.message.program, vars, budget);
      if (m === STOP_BUDGET || m === STOP_CALL) {
        out.push(
          cause(
            undefined,
            field,
            type,
            'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
          ),
        );
        budget.stopped = true;
        return;
      }
      if (typeof m === 'string' && m.trim() && !m.includes('\n') && m.trim().length <= 5 * 1024)
        detail = m.trim();
    }
    const at = r.fieldPath ? (path ? `${path}.${r.fieldPath}` : r.fieldPath) : field;
    out.push(cause(r.spec.reason, at, type, detail));
  }
}

const STOP_CALL = Symbol('call cost limit');
const STOP_BUDGET = Symbol('validation budget');

function run(p: Program, vars: Record<string, unknown>, budget: Budget): unknown {
  const limit = Math.min(PER_CALL_LIMIT, budget.remaining);
  const tracker = new CostTracker(limit);
  try {
    return p.evaluate(vars, tracker);
  } catch (e) {
    if (e instanceof CostLimitError) return limit < PER_CALL_LIMIT ? STOP_BUDGET : STOP_CALL;
    if (e instanceof EvaluationFailure) return e;
    return new EvaluationFailure((e as Error).message ?? String(e));
  } finally {
    budget.remaining -= Math.min(tracker.cost, limit);
  }
}
