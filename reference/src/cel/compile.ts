// Compiling an expression: parse, type check against the environment's declarations, instrument
// for the runtime cost count, estimate the worst-case cost. Errors are reported in Kubernetes'
// shape (`ERROR: <input>:line:column: detail`).
import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode } from './ast.ts';
import { CostLimitError } from './errors.ts';
import { estimateCost } from './estimate.ts';
import { applyListTypes } from './list-types.ts';
import { type CostTracker, instrument, track } from './runtime-cost.ts';
import type { DeclType } from './types.ts';

export class Program {
  constructor(
    readonly source: string,
    /** The checked result type (`bool`, `string`, ...). */
    readonly type: string,
    /** Worst-case cost of one evaluation. */
    readonly estimatedCost: number,
    private readonly run: (vars: Record<string, unknown>) => unknown,
    /** Variables the expression names. */
    readonly names: ReadonlySet<string>,
  ) {}

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

function position(source: string, e: unknown): string {
  const err = e as any;
  const at: number | undefined = err?.node?.start ?? err?.range?.start ?? err?.node?.pos ?? err?.pos;
  if (typeof at !== 'number') return '<input>:1:1';
  const before = source.slice(0, at).split('\n');
  return `<input>:${before.length}:${before[before.length - 1]!.length + 1}`;
}

function checkMessage(m: string): string {
  const line = m.split('\n')[0]!.trim();
  const key = /^No such key: (.*)$/.exec(line);
  if (key) return `undefined field '${key[1]}'`;
  const ref = /^Unknown variable: (.*)$/.exec(line);
  if (ref) return `undeclared reference to '${ref[1]}' (in container '')`;
  return line;
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
    return { error: `ERROR: ${position(source, e)}: Syntax error: ${checkMessage((e as Error).message)}` };
  }
  const checked = parsed.check();
  if (!checked.valid)
    return {
      error: `ERROR: ${position(source, checked.error)}: ${checkMessage(checked.error?.message ?? '')}`,
    };
  const ast = parsed.ast as unknown as AstNode;
  const names = new Set<string>();
  collectNames(ast, names, new Set());
  applyListTypes(ast);
  instrument(ast);
  const cost = estimateCost(ast, vars);
  return {
    program: new Program(source, checked.type ?? 'dyn', cost, (v) => parsed(v), names),
  };
}
