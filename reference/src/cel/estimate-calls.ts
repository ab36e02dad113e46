// What a call costs in Kubernetes 1.28's estimate, given what is known of the sizes of its
// operands: first the Kubernetes libraries' estimator (authorizer, lists, strings, regex, URL,
// by function name), then cel-go's checker (sized operators and string functions), else 1. Sizes
// and costs are unsigned 64-bit in cel-go and saturate at its maximum; here they are numbers that
// saturate at 2^64 (beyond 2^53 they are approximate, far above every limit).
import { AUTHZ_CHECK_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR } from './cost.ts';
import type { CelKind, CostNode } from './estimate-tree.ts';

/** cel-go's math.MaxUint64, as a number. */
export const U64 = 2 ** 64;

export interface Size {
  min: number;
  max: number;
}

export const UNBOUNDED: Size = { min: 0, max: U64 };

export function add(x: number, y: number): number {
  return y > 0 && x > U64 - y ? U64 : x + y;
}

export function mul(x: number, y: number): number {
  return x > 0 && y > 0 && x > U64 / y ? U64 : x * y;
}

/** A size or cost times a cost factor, rounded up. */
export function byFactor(x: number, f: number): number {
  return x > 0 && f > 0 && x > U64 / f ? U64 : Math.ceil(x * f);
}

const addSize = (a: Size, b: Size): Size => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const mulSize = (a: Size, b: Size): Size => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });

/** Go's uint64(f) of a float64 on amd64: out of range (and NaN) give 2^63. */
function toU64(f: number): number {
  return Number.isFinite(f) && f >= 0 && f < U64 ? Math.floor(f) : 2 ** 63;
}

/** Go's uint64 product, which wraps (the replace estimate multiplies without a guard). */
function wrapMul(x: number, y: number): number {
  return Number((BigInt(Math.floor(x)) * BigInt(Math.floor(y))) % 2n ** 64n);
}

/** What the estimate knows of the sizes of nodes. */
export interface Sizer {
  /** cel-go's sizeEstimate: computed, estimated from declared bounds, 1 for a scalar, else unbounded. */
  size(n: CostNode): Size;
  /** The Kubernetes libraries' sizeEstimate: computed or estimated from declared bounds, else unbounded. */
  libSize(n: CostNode): Size;
  /** The libraries' size of the items of a list node, and their kind; undefined when not a list. */
  items(list: CostNode): { size: Size; kind: CelKind } | undefined;
}

export interface CallEstimate {
  cost: number;
  resultSize?: Size;
}

const AUTHZ_BUILDERS = new Set([
  'serviceAccount',
  'path',
  'group',
  'resource',
  'subresource',
  'namespace',
  'name',
  'allowed',
  'reason',
  'error',
  'errored',
]);

const T = STRING_TRAVERSAL_COST_FACTOR;

/** Kubernetes' library estimator (k8s.io/apiserver/pkg/cel/library/cost.go), by function name. */
function libraryCost(
  fn: string,
  target: CostNode | undefined,
  args: CostNode[],
  s: Sizer,
): CallEstimate | undefined {
  switch (fn) {
    case 'check':
      return { cost: AUTHZ_CHECK_COST };
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf': {
      if (!target) return undefined;
      const items = s.items(target);
      if (items) {
        let el = 1;
        if (items.kind === 'string' || items.kind === 'bytes') el = add(el, byFactor(items.size.max, T));
        return { cost: mul(s.libSize(target).max, el) };
      }
      return { cost: byFactor(s.libSize(target).max, T) };
    }
    case 'url':
      if (args.length === 1) return { cost: byFactor(s.libSize(args[0]!).max, T) };
      return undefined;
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim': {
      if (!target) return undefined;
      const sz = s.libSize(target);
      return { cost: byFactor(sz.max, T), resultSize: sz };
    }
    case 'replace': {
      if (!target || args.length < 2) return undefined;
      const sz = s.libSize(target);
      const from = s.libSize(args[0]!);
      const to = s.libSize(args[1]!);
      const min = wrapMul(toU64(Math.ceil(sz.min / from.max)), to.min);
      const max = wrapMul(toU64(Math.ceil(sz.max / from.min)), to.max);
      return { cost: byFactor(sz.max, 2 * T), resultSize: { min, max } };
    }
    case 'split': {
      if (!target) return undefined;
      const sz = s.libSize(target);
      let max = sz.max;
      const limit = args[1];
      // a constant limit bounds the parts (a negative one wraps, as Go's uint64 does)
      if (limit?.e === 'const' && limit.type.kind === 'int' && limit.value !== undefined)
        max = Number(BigInt.asUintN(64, BigInt(limit.value as bigint)));
      return { cost: byFactor(sz.max, 2 * T), resultSize: { min: 0, max } };
    }
    case 'join': {
      if (!target) return undefined;
      let sz: Size = { min: 0, max: 0 };
      const list = s.libSize(target);
      const items = s.items(target);
      if (items) sz = mulSize(list, items.size);
      if (args.length > 0) {
        const sep = s.libSize(args[0]!);
        const seps: Size = { min: list.min > 0 ? list.min - 1 : 0, max: list.max > 0 ? list.max - 1 : 0 };
        sz = addSize(sz, mulSize(sep, seps));
      }
      return { cost: byFactor(sz.max, T), resultSize: sz };
    }
    case 'find':
    case 'findAll': {
      if (!target || args.length < 1) return undefined;
      const sz = s.libSize(target);
      const str = byFactor(add(sz.max, 1), T);
      const re = byFactor(s.libSize(args[0]!).max, REGEX_STRING_LENGTH_COST_FACTOR);
      return { cost: mul(str, re), resultSize: { min: 0, max: sz.max } };
    }
    default:
      if (AUTHZ_BUILDERS.has(fn)) return { cost: 1 };
      return undefined;
  }
}

/** cel-go's checker (checker/cost.go functionCost) for one overload: the call's cost with its arguments'. */
function checkerCost(
  overload: string,
  target: CostNode | undefined,
  args: CostNode[],
  argCosts: number[],
  s: Sizer,
): CallEstimate {
  const argSum = sumOf(argCosts);
  const plus = (cost: number, resultSize?: Size): CallEstimate => ({
    cost: add(cost, argSum),
    ...(resultSize ? { resultSize } : {}),
  });
  switch (overload) {
    case 'string_to_bytes': {
      const sz = s.size(args[0]!);
      return plus(byFactor(sz.max, T), { min: sz.min, max: mul(sz.max, 4) });
    }
    case 'bytes_to_string': {
      const sz = s.size(args[0]!);
      return plus(byFactor(sz.max, T), { min: Math.floor(sz.min / 4), max: sz.max });
    }
    case 'starts_with_string':
    case 'ends_with_string':
      if (args.length === 1) return plus(byFactor(s.size(args[0]!).max, T));
      break;
    case 'in_list':
      if (args.length === 2) return plus(byFactor(s.size(args[1]!).max, 1));
      break;
    case 'matches_string':
      if (target && args.length === 1) {
        const str = byFactor(add(s.size(target).max, 1), T);
        const re = byFactor(s.size(args[0]!).max, REGEX_STRING_LENGTH_COST_FACTOR);
        return plus(mul(str, re));
      }
      break;
    case 'contains_string':
      if (target && args.length === 1)
        return plus(mul(byFactor(s.size(target).max, T), byFactor(s.size(args[0]!).max, T)));
      break;
    case 'logical_and':
    case 'logical_or':
      // the operands' costs, nothing of its own
      return { cost: add(argCosts[0]!, argCosts[1]!) };
    case 'conditional': {
      const a = s.size(args[1]!);
      const b = s.size(args[2]!);
      return {
        cost: add(argCosts[0]!, Math.max(argCosts[1]!, argCosts[2]!)),
        resultSize: { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) },
      };
    }
    case 'add_string':
    case 'add_bytes':
    case 'add_list':
      if (args.length === 2) {
        const size = addSize(s.size(args[0]!), s.size(args[1]!));
        return plus(overload === 'add_list' ? 1 : byFactor(size.max, T), size);
      }
      break;
    case 'compare_text':
    case 'equals':
    case 'not_equals':
      return plus(byFactor(Math.min(s.size(args[0]!).max, s.size(args[1]!).max), T));
  }
  return plus(1);
}

function sumOf(xs: number[]): number {
  let t = 0;
  for (const x of xs) t = add(t, x);
  return t;
}

/** The cost of a call through one of its overloads, its arguments' included (not its target's). */
export function functionCost(
  fn: string,
  overload: string,
  target: CostNode | undefined,
  args: CostNode[],
  argCosts: number[],
  s: Sizer,
): CallEstimate {
  const lib = libraryCost(fn, target, args, s);
  if (lib) return { ...lib, cost: add(lib.cost, sumOf(argCosts)) };
  return checkerCost(overload, target, args, argCosts, s);
}
