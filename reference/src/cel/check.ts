// Type checking as Kubernetes 1.28 (cel-go) does it, on the evaluator's checker. Each node's
// check is wrapped before checking: the wrapper checks the operands first (as cel-go does), adds
// the rules where the evaluator is laxer than 1.28 (homogeneous list and map literals, no field
// selection on scalars and lists, no comparison across numeric types, index types, names 1.28
// does not declare) and turns an error of the node into cel-go's words, at cel-go's position.
// cel-go goes on after an error (the node gets an error type, which is assignable to anything;
// an undeclared method gets no type, which nothing accepts): so after each error the failing
// node is given that type and the expression is checked again, until it checks or 100 errors.
import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode } from './ast.ts';
import {
  type CheckedType,
  crossNumeric,
  mismatches as literalMismatches,
  formatType,
  protoText,
  selectable,
  UNSET,
} from './check-types.ts';
import { declaredFunctions, HIDDEN_NAMESPACES, NO_METHOD_FORM } from './declared.ts';
import { OPERATOR_NAMES } from './operators.ts';
import { type CompileError, locate } from './report.ts';

/** An error of one node: what cel-go says, and the type the node gets to go on. */
class CheckProblem extends Error {
  constructor(
    readonly errors: CompileError[],
    readonly node: AstNode,
    readonly type: CheckedType,
  ) {
    super(errors[0]?.message);
  }
}

type Check = (chk: any, ast: any, ctx: any) => CheckedType;
type Node = AstNode & { setMeta(k: string, v: unknown): unknown; input: string; pos: number };

const RELATIONAL = new Set(['<', '<=', '>', '>=']);

/** The most errors collected (cel-go shows 100 and counts the rest). */
const MAX_ERRORS = 200;

const typesOf = (ts: CheckedType[]) => ts.map(formatType).join(', ');
const noOverload = (name: string, args: string) =>
  `found no matching overload for '${name}' applied to '${args}'`;
const undeclared = (name: string) => `undeclared reference to '${name}' (in container '')`;
const unset = (t: CheckedType) => t.name === UNSET;
const isBoolish = (t: CheckedType) => t.name === 'bool' || t.kind === 'dyn' || t.kind === 'param';

/** The evaluator's own message of an error (without its source excerpt). */
const summary = (e: any) => String(e?.summary ?? e?.message ?? e).split('\n')[0]!;

/** What the wrappers share for one expression. */
class Checking {
  /** The comprehension whose step a macro's ternary is. */
  readonly stepOf = new Map<AstNode, AstNode>();
  private unset?: CheckedType;

  constructor(
    readonly source: string,
    readonly functions: ReadonlySet<string>,
  ) {}

  at(n: AstNode): number {
    return locate(this.source, n as never);
  }

  problem(n: AstNode, message: string, type: CheckedType, at = this.at(n)): CheckProblem {
    return new CheckProblem([{ at, message }], n, type);
  }

  /** The type cel-go leaves on an undeclared method call (the evaluator has none: one is made). */
  unsetType(chk: any): CheckedType {
    this.unset ??= new chk.dynType.constructor({ kind: 'message', type: UNSET, name: UNSET });
    return this.unset!;
  }

  /** Runs the evaluator's check of the node; an error of its own becomes `convert`'s problem. */
  run(orig: Check, chk: any, ast: any, ctx: any, convert: (e: any) => CheckProblem): CheckedType {
    try {
      return orig(chk, ast, ctx);
    } catch (e) {
      if (e instanceof CheckProblem) throw e;
      throw convert(e);
    }
  }

  /** An error of the evaluator this wrapper has no words for: its own, at its node. */
  fallback(chk: any, ast: AstNode, e: any): CheckProblem {
    return this.problem(ast, summary(e), chk.dynType, this.at(e?.node ?? ast));
  }
}

function wrapCheck(n: Node, make: (orig: Check) => Check): void {
  const orig = n.meta?.check as Check | undefined;
  if (orig) n.setMeta('check', make(orig));
}

/** A node's check wrapped: the evaluator's own (`orig`) with cel-go's errors around it. */
type Wrapper = (c: Checking, orig: Check) => Check;

const wrapId: Wrapper = (c, orig) => (chk, ast, ctx) => {
  if (HIDDEN_NAMESPACES.has(ctx.getVariable(ast.args)?.type?.name))
    throw c.problem(ast, undeclared(ast.args), chk.dynType);
  return c.run(orig, chk, ast, ctx, (e) =>
    e?.code === 'unknown_variable'
      ? c.problem(ast, undeclared(ast.args), chk.dynType)
      : c.fallback(chk, ast, e),
  );
};

const wrapSelect: Wrapper = (c, orig) => (chk, ast, ctx) => {
  selectOn(c, chk, ast, chk.check(ast.args[0], ctx), ast);
  return c.run(orig, chk, ast, ctx, (e) => c.fallback(chk, ast, e));
};

const wrapIndex: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const l = chk.check(ast.args[0], ctx);
  const i = chk.check(ast.args[1], ctx);
  if (!indexable(l, i)) throw c.problem(ast, noOverload('_[_]', `(${typesOf([l, i])})`), chk.dynType);
  return c.run(orig, chk, ast, ctx, (e) => c.fallback(chk, ast, e));
};

const wrapCall: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const [name, args] = ast.args as [string, AstNode[]];
  const types = args.map((a) => chk.check(a, ctx));
  if (!c.functions.has(name)) throw c.problem(ast, undeclared(name), chk.dynType);
  return c.run(orig, chk, ast, ctx, (e) =>
    e?.code === 'no_matching_overload'
      ? c.problem(ast, noOverload(name, `(${typesOf(types)})`), chk.dynType)
      : c.fallback(chk, ast, e),
  );
};

const wrapReceiverCall: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const [name, receiver, args] = ast.args as [string, AstNode, AstNode[]];
  const types = args.map((a) => chk.check(a, ctx));
  const r = chk.check(receiver, ctx);
  if (!c.functions.has(name)) throw c.problem(ast, undeclared(name), c.unsetType(chk));
  const none = () => c.problem(ast, noOverload(name, `${formatType(r)}.(${typesOf(types)})`), chk.dynType);
  if (NO_METHOD_FORM.has(name)) throw none();
  return c.run(orig, chk, ast, ctx, (e) =>
    e?.code === 'no_matching_overload' ? none() : c.fallback(chk, ast, e),
  );
};

// a pushed value of no type: the evaluator cannot make a list of it
const wrapAccuPush: Wrapper = (_c, orig) => (chk, ast, ctx) =>
  unset(chk.check(ast.args, ctx)) ? chk.registry.getListType(chk.dynType) : orig(chk, ast, ctx);

const wrapList: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const types = (ast.args as AstNode[]).map((a) => chk.check(a, ctx));
  const t = types.some(unset)
    ? chk.registry.getListType(chk.dynType)
    : c.run(orig, chk, ast, ctx, (e) => c.fallback(chk, ast, e));
  const errors = mismatches(c, ast.args as AstNode[]);
  if (errors.length) throw new CheckProblem(errors, ast, chk.registry.getListType(chk.dynType));
  return t;
};

const wrapMap: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const entries = ast.args as [AstNode, AstNode][];
  const types = entries.flat().map((a) => chk.check(a, ctx));
  const t = types.some(unset)
    ? chk.registry.getMapType(chk.dynType, chk.dynType)
    : c.run(orig, chk, ast, ctx, (e) => c.fallback(chk, ast, e));
  // keys and values join apart
  const keys = entries.map((e) => e[0]);
  const values = entries.map((e) => e[1]);
  const errors = [...mismatches(c, keys), ...mismatches(c, values)];
  if (errors.length) throw new CheckProblem(errors, ast, chk.registry.getMapType(chk.dynType, chk.dynType));
  return t;
};

const wrapComprehension: Wrapper = (c, orig) => (chk, ast, ctx) =>
  c.run(orig, chk, ast, ctx, (e) => {
    if (e?.code !== 'invalid_comprehension_range') return c.fallback(chk, ast, e);
    const range = ast.args.iterable as AstNode;
    const t = range.checkedType as CheckedType;
    return c.problem(
      range,
      `expression of type '${formatType(t)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
      chk.dynType,
    );
  });

const wrapConditional: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const [cond, yes, no] = (ast.args as AstNode[]).map((a) => chk.check(a, ctx)) as CheckedType[];
  if (!isBoolish(cond!)) throw macroStep(c, chk, ast, [cond!, yes!, no!]);
  return c.run(orig, chk, ast, ctx, (e) =>
    e?.code === 'incompatible_ternary_branches'
      ? c.problem(ast, noOverload('_?_:_', `(${typesOf([cond!, yes!, no!])})`), chk.dynType)
      : c.fallback(chk, ast, e),
  );
};

const wrapLogical: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const l = chk.check(ast.args[0], ctx);
  const r = chk.check(ast.args[1], ctx);
  if (!isBoolish(l) || !isBoolish(r))
    throw c.problem(ast, noOverload(OPERATOR_NAMES[ast.op]!, `(${typesOf([l, r])})`), chk.dynType);
  return c.run(orig, chk, ast, ctx, (e) => c.fallback(chk, ast, e));
};

const wrapUnary: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const t = chk.check(ast.args, ctx);
  return c.run(orig, chk, ast, ctx, (e) =>
    e?.code === 'no_such_overload'
      ? c.problem(ast, noOverload(OPERATOR_NAMES[ast.op]!, `(${formatType(t)})`), chk.dynType)
      : c.fallback(chk, ast, e),
  );
};

/** Any other operator: a binary one (comparison, arithmetic, `in`). */
const wrapBinary: Wrapper = (c, orig) => (chk, ast, ctx) => {
  const l = chk.check(ast.args[0], ctx);
  const r = chk.check(ast.args[1], ctx);
  const none = () => c.problem(ast, noOverload(OPERATOR_NAMES[ast.op]!, `(${typesOf([l, r])})`), chk.dynType);
  if (RELATIONAL.has(ast.op) && crossNumeric(l, r)) throw none();
  return c.run(orig, chk, ast, ctx, (e) =>
    e?.code === 'no_such_overload' ? none() : c.fallback(chk, ast, e),
  );
};

const WRAPPERS = new Map<string, Wrapper>([
  ['id', wrapId],
  ['.', wrapSelect],
  ['[]', wrapIndex],
  ['call', wrapCall],
  ['rcall', wrapReceiverCall],
  ['accuPush', wrapAccuPush],
  ['list', wrapList],
  ['map', wrapMap],
  ['comprehension', wrapComprehension],
  ['?:', wrapConditional],
  ['&&', wrapLogical],
  ['||', wrapLogical],
  ['!_', wrapUnary],
  ['-_', wrapUnary],
]);

/** How the check of a node with this operator is wrapped (none: the evaluator's own is kept). */
function wrapperOf(c: Checking, op: string): ((orig: Check) => Check) | undefined {
  const w = WRAPPERS.get(op) ?? (OPERATOR_NAMES[op] ? wrapBinary : undefined);
  return w && ((orig) => w(c, orig));
}

/** Field selection as cel-go allows it: on maps, messages (a declared field) and values of no known type. */
function selectOn(c: Checking, chk: any, select: AstNode, operand: CheckedType, at: AstNode): void {
  if (!selectable(operand))
    throw c.problem(at, `type '${protoText(operand)}' does not support field selection`, chk.dynType);
  if (operand.kind !== 'message' || !chk.objectTypes?.get(operand.name)?.fields) return;
  try {
    chk.checkAccessOnType(select, undefined, operand);
  } catch (e) {
    if ((e as any)?.code === 'no_such_key')
      throw c.problem(at, `undefined field '${select.args[1]}'`, chk.dynType);
    throw e;
  }
}

/** The index operator's overloads: a list by an int, a map by its key type, anything of no known type. */
function indexable(left: CheckedType, index: CheckedType): boolean {
  const open = (t: CheckedType) => t.kind === 'dyn' || t.kind === 'param';
  if (open(left) || open(index)) return true;
  if (left.kind === 'list') return index.name === 'int';
  if (left.kind === 'map') return open(left.keyType!) || left.keyType!.name === index.name;
  return false;
}

/** The elements of a literal whose types do not join the ones before them, in cel-go's words. */
function mismatches(c: Checking, elements: AstNode[]): CompileError[] {
  return literalMismatches(elements.map((e) => e.checkedType as CheckedType)).map((m) => {
    const el = elements[m.index]!;
    const found = formatType(el.checkedType as CheckedType);
    return { at: c.at(el), message: `expected type '${formatType(m.expected)}' but found '${found}'` };
  });
}

/**
 * A ternary whose condition is not a bool: the step of a macro's expansion says it as cel-go's
 * expansion does (`_&&_` for all, `_||_` for exists, the ternary for exists_one, filter and
 * map), at the macro; a written ternary at its `?`.
 */
function macroStep(c: Checking, chk: any, ast: AstNode, types: CheckedType[]): CheckProblem {
  const macro = c.stepOf.get(ast);
  const label = String((ast.args as AstNode[])[0]?.meta?.label ?? '');
  if (!macro) return c.problem(ast, noOverload('_?_:_', `(${typesOf(types)})`), chk.dynType);
  // the accumulator of filter and map is typed by what they push (the evaluator's is still
  // open), exists_one's counts in ints (the evaluator's in doubles)
  if (label.startsWith('exists_one(')) types = [types[0]!, chk.getType('int'), chk.getType('int')];
  else if ((ast.args as AstNode[])[2]?.op === 'accuValue') types = [types[0]!, types[1]!, types[1]!];
  const at = c.at(macro);
  if (label.startsWith('all('))
    return c.problem(ast, noOverload('_&&_', `(bool, ${formatType(types[0]!)})`), chk.dynType, at);
  if (label.startsWith('exists('))
    return c.problem(ast, noOverload('_||_', `(bool, ${formatType(types[0]!)})`), chk.dynType, at);
  return c.problem(ast, noOverload('_?_:_', `(${typesOf(types)})`), chk.dynType, at);
}

/** Wraps the checks of every node of an expression (its macro expansions included). */
function prepare(c: Checking, root: AstNode): void {
  const seen = new Set<unknown>();
  const visit = (x: unknown) => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    if (Array.isArray(x)) {
      for (const y of x) visit(y);
      return;
    }
    if (!('op' in x)) return;
    const n = x as Node;
    const meta = n.meta;
    // a macro or function 1.28 does not declare (`cel.bind`, `optional.or`) is a plain call
    if (
      (n.op === 'rcall' || n.op === 'call') &&
      meta?.macro &&
      !c.functions.has(n.args[0]) &&
      n.args[0] !== 'has'
    )
      n.setMeta('macro', undefined);
    if (n.op === 'call' && n.args[0] === 'has' && meta?.macro) wrapHas(c, n);
    if (n.op === 'comprehension') c.stepOf.set(n.args.step, n);
    const wrapper = wrapperOf(c, n.op);
    if (wrapper) wrapCheck(n, wrapper);
    visit(meta?.alternate);
    if (n.op === 'comprehension') {
      visit(n.args.iterable);
      visit(n.args.init);
      visit(n.args.step);
    } else visit(n.args);
  };
  visit(root);
}

/** `has(e.f)`: `e` checked, then `f` selected on it as a select would be, both errors at the macro. */
function wrapHas(c: Checking, n: Node): void {
  const macro = n.meta.macro;
  const typeCheck = macro.typeCheck;
  macro.typeCheck = (chk: any, m: any, ctx: any) => {
    const select = m.args?.[0] as AstNode | undefined;
    if (select && select.op === '.') {
      try {
        selectOn(c, chk, select, chk.check(select.args[0], ctx), n);
      } catch (e) {
        if (e instanceof CheckProblem && e.node === n) throw new CheckProblem(e.errors, n, chk.boolType);
        throw e;
      }
    }
    return typeCheck(chk, m, ctx);
  };
}

export type Checked = { type: string } | { errors: CompileError[] };

/** The parsed expression as the evaluator gives it (its check runs on the whole tree again). */
interface Parsed {
  ast: unknown;
  check(): { valid: boolean; type?: string; error?: unknown };
}

/** Type checks a parsed expression as Kubernetes 1.28 does: its type, or every error cel-go reports. */
export function checkAsKubernetes(env: Environment, parsed: Parsed, source: string): Checked {
  const c = new Checking(source, declaredFunctions(env));
  const root = parsed.ast as AstNode;
  prepare(c, root);
  const errors: CompileError[] = [];
  const patched = new Set<AstNode>();
  for (;;) {
    const r = parsed.check();
    if (r.valid) return errors.length ? { errors } : { type: r.type ?? 'dyn' };
    const e = r.error as any;
    if (!(e instanceof CheckProblem)) {
      // an error no wrapper saw: the evaluator's words, and no going on
      errors.push({ at: locate(source, e?.node ?? root), message: summary(e) });
      return { errors };
    }
    errors.push(...e.errors);
    if (errors.length >= MAX_ERRORS || patched.has(e.node)) return { errors };
    patched.add(e.node);
    (e.node as { checkedType?: unknown }).checkedType = e.type;
  }
}
