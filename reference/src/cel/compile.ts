// Compiling an expression: parse, type check against the environment's declarations as
// Kubernetes 1.28 does (check.ts), instrument for the runtime cost count, estimate the worst-case
// cost. Errors are reported in Kubernetes' shape (`ERROR: <input>:line:column: detail`).
import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode } from './ast.ts';
import { checkAsKubernetes } from './check.ts';
import { CostLimitError } from './errors.ts';
import { estimateCost, NO_SIZES } from './estimate.ts';
import { declSizes } from './estimate-sizes.ts';
import { costTree } from './estimate-tree.ts';
import { widenHas } from './has.ts';
import { applyListTypes } from './list-types.ts';
import { type CompileError, displayErrors } from './report.ts';
import { type CostTracker, instrument, track } from './runtime-cost.ts';
import type { DeclType } from './types.ts';

export class Program {
  private estimate?: number;

  constructor(
    readonly source: string,
    /** The checked result type (`bool`, `string`, ...). */
    readonly type: string,
    private readonly estimator: () => number,
    private readonly run: (vars: Record<string, unknown>) => unknown,
    /** Variables the expression names. */
    readonly names: ReadonlySet<string>,
  ) {}

  /**
   * Worst-case cost of one evaluation, estimated (once, when first asked) as Kubernetes 1.28
   * estimates a custom definition's rule: sizes from the declared type of `self`.
   */
  get estimatedCost(): number {
    this.estimate ??= this.estimator();
    return this.estimate;
  }

  /** Evaluates, counting cost on `tracker`; throws EvaluationFailure (message in the language's words) or CostLimitError. */
  evaluate(vars: Record<string, unknown>, tracker: CostTracker): unknown {
    try {
      const r = track(tracker, () => this.run(vars));
      if (tracker.exceeded) throw new CostLimitError();
      return r;
    } catch (e) {
      if (e instanceof CostLimitError || tracker.exceeded) throw new CostLimitError();
      throw new EvaluationFailure(firstLine(e));
    }
  }
}

export class EvaluationFailure extends Error {}

export type Compiled = { program: Program } | { error: string };

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const line = m.split('\n')[0]!.trim();
  // the evaluator's wording where Kubernetes 1.28's (cel-go's) differs
  return line
    .replace(
      /^no such key: index out of bounds, index (-?\d+) >= size (\d+)$/,
      "index '$1' out of range in list size '$2'",
    )
    .replace(/^No such key: (.*)$/, 'no such key: $1')
    .replace(/^integer overflow: .*$/, 'integer overflow')
    .replace(/^modulo by zero$/, 'modulus by zero')
    .replace(/^no such overload: .*$/, 'no such overload');
}

/** Where a syntax error points: the evaluator's position of the token it stopped at. */
function syntaxAt(e: unknown): number {
  const err = e as any;
  const at = err?.node?.pos ?? err?.node?.start ?? err?.range?.start ?? err?.pos;
  return typeof at === 'number' ? at : 0;
}

/** A syntax error in Kubernetes 1.28's words where they are known: optional syntax is not enabled. */
function syntaxError(source: string, e: unknown): CompileError {
  const at = syntaxAt(e);
  const before = source.slice(0, at).trimEnd();
  if (source[at] === '?' && (before.endsWith('.') || before.endsWith('[')))
    return { at: before.length - 1, message: `unsupported syntax '${before.at(-1)}?'` };
  const line = ((e as Error).message ?? String(e)).split('\n')[0]!.trim();
  return { at, message: `Syntax error: ${line}` };
}

function collectNames(n: AstNode, out: Set<string>, seen: Set<AstNode>): void {
  if (!n || typeof n !== 'object' || seen.has(n)) return;
  seen.add(n);
  if (n.op === 'id') out.add(n.args as string);
  const meta = n.meta;
  if (meta?.alternate) collectNames(meta.alternate, out, seen);
  const args = n.args;
  const visit = (x: unknown) => {
    if (Array.isArray(x)) for (const y of x) visit(y);
    else if (x && typeof x === 'object' && 'op' in (x as object)) collectNames(x as AstNode, out, seen);
    else if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype)
      for (const y of Object.values(x)) visit(y);
  };
  visit(args);
}

/** Compiles an expression in an environment whose variables have the given declared types. */
export function compile(env: Environment, source: string, vars: Map<string, DeclType>): Compiled {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(source);
  } catch (e) {
    return { error: displayErrors(source, [syntaxError(source, e)]) };
  }
  widenHas(parsed.ast as unknown as AstNode);
  const checked = checkAsKubernetes(env, parsed, source);
  if ('errors' in checked) return { error: displayErrors(source, checked.errors) };
  const ast = parsed.ast as unknown as AstNode;
  const names = new Set<string>();
  collectNames(ast, names, new Set());
  applyListTypes(ast);
  instrument(ast);
  const self = vars.get('self');
  const estimator = () => estimateCost(costTree(ast, source), self ? declSizes(self) : NO_SIZES);
  return {
    program: new Program(source, checked.type, estimator, (v) => parsed(v), names),
  };
}
