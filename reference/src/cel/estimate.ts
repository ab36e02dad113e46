// Static cost estimate of a checked expression, as Kubernetes 1.28 makes it (cel-go's
// checker/cost.go with Kubernetes' estimators): a walk over the expanded expression
// (estimate-tree.ts) that tracks, for each value reached from a variable, its path through the
// declared types (fields, `@items`, `@keys`, `@values`), so that its size is the declared bound
// there (maxLength, maxItems, maxProperties, else what a request of the largest size can hold);
// a comprehension costs its loop condition and step once per element of the largest range.
// Only the worst case (cel-go's Max) is kept.
import { MAP_CREATE_BASE_COST, SELECT_AND_IDENT_COST } from './cost.ts';
import { add, functionCost, mul, type Size, type Sizer, UNBOUNDED } from './estimate-calls.ts';
import { ACCUMULATOR, type CelKind, type CelType, type CostNode } from './estimate-tree.ts';

/** What the estimate knows of the values its variables hold. */
export interface SizeEstimator {
  /** The size of the value at a path (a variable, then fields, '@items', '@keys', '@values'). */
  estimateSize(path: readonly string[]): Size | undefined;
  /** The kind of the value at a path (for the nodes the checker leaves untyped). */
  kindAt(path: readonly string[]): CelKind | undefined;
}

/** Knows nothing: every size is computed from the expression or unbounded. */
export const NO_SIZES: SizeEstimator = { estimateSize: () => undefined, kindAt: () => undefined };

const PRESENCE_TEST_COST = 1;

function isScalar(t: CelType): boolean {
  switch (t.kind) {
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
    case 'timestamp':
    case 'duration':
      return true;
    default:
      return false;
  }
}

class Coster implements Sizer {
  private readonly paths = new Map<CostNode, string[]>();
  private readonly iterRanges = new Map<string, CostNode[]>();
  private readonly computed = new Map<CostNode, Size>();

  constructor(private readonly est: SizeEstimator) {}

  /** The node's path as the estimators see it (none for an accumulator's values). */
  private path(n: CostNode): string[] | undefined {
    const p = this.paths.get(n);
    return p && p[0] !== ACCUMULATOR ? p : undefined;
  }

  private kind(n: CostNode): CelKind {
    if (n.type.kind !== 'unknown') return n.type.kind;
    const p = this.path(n);
    return (p && this.est.kindAt(p)) || 'unknown';
  }

  private computedSize(n: CostNode): Size | undefined {
    const c = this.computed.get(n);
    if (c) return c;
    switch (n.e) {
      case 'const':
        return { min: n.size, max: n.size };
      case 'list':
        return { min: n.elems.length, max: n.elems.length };
      case 'map':
        return { min: n.entries.length, max: n.entries.length };
      default:
        return undefined;
    }
  }

  private estimated(n: CostNode): Size | undefined {
    const p = this.path(n);
    return p && p.length > 0 ? this.est.estimateSize(p) : undefined;
  }

  size(n: CostNode): Size {
    return this.computedSize(n) ?? this.estimated(n) ?? (isScalar(n.type) ? { min: 1, max: 1 } : UNBOUNDED);
  }

  libSize(n: CostNode): Size {
    return this.computedSize(n) ?? this.estimated(n) ?? UNBOUNDED;
  }

  items(list: CostNode): { size: Size; kind: CelKind } | undefined {
    if (this.kind(list) !== 'list') return undefined;
    const p = this.path(list);
    const size = (p && this.est.estimateSize([...p, '@items'])) || UNBOUNDED;
    return { size, kind: list.type.elem?.kind ?? 'unknown' };
  }

  cost(n: CostNode): number {
    switch (n.e) {
      case 'const':
        return 0;
      case 'ident':
        return this.ident(n);
      case 'select':
        return this.select(n);
      case 'call':
        return this.call(n);
      case 'list': {
        let sum = 0;
        for (const x of n.elems) sum = add(sum, this.cost(x));
        return add(sum, n.base);
      }
      case 'map': {
        let sum = 0;
        for (const [k, v] of n.entries) sum = add(add(sum, this.cost(k)), this.cost(v));
        return add(sum, MAP_CREATE_BASE_COST);
      }
      case 'comp':
        return this.comprehension(n);
    }
  }

  private ident(n: Extract<CostNode, { e: 'ident' }>): number {
    const stack = this.iterRanges.get(n.name);
    const range = stack?.[stack.length - 1];
    if (range) {
      const k = this.kind(range);
      const base = this.paths.get(range) ?? [];
      if (k === 'list') this.paths.set(n, [...base, '@items']);
      else if (k === 'map') this.paths.set(n, [...base, '@keys']);
    } else this.paths.set(n, [n.name]);
    return SELECT_AND_IDENT_COST;
  }

  private select(n: Extract<CostNode, { e: 'select' }>): number {
    // a presence test costs its operand and the test, nothing for the field
    if (n.testOnly) return add(PRESENCE_TEST_COST, this.cost(n.operand));
    let sum = this.cost(n.operand);
    const k = this.kind(n.operand);
    if (k === 'map' || k === 'object' || k === 'param') sum = add(sum, SELECT_AND_IDENT_COST);
    this.paths.set(n, [...(this.paths.get(n.operand) ?? []), n.field]);
    return sum;
  }

  private call(n: Extract<CostNode, { e: 'call' }>): number {
    const argCosts = n.args.map((a) => this.cost(a));
    let sum = 0;
    if (n.target) sum = add(sum, this.cost(n.target));
    // a cost that covers every overload the call may resolve to
    let fnCost = 0;
    let resultSize: Size | undefined;
    for (const o of n.overloads) {
      const c = functionCost(n.fn, o, n.target, n.args, argCosts, this);
      fnCost = Math.max(fnCost, c.cost);
      if (c.resultSize)
        resultSize = resultSize
          ? {
              min: Math.min(resultSize.min, c.resultSize.min),
              max: Math.max(resultSize.max, c.resultSize.max),
            }
          : c.resultSize;
      const operand = n.args[0];
      if (operand && o === 'index_list') this.paths.set(n, [...(this.paths.get(operand) ?? []), '@items']);
      if (operand && o === 'index_map') this.paths.set(n, [...(this.paths.get(operand) ?? []), '@values']);
    }
    if (resultSize) this.computed.set(n, resultSize);
    return add(sum, fnCost);
  }

  private comprehension(n: Extract<CostNode, { e: 'comp' }>): number {
    let sum = add(this.cost(n.range), this.cost(n.init));
    const stack = this.iterRanges.get(n.iterVar) ?? [];
    stack.push(n.range);
    this.iterRanges.set(n.iterVar, stack);
    const loop = this.cost(n.cond);
    const step = this.cost(n.step);
    stack.pop();
    sum = add(sum, this.cost(n.result));
    return add(sum, mul(this.size(n.range).max, add(step, loop)));
  }
}

/** The worst-case cost of an expression (its cost tree) given what is known of its variables. */
export function estimateCost(root: CostNode, sizes: SizeEstimator = NO_SIZES): number {
  return new Coster(sizes).cost(root);
}
