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

const MESSAGE_BUDGET_EXCEEDED = `failed messageExpression execution: ${BUDGET_EXCEEDED}`;

/** The message of an expression that failed (running out of the budget ends the evaluation instead). */
function expressionError(expression: string, e: unknown): string {
  if (e instanceof BudgetExceeded) throw e;
  return `expression '${expression}' resulted in error: ${errorText(e)}`;
}

/** A policy that could not be evaluated: one decision by the failure policy. */
function failed(onError: Decision['action'], message: string): ValidateResult {
  return { decisions: [{ action: onError, evaluation: 'error', message, index: 0 }], annotations: [] };
}

/** The decision of a validation that failed to evaluate or held. */
function settled(r: { ok?: unknown; error?: string }, index: number, onError: Decision['action']): Decision {
  if (r.error !== undefined) return { action: onError, evaluation: 'error', message: r.error, index };
  return { action: 'admit', evaluation: 'admit', message: '', index };
}

/** A message expression's result as a message: a one-line string of at most 5 KiB, else none. */
function messageText(m: unknown): string {
  if (typeof m !== 'string') return '';
  const message = m.trim();
  return Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n') ? '' : message;
}

/** The denial of a validation that did not hold, with the message its expression gave (or its own). */
function denial(v: CompiledPolicy['validations'][number], message: string, index: number): Decision {
  return {
    action: 'deny',
    evaluation: 'deny',
    message: message || v.message.trim() || `failed expression: ${v.expression.trim()}`,
    reason: v.reason ?? 'Invalid',
    index,
  };
}

/** An audit annotation that failed: an error when the failure policy denies, else left out. */
function annotationError(key: string, onError: Decision['action'], error: string): AnnotationResult {
  return { key, action: onError === 'deny' ? 'error' : 'exclude', error };
}

/** The audit annotation of a value expression's result (a string, or null to leave it out). */
function annotationOf(
  key: string,
  source: string,
  value: unknown,
  onError: Decision['action'],
): AnnotationResult {
  if (value === null || value === undefined) return { key, action: 'exclude' };
  if (typeof value === 'string') return { key, action: 'publish', value };
  return annotationError(
    key,
    onError,
    `valueExpression '${source}' resulted in unsupported return type: ${typeof value}. Return type must be either string or null.`,
  );
}

/** The audit annotation of a value expression that failed (running out of the budget ends the evaluation instead). */
function annotationFailure(
  key: string,
  source: string,
  e: unknown,
  onError: Decision['action'],
): AnnotationResult {
  if (e instanceof BudgetExceeded) throw e;
  return annotationError(key, onError, `valueExpression '${source}' resulted in error: ${errorText(e)}`);
}

export async function validate(policy: CompiledPolicy, input: EvaluationInput): Promise<ValidateResult> {
  const onError: Decision['action'] = policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const budget: Budget = { remaining: RUNTIME_CEL_COST_BUDGET };
  const base = activation(input, !!policy.paramKind);
  const authorizer = input.authorizer;
  try {
    // match conditions: any error decides by the failure policy; any false skips the policy
    const errors: string[] = [];
    for (const c of policy.matchConditions) {
      if ('error' in c.compiled) {
        errors.push(`compilation error: ${c.compiled.error}`);
        continue;
      }
      try {
        const r = await run(c.compiled.program, base, authorizer, budget);
        if (r === false) return { decisions: [], annotations: [] };
        if (r !== true) errors.push(`matchCondition '${c.name}' must evaluate to bool`);
      } catch (e) {
        errors.push(expressionError(c.expression, e));
      }
    }
    if (errors.length) return failed(onError, errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);
    base.variables = await computeVariables(policy, base, authorizer, budget);
    const results: { ok?: unknown; error?: string }[] = [];
    for (const v of policy.validations) {
      if ('error' in v.compiled) {
        results.push({ error: `compilation error: ${v.compiled.error}` });
        continue;
      }
      try {
        results.push({ ok: await run(v.compiled.program, base, authorizer, budget) });
      } catch (e) {
        results.push({ error: expressionError(v.expression, e) });
      }
    }
    const decisions: Decision[] = [];
    for (const [i, v] of policy.validations.entries()) {
      const r = results[i]!;
      if (r.error !== undefined || r.ok === true) {
        decisions.push(settled(r, i, onError));
        continue;
      }
      let message = '';
      if (v.messageExpression && 'program' in v.messageExpression) {
        try {
          message = messageText(await run(v.messageExpression.program, base, authorizer, budget));
        } catch (e) {
          if (e instanceof BudgetExceeded) {
            decisions.push(settled({ error: MESSAGE_BUDGET_EXCEEDED }, i, onError));
            continue;
          }
          // any other failure falls back to the static message
        }
      }
      decisions.push(denial(v, message, i));
    }
    const annotations: AnnotationResult[] = [];
    for (const a of policy.auditAnnotations) {
      if ('error' in a.compiled) {
        annotations.push(annotationError(a.key, onError, `compilation error: ${a.compiled.error}`));
        continue;
      }
      const source = a.compiled.program.source;
      try {
        const value = await run(a.compiled.program, base, authorizer, budget);
        annotations.push(annotationOf(a.key, source, value, onError));
      } catch (e) {
        annotations.push(annotationFailure(a.key, source, e, onError));
      }
    }
    return { decisions, annotations };
  } catch (e) {
    if (e instanceof BudgetExceeded) return failed(onError, BUDGET_EXCEEDED);
    throw e;
  }
}
