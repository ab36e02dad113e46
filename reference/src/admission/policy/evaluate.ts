// One policy evaluated for one binding and one parameter object, as Kubernetes 1.28's validator
// does it: the match conditions first (all true, or the policy does not apply; an error is
// decided by the failure policy), then every validation (false: a denial with its message, its
// message expression's result or `failed expression: <expression>`, and its reason; an error:
// decided by the failure policy), then the audit annotations. Composition variables are computed
// once, in order, after the match conditions;
// one that fails is an error only for the expressions that read it. One budget of cost covers the whole evaluation, and each
// expression has its own per-call limit.
import { EvaluationFailure, type Program } from '../../cel/compile.ts';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../../cel/cost.ts';
import { CostLimitError } from '../../cel/errors.ts';
import { type AuthorizerFn, evaluateWithAuthorizer } from '../../cel/library-authorizer.ts';
import { CostTracker } from '../../cel/runtime-cost.ts';
import { toCel } from '../../cel/values.ts';
import { requestType, VariablesValue } from '../../registry/kinds/policy-cel.ts';
import { requestResourceOf } from '../cel-authorizer.ts';
import type { CompiledPolicy } from './compiled.ts';

export interface Decision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  /** The Status reason of a denial (validations default to Invalid). */
  reason?: string;
  /** Index of the validation (for the audit annotation of an Audit action). */
  index: number;
}

export interface AnnotationResult {
  key: string;
  action: 'publish' | 'error' | 'exclude';
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: Decision[];
  annotations: AnnotationResult[];
}

export interface EvaluationInput {
  object: unknown;
  oldObject: unknown;
  params: unknown;
  namespaceObject: unknown;
  /** The review request (without object and old object) as JSON. */
  request: Record<string, unknown>;
  authorizer: AuthorizerFn;
}

/** A message expression result longer than this is not used (Kubernetes' 5 KiB). */
const MAX_MESSAGE_BYTES = 5 * 1024;
const BUDGET_EXCEEDED =
  'validation failed due to running out of cost budget, no further validation rules will be run';

class BudgetExceeded extends Error {}

interface Budget {
  remaining: number;
}

/**
 * The composition variables, each computed once in declaration order (each sees the ones
 * before it); an error is kept and raised only where an expression reads the variable.
 */
async function computeVariables(
  policy: CompiledPolicy,
  base: Record<string, unknown>,
  authorizerFn: AuthorizerFn,
  budget: Budget,
): Promise<VariablesValue> {
  const vars = new VariablesValue();
  const errors = vars.errors;
  for (const v of policy.variables) {
    const fail = (why: string) =>
      errors.set(v.name, `composited variable "${v.name}" fails to evaluate: ${why}`);
    if ('error' in v.compiled) {
      fail(v.compiled.error);
      continue;
    }
    try {
      vars.set(v.name, await run(v.compiled.program, { ...base, variables: vars }, authorizerFn, budget));
    } catch (e) {
      if (e instanceof BudgetExceeded) throw e;
      fail(errorText(e));
    }
  }
  return vars;
}

/** Evaluates one program with the authorizer and lazy variables; throws EvaluationFailure, CostLimitError or BudgetExceeded. */
async function run(
  program: Program,
  base: Record<string, unknown>,
  authorizerFn: AuthorizerFn,
  budget: Budget,
): Promise<unknown> {
  const limit = Math.min(PER_CALL_LIMIT, budget.remaining);
  const tracker = new CostTracker(limit);
  try {
    return await evaluateWithAuthorizer(
      authorizerFn,
      (authorizer) => program.evaluate({ ...base, authorizer }, tracker),
      requestResourceOf(base.request),
    );
  } catch (e) {
    if (e instanceof CostLimitError && limit < PER_CALL_LIMIT) throw new BudgetExceeded();
    throw e;
  } finally {
    budget.remaining -= Math.min(tracker.cost, limit);
  }
}

const errorText = (e: unknown): string =>
  e instanceof CostLimitError
    ? e.message
    : e instanceof EvaluationFailure
      ? e.message
      : ((e as Error)?.message ?? String(e));

/** The activation's values as expressions see them. */
function activation(input: EvaluationInput, hasParams: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = {
    object: toCel(input.object ?? null, undefined),
    oldObject: toCel(input.oldObject ?? null, undefined),
    namespaceObject: toCel(input.namespaceObject ?? null, undefined),
    request: toCel(input.request, requestType()),
  };
  if (hasParams) base.params = toCel(input.params ?? null, undefined);
  return base;
}

export async function validate(policy: CompiledPolicy, input: EvaluationInput): Promise<ValidateResult> {
  const onError: Decision['action'] = policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const budget: Budget = { remaining: RUNTIME_CEL_COST_BUDGET };
  const base = activation(input, !!policy.paramKind);
  const failed = (message: string): ValidateResult => ({
    decisions: [{ action: onError, evaluation: 'error', message, index: 0 }],
    annotations: [],
  });
  try {
    // match conditions: any error decides by the failure policy; any false skips the policy
    const errors: string[] = [];
    let matched = true;
    for (const c of policy.matchConditions) {
      if ('error' in c.compiled) {
        errors.push(`compilation error: ${c.compiled.error}`);
        continue;
      }
      try {
        const r = await run(c.compiled.program, base, input.authorizer, budget);
        if (r === false) {
          matched = false;
          break;
        }
        if (r !== true) errors.push(`matchCondition '${c.name}' must evaluate to bool`);
      } catch (e) {
        if (e instanceof BudgetExceeded) throw e;
        errors.push(`expression '${c.expression}' resulted in error: ${errorText(e)}`);
      }
    }
    if (!matched) return { decisions: [], annotations: [] };
    if (errors.length) return failed(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);
    base.variables = await computeVariables(policy, base, input.authorizer, budget);

    const decisions: Decision[] = [];
    const results: { ok?: unknown; error?: string }[] = [];
    for (const v of policy.validations) {
      if ('error' in v.compiled) {
        results.push({ error: `compilation error: ${v.compiled.error}` });
        continue;
      }
      try {
        results.push({ ok: await run(v.compiled.program, base, input.authorizer, budget) });
      } catch (e) {
        if (e instanceof BudgetExceeded) throw e;
        results.push({ error: `expression '${v.expression}' resulted in error: ${errorText(e)}` });
      }
    }
    for (const [i, v] of policy.validations.entries()) {
      const r = results[i]!;
      if (r.error !== undefined) {
        decisions.push({ action: onError, evaluation: 'error', message: r.error, index: i });
        continue;
      }
      if (r.ok === true) {
        decisions.push({ action: 'admit', evaluation: 'admit', message: '', index: i });
        continue;
      }
      let message = '';
      if (v.messageExpression && 'program' in v.messageExpression) {
        try {
          const m = await run(v.messageExpression.program, base, input.authorizer, budget);
          if (typeof m === 'string') {
            message = m.trim();
            if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
          }
        } catch (e) {
          if (e instanceof BudgetExceeded) {
            decisions.push({
              action: onError,
              evaluation: 'error',
              message: `failed messageExpression execution: ${BUDGET_EXCEEDED}`,
              index: i,
            });
            continue;
          }
          // any other failure falls back to the static message
        }
      }
      if (!message) message = v.message.trim() || `failed expression: ${v.expression.trim()}`;
      decisions.push({
        action: 'deny',
        evaluation: 'deny',
        message,
        reason: v.reason ?? 'Invalid',
        index: i,
      });
    }

    const annotations: AnnotationResult[] = [];
    for (const a of policy.auditAnnotations) {
      if ('error' in a.compiled) {
        annotations.push({
          key: a.key,
          action: onError === 'deny' ? 'error' : 'exclude',
          error: `compilation error: ${a.compiled.error}`,
        });
        continue;
      }
      try {
        const value = await run(a.compiled.program, base, input.authorizer, budget);
        if (value === null || value === undefined) annotations.push({ key: a.key, action: 'exclude' });
        else if (typeof value === 'string') annotations.push({ key: a.key, action: 'publish', value });
        else
          annotations.push({
            key: a.key,
            action: onError === 'deny' ? 'error' : 'exclude',
            error: `valueExpression '${a.compiled.program.source}' resulted in unsupported return type: ${typeof value}. Return type must be either string or null.`,
          });
      } catch (e) {
        if (e instanceof BudgetExceeded) throw e;
        annotations.push({
          key: a.key,
          action: onError === 'deny' ? 'error' : 'exclude',
          error: `valueExpression '${a.compiled.program.source}' resulted in error: ${errorText(e)}`,
        });
      }
    }
    return { decisions, annotations };
  } catch (e) {
    if (e instanceof BudgetExceeded) return failed(BUDGET_EXCEEDED);
    throw e;
  }
}
