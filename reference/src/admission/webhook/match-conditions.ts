// A webhook's matchConditions (doc3 "Webhook configuration objects", "Errors"): expressions over
// `object` (null on DELETE), `oldObject` (null on CREATE), `request` (the review request without
// the objects) and `authorizer`, sharing one runtime cost budget. Kubernetes 1.28's outcome:
// any condition false skips the webhook; otherwise any evaluation error decides by the
// failure policy (`Fail`: the request is refused; `Ignore`: the webhook is skipped); otherwise
// the webhook is called.
import { compile, type Program } from '../../cel/compile.ts';
import { RUNTIME_CEL_COST_BUDGET } from '../../cel/cost.ts';
import { CostLimitError } from '../../cel/errors.ts';
import { type AuthorizerFn, evaluateWithAuthorizer } from '../../cel/library-authorizer.ts';
import { CostTracker } from '../../cel/runtime-cost.ts';
import { toCel } from '../../cel/values.ts';
import { matchEnv } from '../../registry/kinds/webhook-common.ts';
import type { KObject } from '../../storage/types.ts';
import type { WebhookAccessor } from './accessor.ts';
import type { ReviewRequest } from './review.ts';
import { requestResourceOf } from '../cel-authorizer.ts';

export type ConditionOutcome = { matches: true } | { matches: false; error?: string };

type Compiled = { expression: string; program?: Program; error?: string };

const compiled = new WeakMap<WebhookAccessor, Compiled[]>();

function programsOf(hook: WebhookAccessor): Compiled[] {
  let out = compiled.get(hook);
  if (!out) {
    const { env, vars } = matchEnv();
    out = hook.matchConditions.map((c) => {
      const r = compile(env, c.expression, vars);
      return 'error' in r
        ? { expression: c.expression, error: `compilation error: ${r.error}` }
        : { expression: c.expression, program: r.program };
    });
    compiled.set(hook, out);
  }
  return out;
}

const BUDGET_TEXT =
  'validation failed due to running out of cost budget, no further validation rules will be run';

interface Evaluated {
  falseFound: boolean;
  errors: string[];
  budget?: boolean;
}

export async function evaluateMatchConditions(
  hook: WebhookAccessor,
  objects: { object?: KObject; oldObject?: KObject; operation: string },
  request: ReviewRequest,
  authorizer: AuthorizerFn,
): Promise<ConditionOutcome> {
  const programs = programsOf(hook);
  if (programs.length === 0) return { matches: true };
  const { vars } = matchEnv();
  const values = {
    object: objects.operation === 'DELETE' ? null : toCel(objects.object ?? null, vars.get('object')),
    oldObject:
      objects.operation === 'CREATE' ? null : toCel(objects.oldObject ?? null, vars.get('oldObject')),
    request: toCel(request, vars.get('request')),
  };
  let result: Evaluated;
  try {
    result = await evaluateWithAuthorizer(
      authorizer,
      (authz) => {
        const tracker = new CostTracker(RUNTIME_CEL_COST_BUDGET);
        const out: Evaluated = { falseFound: false, errors: [] };
        for (const p of programs) {
          if (!p.program) {
            out.errors.push(p.error!);
            continue;
          }
          try {
            const v = p.program.evaluate({ ...values, authorizer: authz }, tracker);
            if (v === false) {
              out.falseFound = true;
              return out;
            }
          } catch (e) {
            if (e instanceof CostLimitError) return { falseFound: false, errors: [], budget: true };
            out.errors.push(`expression '${p.expression}' resulted in error: ${(e as Error).message}`);
          }
        }
        return out;
      },
      requestResourceOf(request),
    );
  } catch (e) {
    result = { falseFound: false, errors: [(e as Error).message] };
  }
  const fail = hook.failurePolicy !== 'Ignore';
  if (result.budget) return fail ? { matches: false, error: BUDGET_TEXT } : { matches: false };
  if (result.falseFound) return { matches: false };
  if (result.errors.length === 0) return { matches: true };
  if (!fail) return { matches: false };
  const text = result.errors.length === 1 ? result.errors[0]! : `[${result.errors.join(', ')}]`;
  return { matches: false, error: text };
}
