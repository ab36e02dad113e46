// Cost units of expressions (doc2 "Limits"; the numbers are Kubernetes 1.28's): deterministic,
// independent of hardware. One table serves the static estimate (worst case from schema bounds)
// and the runtime count (actual sizes). The evaluator has no cost tracking of its own, so the
// estimate walks its syntax tree (estimate.ts) and the count instruments its evaluation
// (runtime-cost.ts).

/** Per expression evaluation (Kubernetes' PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Per validation of one custom resource, all rules together (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/**
 * Largest estimate of one expression, times how often it can run in one object
 * (StaticEstimatedCostLimit): what one validation's runtime budget allows.
 */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Sum of the estimates of a definition's rules, each times how often it can run (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** A list literal's fixed base (doc2 "Limits"). */
export const LIST_CREATE_BASE_COST = 40;
export const MAP_CREATE_BASE_COST = 30;
export const SELECT_AND_IDENT_COST = 1;
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
/**
 * What one iteration of a comprehension costs beside its body, as cel-go counts the expanded
 * macro: all/exists/exists_one read the accumulator in the loop condition and in the step and
 * call the condition (3); map/filter read the accumulator once (1).
 */
export const QUANTIFIER_ITERATION_COST = 3;
export const ACCUMULATE_ITERATION_COST = 1;

/** One authorization check. */
export const AUTHZ_CHECK_COST = 350_000;

const traverse = (n: number) => Math.ceil(n * STRING_TRAVERSAL_COST_FACTOR);

/** Cost of an operator node (`==`, `+`, `in`, ...) given the sizes of its operands. */
export function operatorCost(op: string, left: number, right: number, textual: boolean): number {
  switch (op) {
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return textual ? traverse(Math.min(left, right)) : 1;
    case '+':
      return textual ? traverse(left + right) : 1;
    case 'in':
      return textual ? Math.max(1, right) : 1;
    case '&&':
    case '||':
    case '?:':
      return 0;
    default:
      return 1;
  }
}

/**
 * Cost of a function call given the size of its receiver (or first argument) and of its second
 * operand (a pattern, a substring).
 */
export function callCost(name: string, receiverSize: number, argSize: number, onList: boolean): number {
  switch (name) {
    case 'contains':
      return traverse(receiverSize) * traverse(argSize) || 1;
    case 'startsWith':
    case 'endsWith':
      return traverse(receiverSize) || 1;
    case 'matches':
    case 'find':
    case 'findAll':
      return traverse(1 + receiverSize) * Math.ceil(argSize * REGEX_STRING_LENGTH_COST_FACTOR) || 1;
    case 'indexOf':
    case 'lastIndexOf':
      return onList ? receiverSize + 1 : traverse(receiverSize) + 1;
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
      return receiverSize + 1;
    case 'lowerAscii':
    case 'upperAscii':
    case 'trim':
    case 'replace':
    case 'split':
    case 'substring':
    case 'join':
    case 'charAt':
    case 'url':
    case 'isURL':
    case 'string':
    case 'bytes':
      return traverse(receiverSize) + 1;
    case 'check':
      return AUTHZ_CHECK_COST;
    default:
      return 1;
  }
}

/** Functions whose result is at most as long as their receiver. */
export const SIZE_PRESERVING = new Set([
  'lowerAscii',
  'upperAscii',
  'trim',
  'substring',
  'split',
  'string',
  'bytes',
]);

/** The size of a value for cost purposes: length of text and lists, entries of maps, else 1. */
export function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.keys(v).length;
  return 1;
}

/** Whether operators on this value cost by its size (text, bytes, lists, maps). */
export function isSized(v: unknown): boolean {
  return typeof v === 'string' || v instanceof Uint8Array || Array.isArray(v) || v instanceof Map;
}

/** Go's `%.<digits>f`: the exact binary value rounded, a tie to even (JS's toFixed rounds a tie up). */
export function goFixed(x: number, digits: number): string {
  const wide = x.toFixed(Math.min(100, digits + 40));
  const cut = wide.indexOf('.') + digits + (digits > 0 ? 1 : 0);
  const rest = wide.slice(cut).replace('.', '');
  if (!/^50*$/.test(rest)) return x.toFixed(digits);
  const kept = wide.slice(0, cut);
  const last = Number(kept.replace('.', '').slice(-1));
  return last % 2 === 0 ? kept.replace(/\.$/, '') : x.toFixed(digits);
}

/**
 * Kubernetes' wording of an estimate over a limit: "more than 100x" beyond a hundred, Go's `%fx`
 * below 1.5, else `%.1fx`.
 */
export function exceedFactor(cost: number, limit: number): string {
  const f = cost / limit;
  if (f > 100) return 'more than 100x';
  if (f < 1.5) return `${goFixed(f, 6)}x`;
  return `${goFixed(f, 1)}x`;
}
