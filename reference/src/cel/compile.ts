// Compiling an expression: parse, type check against the environment's declarations, instrument
// for the runtime cost count, estimate the worst-case cost. Errors are reported in Kubernetes'
// shape (`ERROR: <input>:line:column: detail`).
import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode } from './ast.ts';
import { CostLimitError } from './errors.ts';
import { estimateCost, NO_SIZES } from './estimate.ts';
import { declSizes } from './estimate-sizes.ts';
import { costTree } from './estimate-tree.ts';
import { widenHas } from './has.ts';
import { applyListTypes } from './list-types.ts';
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

const OPERATOR_NAMES: Record<string, string> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
};

/** Where an error points: an operator at its symbol, a field or a method at its dot (as cel-go does). */
function offset(source: string, e: unknown): number | undefined {
  const err = e as any;
  const node = err?.node;
  const left = Array.isArray(node?.args) ? node.args[0] : undefined;
  if (node && left && typeof left === 'object' && typeof left.end === 'number') {
    if (typeof node.op === 'string' && node.op in OPERATOR_NAMES) {
      const i = source.indexOf(node.op, left.end);
      if (i >= 0) return i;
    }
    if (node.op === '.' || node.op === '.?') {
      const i = source.indexOf('.', left.end);
      if (i >= 0) return i;
    }
  }
  if (node?.op === 'rcall' && node.args?.[1] && typeof node.args[1].end === 'number') {
    const i = source.indexOf('.', node.args[1].end);
    if (i >= 0) return i;
  }
  const at = node?.pos ?? node?.start ?? err?.range?.start ?? err?.pos;
  return typeof at === 'number' ? at : undefined;
}

/** cel-go's error text: `ERROR: <input>:line:column: detail`, then the line and a caret. */
function report(source: string, e: unknown, detail: string): string {
  const at = offset(source, e) ?? 0;
  const before = source.slice(0, at).split('\n');
  const line = before.length;
  const column = before[before.length - 1]!.length;
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${detail}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

function checkMessage(m: string): string {
  const line = m.split('\n')[0]!.trim();
  const key = /^No such key: (.*)$/.exec(line);
  if (key) return `undefined field '${key[1]}'`;
  const ref = /^Unknown variable: (.*)$/.exec(line);
  if (ref) return `undeclared reference to '${ref[1]}' (in container '')`;
  const op = /^no such overload: (\S+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (\S+)$/.exec(line);
  if (op)
    return `found no matching overload for '${OPERATOR_NAMES[op[2]!]}' applied to '(${op[1]}, ${op[3]})'`;
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
    return { error: report(source, e, `Syntax error: ${checkMessage((e as Error).message)}`) };
  }
  widenHas(parsed.ast as unknown as AstNode);
  const checked = parsed.check();
  if (!checked.valid)
    return { error: report(source, checked.error, checkMessage(checked.error?.message ?? '')) };
  const ast = parsed.ast as unknown as AstNode;
  const names = new Set<string>();
  collectNames(ast, names, new Set());
  applyListTypes(ast);
  instrument(ast);
  const self = vars.get('self');
  const estimator = () => estimateCost(costTree(ast, source), self ? declSizes(self) : NO_SIZES);
  return {
    program: new Program(source, checked.type ?? 'dyn', estimator, (v) => parsed(v), names),
  };
}
