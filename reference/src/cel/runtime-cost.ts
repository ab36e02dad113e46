// The runtime cost count: every node of a compiled expression is wrapped so that evaluating it
// adds its cost (cost.ts) to the tracker of the running evaluation, and an evaluation over its
// limit stops at once with a CostLimitError. Size-dependent costs read the operand values the
// node's children just produced.
import { type AstNode, children, isBinary } from './ast.ts';
import {
  ACCUMULATE_ITERATION_COST,
  callCost,
  isSized,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  operatorCost,
  QUANTIFIER_ITERATION_COST,
  sizeOf,
} from './cost.ts';
import { CostLimitError } from './errors.ts';

export class CostTracker {
  cost = 0;
  exceeded = false;
  constructor(readonly limit: number) {}
}

let active: CostTracker | undefined;

/** Runs `fn` counting the cost of the expressions it evaluates on `tracker`. */
export function track<T>(tracker: CostTracker, fn: () => T): T {
  const prev = active;
  active = tracker;
  try {
    return fn();
  } finally {
    active = prev;
  }
}

/** Where a node's value is kept for the parent whose cost depends on it. */
interface Cell {
  v: unknown;
}

/**
 * A node's cost: a number when it does not depend on the values evaluated, else a function of
 * the operands' cells (made here, for the children whose values the cost reads).
 */
function costOf(n: AstNode, cellOf: (n: AstNode | undefined) => Cell | undefined): number | (() => number) {
  const op = n.op;
  switch (op) {
    case 'value':
    case 'comprehension':
    case '?:':
    case '&&':
    case '||':
      return 0;
    case 'id':
    case '.':
    case '.?':
    case '[]':
    case '[?]':
    case 'accuValue':
    case 'accuInc':
    case 'accuPush':
    case '!_':
    case '-_':
      return 1;
    case 'list':
      return LIST_CREATE_BASE_COST;
    case 'map':
      return MAP_CREATE_BASE_COST;
    case 'call':
    case 'rcall': {
      const name = n.args[0] as string;
      if (n.meta?.alternate || n.meta?.macro) return name === 'has' ? 1 : 0;
      const a = cellOf(op === 'rcall' ? n.args[1] : n.args[1][0]);
      const b = cellOf(op === 'rcall' ? n.args[2][0] : n.args[1][1]);
      return () => {
        const first = a?.v;
        return callCost(name, sizeOf(first), sizeOf(b?.v), Array.isArray(first));
      };
    }
    default: {
      if (!isBinary(op)) return 1;
      const l = cellOf(n.args[0])!;
      const r = cellOf(n.args[1])!;
      if (op === 'in') return () => operatorCost(op, 1, sizeOf(r.v), Array.isArray(r.v));
      return () => operatorCost(op, sizeOf(l.v), sizeOf(r.v), isSized(l.v) && isSized(r.v));
    }
  }
}

/**
 * Wraps every node of a checked expression so that its evaluation is counted. Once per
 * expression. Written for speed (a limit of ten million units is reached in a validation): a
 * node's fixed cost is found once, and only the values a parent's cost reads are kept.
 */
export function instrument(root: AstNode): void {
  const nodes: AstNode[] = [];
  const seen = new Set<AstNode>();
  const collect = (n: AstNode) => {
    if (!n || seen.has(n)) return;
    seen.add(n);
    for (const c of children(n)) collect(c);
    nodes.push(n);
  };
  collect(root);
  const cells = new Map<AstNode, Cell>();
  const cellOf = (n: AstNode | undefined): Cell | undefined => {
    if (!n) return undefined;
    let c = cells.get(n);
    if (!c) {
      c = { v: undefined };
      cells.set(n, c);
    }
    return c;
  };
  const costs = new Map(nodes.map((n) => [n, costOf(n, cellOf)]));
  // a comprehension's body runs once per iteration: it carries the iteration's own cost
  const overheads = new Map<AstNode, number>();
  for (const n of nodes)
    if (n.op === 'comprehension' && n.args.step)
      overheads.set(
        n.args.step,
        n.args.kind === 'quantifier' ? QUANTIFIER_ITERATION_COST : ACCUMULATE_ITERATION_COST,
      );
  for (const n of nodes) {
    const meta = n.meta;
    // the evaluator's own dispatch: an expansion, a macro, or the operator itself
    const inner: (ev: any, ast: any, ctx: any) => unknown = meta?.alternate
      ? (ev, _a, ctx) => meta.alternate.evaluate(ev, meta.alternate, ctx)
      : meta?.macro
        ? (ev, _a, ctx) => meta.macro.evaluate(ev, meta.macro, ctx)
        : meta.evaluate;
    const cell = cells.get(n);
    const cost = costs.get(n)!;
    const overhead = overheads.get(n) ?? 0;
    const fixed = typeof cost === 'number' ? cost + overhead : 0;
    const dynamic = typeof cost === 'function' ? cost : undefined;
    n.evaluate = function counted(ev, a, ctx) {
      const t = active;
      if (t?.exceeded) throw new CostLimitError();
      const r = inner.call(this, ev, a, ctx);
      if (cell !== undefined) cell.v = r;
      if (t !== undefined) {
        t.cost += dynamic === undefined ? fixed : dynamic() + overhead;
        if (t.cost > t.limit) {
          t.exceeded = true;
          throw new CostLimitError();
        }
      }
      return r;
    };
  }
}
