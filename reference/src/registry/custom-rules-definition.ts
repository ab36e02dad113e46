// Validation rules of custom definitions at definition time (create or update of the
// definition): rules that do not compile, that may cost too much (each, and all of a schema
// together), that use oldSelf where it is meaningless, or with a reason, fieldPath or message
// Kubernetes refuses.
import { exceedFactor, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '../cel/cost.ts';
import { add, mul } from '../cel/estimate-calls.ts';
import { maxCardinality } from '../cel/size.ts';
import type { StatusCause } from '../errors/status.ts';
import type { ValueSchema } from '../schema/validate.ts';
import {
  type CompiledRule,
  isObj,
  RULE_REASONS,
  type RuleNode,
  type RuleSpec,
  schemaRules,
} from './custom-rules.ts';

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
  const costs: Costs = { total: 0, perRule: [] };
  walkDefinition(root, schemaPath, schemaPath, out, costs);
  const { total, perRule } = costs;
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
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
      message: `Forbidden: x-orch-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of ${exceedFactor(total, STATIC_ESTIMATED_CRD_COST_LIMIT)} (${COST_HINT})`,
    });
  }
  return out;
}

/** What the walk over a schema's rules adds up: their total cost, and each expression's. */
interface Costs {
  total: number;
  perRule: { path: string; cost: number }[];
}

function walkDefinition(n: RuleNode, rootPath: string, path: string, out: StatusCause[], costs: Costs): void {
  // what a node holds first, then its own rules (the order Kubernetes adds up the costs in)
  if (n.additional) walkDefinition(n.additional, rootPath, `${path}.additionalProperties`, out, costs);
  for (const [k, c] of n.props) walkDefinition(c, rootPath, `${path}.properties[${k}]`, out, costs);
  if (n.items) walkDefinition(n.items, rootPath, `${path}.items`, out, costs);
  for (const [i, r] of n.rules.entries())
    checkRule(n, r, `${path}.x-orch-validations[${i}]`, rootPath, out, costs);
}

/** An invalid rule: the rule as Go prints it, and why. */
function invalidRule(out: StatusCause[], r: CompiledRule, field: string, detail: string): void {
  out.push({
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${goRule(r.spec)}: ${detail}`,
  });
}

/** One rule of node `n` at `p` (its x-orch-validations entry). */
function checkRule(
  n: RuleNode,
  r: CompiledRule,
  p: string,
  rootPath: string,
  out: StatusCause[],
  costs: Costs,
): void {
  const compiled = r.compiled && 'program' in r.compiled ? r.compiled.program : undefined;
  // a bool, as checked (a value of no known type is not one)
  const ruleOk = compiled?.type === 'bool';
  // the estimate counts as often as the rule can run in one object; a rule that does not
  // compile costs nothing
  const cost = ruleOk ? mul(compiled.estimatedCost, n.cardinality ?? maxCardinality(n.decl.minSize)) : 0;
  countCost(out, costs, `${p}.rule`, 'rule', cost);
  if (!r.compiled) out.push({ reason: 'FieldValueRequired', field: `${p}.rule`, message: 'Required value' });
  else if ('error' in r.compiled) invalidRule(out, r, `${p}.rule`, `compilation failed: ${r.compiled.error}`);
  else if (!ruleOk) invalidRule(out, r, `${p}.rule`, 'cel expression must evaluate to a bool');
  // a messageExpression is compiled only with a rule that compiles
  if (ruleOk && r.message) checkMessageExpression(r, p, out, costs);
  if (ruleOk && r.usesOldSelf && n.uncorrelatable !== undefined)
    out.push({
      reason: 'FieldValueInvalid',
      field: `${p}.rule`,
      message: `Invalid value: ${JSON.stringify(r.spec.rule)}: oldSelf cannot be used on the uncorrelatable portion of the schema within ${rootPath}${n.uncorrelatable}`,
    });
  checkRuleFields(n, r, p, out);
}

/** A rule's messageExpression: compiled, a string, and within the cost limit. */
function checkMessageExpression(r: CompiledRule, p: string, out: StatusCause[], costs: Costs): void {
  const message = r.message!;
  if ('error' in message)
    invalidRule(out, r, `${p}.messageExpression`, `messageExpression compilation failed: ${message.error}`);
  else if (message.program.type !== 'string')
    invalidRule(out, r, `${p}.messageExpression`, 'messageExpression must evaluate to a string');
  else {
    // evaluated once per failure, so not counted per value
    const mcost = message.program.estimatedCost;
    countCost(out, costs, `${p}.messageExpression`, 'messageExpression', mcost);
  }
}

/** An expression's estimated cost: refused beyond the per-expression limit, and added to the schema's total. */
function countCost(out: StatusCause[], costs: Costs, field: string, what: string, cost: number): void {
  if (cost > STATIC_ESTIMATED_COST_LIMIT)
    out.push({
      reason: 'FieldValueForbidden',
      field,
      message: `Forbidden: estimated ${what} cost exceeds budget by factor of ${exceedFactor(cost, STATIC_ESTIMATED_COST_LIMIT)} (${COST_HINT})`,
    });
  costs.total = add(costs.total, cost);
  costs.perRule.push({ path: field, cost });
}

/** A rule's reason, fieldPath and message. */
function checkRuleFields(n: RuleNode, r: CompiledRule, p: string, out: StatusCause[]): void {
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
