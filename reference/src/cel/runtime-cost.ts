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

const LAST = Symbol('last value');
type Counted = AstNode & { [LAST]?: unknown };
const last = (n: AstNode | undefined): unknown => (n as Counted | undefined)?.[LAST];

function nodeCost(n: AstNode): number {
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
      const first = op === 'rcall' ? last(n.args[1]) : last(n.args[1][0]);
      const second = op === 'rcall' ? last(n.args[2][0]) : last(n.args[1][1]);
      return callCost(name, sizeOf(first), sizeOf(second), Array.isArray(first));
    }
    default: {
      if (!isBinary(op)) return 1;
      const l = last(n.args[0]);
      const r = last(n.args[1]);
      if (op === 'in') return operatorCost(op, 1, sizeOf(r), Array.isArray(r));
      return operatorCost(op, sizeOf(l), sizeOf(r), isSized(l) && isSized(r));
    }
  }
}

const OVERHEAD = Symbol('iteration overhead');
type Stepped = AstNode & { [OVERHEAD]?: number };

/** Wraps every node of a checked expression so that its evaluation is counted. Once per expression. */
export function instrument(root: AstNode): void {
  const seen = new Set<AstNode>();
  const visit = (n: AstNode) => {
    if (!n || seen.has(n)) return;
    seen.add(n);
    // a comprehension's body runs once per iteration: it carries the iteration's own cost
    if (n.op === 'comprehension' && n.args.step)
      (n.args.step as Stepped)[OVERHEAD] =
        n.args.kind === 'quantifier' ? QUANTIFIER_ITERATION_COST : ACCUMULATE_ITERATION_COST;
    for (const c of children(n)) visit(c);
    const meta = n.meta;
    // the evaluator's own dispatch: an expansion, a macro, or the operator itself
    const inner: (ev: any, ast: any, ctx: any) => unknown = meta?.alternate
      ? (ev, _a, ctx) => meta.alternate.evaluate(ev, meta.alternate, ctx)
      : meta?.macro
        ? (ev, _a, ctx) => meta.macro.evaluate(ev, meta.macro, ctx)
        : meta.evaluate;
    n.evaluate = function counted(ev, a, ctx) {
      const t = active;
      if (t?.exceeded) throw new CostLimitError();
      const r = inner.call(this, ev, a, ctx);
      (n as Counted)[LAST] = r;
      if (t) {
        t.cost += nodeCost(n) + ((n as Stepped)[OVERHEAD] ?? 0);
        if (t.cost > t.limit) {
          t.exceeded = true;
          throw new CostLimitError();
        }
      }
      return r;
    };
  };
  visit(root);
}
