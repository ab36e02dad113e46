// Validation rules of custom definitions at write time: every rule of every node of a
// custom resource evaluated with `self` (and, for transition rules, `oldSelf`), each violated
// rule reported, within the per-call and per-request cost budgets of Kubernetes 1.28.
import { EvaluationFailure, type Program } from '../cel/compile.ts';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../cel/cost.ts';
import { celEquals } from '../cel/equality.ts';
import { CostLimitError } from '../cel/errors.ts';
import { CostTracker } from '../cel/runtime-cost.ts';
import { toCel } from '../cel/values.ts';
import type { StatusCause } from '../errors/status.ts';
import { type CompiledRule, isObj, type RuleNode, type RuleSpec, type SchemaRules } from './custom-rules.ts';

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

/** The rules of one node on its value `v` (and its old value): each violation, or the budget's end, into `out`. */
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
    if (result === STOP_CALL || result === STOP_BUDGET) {
      out.push(cause(undefined, field, type, stopDetail(result, r)));
      budget.stopped = true;
      return;
    }
    if (result instanceof EvaluationFailure) {
      out.push(cause(undefined, field, type, failureDetail(result.message, r)));
      continue;
    }
    if (result === true) continue;
    const detail = violationDetail(r, vars, budget);
    if (detail === undefined) {
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
    const at = r.fieldPath ? (path ? `${path}.${r.fieldPath}` : r.fieldPath) : field;
    out.push(cause(r.spec.reason, at, type, detail));
  }
}

/** Why no further rule runs: the call's cost limit, or the request's budget. */
function stopDetail(result: typeof STOP_CALL | typeof STOP_BUDGET, r: CompiledRule): string {
  return result === STOP_CALL
    ? `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(r.spec)}`
    : 'validation failed due to running out of cost budget, no further validation rules will be run';
}

/** A rule whose evaluation failed (a call of no overload, or another error). */
function failureDetail(m: string, r: CompiledRule): string {
  return m.startsWith('no such overload')
    ? `'${m}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r.spec)}`
    : `${m} evaluating rule: ${ruleText(r.spec)}`;
}

/** The message of a violated rule (its messageExpression's when usable); undefined when that ran out of budget. */
function violationDetail(r: CompiledRule, vars: Record<string, unknown>, budget: Budget): string | undefined {
  let detail = r.spec.message?.trim() ? r.spec.message.trim() : `failed rule: ${ruleText(r.spec)}`;
  if (r.message && 'program' in r.message) {
    const m = run(r.message.program, vars, budget);
    if (m === STOP_BUDGET || m === STOP_CALL) return undefined;
    if (typeof m === 'string' && m.trim() && !m.includes('\n') && m.trim().length <= 5 * 1024)
      detail = m.trim();
  }
  return detail;
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
