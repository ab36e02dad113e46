// Static cost estimate of a checked expression: its worst case given the size bounds of the
// declared types its variables have (maxLength, maxItems, maxProperties, else what a request of
// the largest size can hold). Comprehensions cost their body once per element of the largest
// range; conditionals their costlier branch.
import { type AstNode, isBinary } from './ast.ts';
import {
  ACCUMULATE_ITERATION_COST,
  callCost,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  operatorCost,
  QUANTIFIER_ITERATION_COST,
  SIZE_PRESERVING,
} from './cost.ts';
import { MAX_REQUEST_SIZE_BYTES } from './size.ts';
import type { DeclType } from './types.ts';

interface Est {
  cost: number;
  /** Largest size of the value (text length, items, entries). */
  size: number;
  decl?: DeclType;
}

const UNKNOWN = MAX_REQUEST_SIZE_BYTES;
const SIZED_KINDS = new Set(['string', 'bytes', 'list', 'map']);

function sized(n: AstNode, e: Est): boolean {
  const k = e.decl?.kind ?? n.checkedType?.kind;
  return k ? SIZED_KINDS.has(k) : false;
}

/** The worst-case cost of a checked expression whose variables have the given declared types. */
export function estimateCost(root: AstNode, vars: Map<string, DeclType>): number {
  return est(root, vars).cost;
}

function est(n: AstNode, scope: Map<string, DeclType>): Est {
  const meta = n.meta;
  if (meta?.alternate) return est(meta.alternate, scope);
  if (meta?.macro) {
    const m = meta.macro;
    if (m.macroHasProps) {
      let cost = 1;
      for (const p of m.macroHasProps) cost += p.op === 'id' ? 1 : 1;
      return { cost, size: 1 };
    }
    if (m.val && m.exp && m.var) {
      const v = est(m.val, scope);
      const inner = new Map(scope);
      if (v.decl) inner.set(m.var, v.decl);
      const e = est(m.exp, inner);
      return { cost: v.cost + e.cost, size: e.size, decl: e.decl };
    }
    return { cost: 1, size: UNKNOWN };
  }
  switch (n.op) {
    case 'value': {
      const v = n.args;
      return { cost: 0, size: typeof v === 'string' || v instanceof Uint8Array ? v.length : 1 };
    }
    case 'id': {
      const d = scope.get(n.args as string);
      return { cost: 1, size: d ? d.maxSize : 1, decl: d };
    }
    case '.':
    case '.?': {
      const p = est(n.args[0], scope);
      const f =
        p.decl?.kind === 'message'
          ? [...p.decl.fields!.values()].find((x) => x.cel === n.args[1])
          : undefined;
      const d = f?.type ?? (p.decl?.kind === 'map' ? p.decl.elem : undefined);
      return { cost: p.cost + 1, size: d ? d.maxSize : UNKNOWN, decl: d };
    }
    case '[]':
    case '[?]': {
      const p = est(n.args[0], scope);
      const i = est(n.args[1], scope);
      const d = p.decl?.elem;
      return { cost: p.cost + i.cost + 1, size: d ? d.maxSize : UNKNOWN, decl: d };
    }
    case 'list': {
      let cost = LIST_CREATE_BASE_COST;
      for (const c of n.args as AstNode[]) cost += est(c, scope).cost;
      return { cost, size: (n.args as AstNode[]).length };
    }
    case 'map': {
      let cost = MAP_CREATE_BASE_COST;
      for (const [k, v] of n.args as [AstNode, AstNode][]) cost += est(k, scope).cost + est(v, scope).cost;
      return { cost, size: (n.args as unknown[]).length };
    }
    case '?:': {
      const [c, l, r] = (n.args as AstNode[]).map((x) => est(x, scope));
      return { cost: c!.cost + Math.max(l!.cost, r!.cost), size: Math.max(l!.size, r!.size) };
    }
    case '!_':
    case '-_': {
      const a = est(n.args, scope);
      return { cost: a.cost + 1, size: 1 };
    }
    case 'comprehension': {
      const a = n.args;
      const it = est(a.iterable, scope);
      const inner = new Map(scope);
      const elem = it.decl?.kind === 'list' ? it.decl.elem : undefined;
      if (elem) inner.set(a.iterVarName, elem);
      else inner.delete(a.iterVarName);
      const init = a.init ? est(a.init, inner).cost : 0;
      const step = est(a.step, inner).cost;
      const overhead = a.kind === 'quantifier' ? QUANTIFIER_ITERATION_COST : ACCUMULATE_ITERATION_COST;
      return { cost: it.cost + init + it.size * (step + overhead), size: it.size };
    }
    case 'accuValue':
    case 'accuInc':
      return { cost: 1, size: UNKNOWN };
    case 'accuPush': {
      const e = est(n.args, scope);
      return { cost: e.cost + 1, size: UNKNOWN };
    }
    case 'call':
    case 'rcall': {
      const name = n.args[0] as string;
      const operands: AstNode[] = n.op === 'rcall' ? [n.args[1], ...n.args[2]] : n.args[1];
      const ests = operands.map((x) => est(x, scope));
      let cost = 0;
      for (const e of ests) cost += e.cost;
      const first = ests[0];
      const second = ests[1];
      const onList = first?.decl?.kind === 'list' || operands[0]?.checkedType?.kind === 'list';
      cost += callCost(name, first?.size ?? 1, second?.size ?? 1, onList);
      let size = UNKNOWN;
      if (name === 'size' || n.checkedType?.kind === 'bool') size = 1;
      else if (SIZE_PRESERVING.has(name) && first) size = first.size;
      else if (name === 'charAt') size = 1;
      return { cost, size };
    }
    default: {
      if (!isBinary(n.op)) return { cost: 1, size: UNKNOWN };
      const l = est(n.args[0], scope);
      const r = est(n.args[1], scope);
      const textual = sized(n.args[0], l) && sized(n.args[1], r);
      let own: number;
      if (n.op === 'in') own = operatorCost('in', 1, r.size, sized(n.args[1], r));
      else own = operatorCost(n.op, l.size, r.size, textual);
      const size = n.op === '+' && textual ? l.size + r.size : 1;
      return { cost: l.cost + r.cost + own, size };
    }
  }
}
