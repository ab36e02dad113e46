// The checked expression as Kubernetes 1.28's cost estimator (cel-go's checker) walks it: its
// macros expanded into comprehensions the way cel-go's parser expands them (an accumulator
// `__result__`, a loop condition, a step and a result), `has()` a presence test, a negative
// number literal a constant, and each call named with the overloads it may resolve to. The
// estimate (estimate.ts) counts on this tree, so that an expression costs what it costs there.
import type { AstNode } from './ast.ts';
import { LIST_CREATE_BASE_COST } from './cost.ts';
import { OPERATOR_NAMES } from './operators.ts';
import { DURATION, TIMESTAMP } from './types.ts';

export type CelKind =
  | 'int'
  | 'uint'
  | 'double'
  | 'bool'
  | 'string'
  | 'bytes'
  | 'null'
  | 'type'
  | 'timestamp'
  | 'duration'
  | 'list'
  | 'map'
  | 'object'
  | 'dyn'
  | 'param'
  | 'abstract'
  | 'unknown';

export interface CelType {
  kind: CelKind;
  /** list: its items; map: its values. */
  elem?: CelType;
}

interface Base {
  type: CelType;
}

export type CostNode =
  | (Base & { e: 'const'; size: number; value?: unknown })
  | (Base & { e: 'ident'; name: string })
  | (Base & { e: 'select'; operand: CostNode; field: string; testOnly: boolean })
  | (Base & { e: 'call'; fn: string; overloads: string[]; target?: CostNode; args: CostNode[] })
  | (Base & { e: 'list'; elems: CostNode[]; base: number })
  | (Base & { e: 'map'; entries: [CostNode, CostNode][] })
  | (Base & {
      e: 'comp';
      iterVar: string;
      range: CostNode;
      accuVar: string;
      init: CostNode;
      cond: CostNode;
      step: CostNode;
      result: CostNode;
    });

/** The accumulator of an expanded macro (cel-go's parser.AccumulatorName). */
export const ACCUMULATOR = '__result__';

/**
 * A list the expansion of a macro creates (cel-go's ListCreateBaseCost). A list literal written
 * in the expression costs doc2's base of 40 (cost.ts), where Kubernetes 1.28 counts this 10 too.
 */
export const MACRO_LIST_BASE_COST = 10;

const T = (kind: CelKind, elem?: CelType): CelType => (elem ? { kind, elem } : { kind });
const BOOL = T('bool');
const INT = T('int');
const DYN_LIST = T('list', T('dyn'));

/** The kind of a type of the evaluator's checker. */
export function celType(t: any): CelType {
  if (!t) return T('unknown');
  switch (t.kind) {
    case 'primitive':
      return T(
        (['int', 'uint', 'double', 'bool', 'string', 'bytes', 'null', 'type'] as const).includes(t.name)
          ? t.name
          : 'unknown',
      );
    case 'message':
      if (t.name === TIMESTAMP) return T('timestamp');
      if (t.name === DURATION) return T('duration');
      // the libraries' own types (URL, authorizer, ...) are opaque, as in cel-go
      return T(String(t.name).startsWith('orch.') ? 'abstract' : 'object');
    case 'list':
      return T('list', celType(t.valueType));
    case 'map':
      return T('map', celType(t.valueType));
    case 'dyn':
      return T('dyn');
    case 'param':
      return T('param');
    case 'optional':
      return T('abstract');
    default:
      return T('unknown');
  }
}

const isAny = (k: CelKind) => k === 'dyn' || k === 'param' || k === 'unknown';

/** The overloads of a binary operator that operands of these kinds may resolve to. */
function operatorOverloads(op: string, l: CelKind, r: CelKind): string[] {
  switch (op) {
    case '==':
      return ['equals'];
    case '!=':
      return ['not_equals'];
    case '<':
    case '<=':
    case '>':
    case '>=': {
      // strings and bytes compare by size, every other overload costs 1
      const text = (k: CelKind) => k === 'string' || k === 'bytes';
      if (text(l) || text(r)) return ['compare_text'];
      if (isAny(l) && isAny(r)) return ['compare_text', 'compare_other'];
      return ['compare_other'];
    }
    case '+': {
      const known = !isAny(l) ? l : r;
      if (isAny(l) && isAny(r)) return ['add_string', 'add_bytes', 'add_list', 'add_other'];
      if (known === 'string') return ['add_string'];
      if (known === 'bytes') return ['add_bytes'];
      if (known === 'list') return ['add_list'];
      return ['add_other'];
    }
    case 'in':
      if (r === 'list') return ['in_list'];
      if (r === 'map') return ['in_map'];
      return ['in_list', 'in_map'];
    default:
      return ['other'];
  }
}

/** The overloads of a function call (only the ones whose cost differs are told apart). */
function callOverloads(name: string, member: boolean, args: CostNode[]): string[] {
  const a0 = args[0]?.type.kind ?? 'unknown';
  switch (name) {
    case 'matches':
      return [member ? 'matches_string' : 'matches'];
    case 'contains':
      return member ? ['contains_string'] : ['other'];
    case 'startsWith':
      return member ? ['starts_with_string'] : ['other'];
    case 'endsWith':
      return member ? ['ends_with_string'] : ['other'];
    case 'bytes':
      if (member) return ['other'];
      if (a0 === 'string') return ['string_to_bytes'];
      return isAny(a0) ? ['other', 'string_to_bytes'] : ['other'];
    case 'string':
      if (member) return ['other'];
      if (a0 === 'bytes') return ['bytes_to_string'];
      return isAny(a0) ? ['other', 'bytes_to_string'] : ['other'];
    default:
      return ['other'];
  }
}

class Converter {
  constructor(private readonly source: string) {}

  private ident(name: string, type: CelType): CostNode {
    return { e: 'ident', name, type };
  }

  private constant(type: CelType, size = 1, value?: unknown): CostNode {
    return { e: 'const', type, size, ...(value === undefined ? {} : { value }) };
  }

  private call(
    fn: string,
    overloads: string[],
    args: CostNode[],
    type: CelType,
    target?: CostNode,
  ): CostNode {
    return { e: 'call', fn, overloads, args, type, ...(target ? { target } : {}) };
  }

  /** A negative number literal (`-1`, `- 2.5`): one constant to cel-go's parser. */
  private negativeLiteral(n: AstNode): boolean {
    const v = n.args as AstNode & { start?: number };
    const self = n as AstNode & { start?: number };
    if (v?.op !== 'value' || !['int', 'double', 'uint'].includes(v.checkedType?.name ?? '')) return false;
    if (typeof self.start !== 'number' || typeof v.start !== 'number') return false;
    return this.source.slice(self.start, v.start).trim() === '-';
  }

  /** Whether `inner` follows the `run` operator characters that start `outer`, with no parenthesis between. */
  private adjacent(outer: AstNode, inner: AstNode, run: number, op: '!' | '-'): boolean {
    const a = (outer as AstNode & { start?: number }).start;
    const b = (inner as AstNode & { start?: number }).start;
    if (typeof a !== 'number' || typeof b !== 'number') return false;
    const between = this.source.slice(a, b).replace(/\s/g, '');
    return between === op.repeat(run);
  }

  node(n: AstNode): CostNode {
    const type = celType(n.checkedType);
    switch (n.op) {
      case 'value':
        return this.literal(n, type);
      case 'id':
        return this.ident(n.args as string, type);
      case '.':
        return {
          e: 'select',
          operand: this.node(n.args[0]),
          field: n.args[1] as string,
          testOnly: false,
          type,
        };
      case '.?':
        return this.call('_?._', ['other'], [this.node(n.args[0]), this.constant(T('string'))], type);
      case '[]':
        return this.index(n, type);
      case '[?]':
        return this.call('_[?_]', ['other'], [this.node(n.args[0]), this.node(n.args[1])], type);
      case 'list':
        return {
          e: 'list',
          elems: (n.args as AstNode[]).map((x) => this.node(x)),
          base: LIST_CREATE_BASE_COST,
          type,
        };
      case 'map':
        return {
          e: 'map',
          entries: (n.args as [AstNode, AstNode][]).map(([k, v]) => [this.node(k), this.node(v)]),
          type,
        };
      case '?:':
        return this.call(
          '_?_:_',
          ['conditional'],
          (n.args as AstNode[]).map((x) => this.node(x)),
          type,
        );
      case '&&':
        return this.call('_&&_', ['logical_and'], [this.node(n.args[0]), this.node(n.args[1])], type);
      case '||':
        return this.call('_||_', ['logical_or'], [this.node(n.args[0]), this.node(n.args[1])], type);
      case '!_':
        return this.unary(n, '!', '!_', type);
      case '-_': {
        if (this.negativeLiteral(n)) {
          const v = (n.args as AstNode).args;
          return this.constant(type, 1, typeof v === 'bigint' || typeof v === 'number' ? -v : undefined);
        }
        return this.unary(n, '-', '-_', type);
      }
      case 'call':
      case 'rcall':
        return this.invocation(n, type);
      default:
        return this.operator(n, type);
    }
  }

  /** A literal: its size is its length for strings (in code points) and bytes. */
  private literal(n: AstNode, type: CelType): CostNode {
    const v = n.args;
    if (type.kind === 'string') return this.constant(type, [...(v as string)].length);
    if (type.kind === 'bytes') return this.constant(type, (v as Uint8Array).length);
    return this.constant(type, 1, v);
  }

  private index(n: AstNode, type: CelType): CostNode {
    const operand = this.node(n.args[0]);
    const k = operand.type.kind;
    const overloads =
      k === 'list' ? ['index_list'] : k === 'map' ? ['index_map'] : ['index_list', 'index_map'];
    return this.call('_[_]', overloads, [operand, this.node(n.args[1])], type);
  }

  /** `!x` or `-x`: cel-go's parser drops an even run of the operator (`!!x` and `--x` are x). */
  private unary(n: AstNode, op: '!' | '-', fn: '!_' | '-_', type: CelType): CostNode {
    let inner = n.args as AstNode;
    let run = 1;
    while (inner.op === fn && this.adjacent(n, inner, run, op)) {
      run++;
      inner = inner.args as AstNode;
    }
    if (run % 2 === 0) return this.node(inner);
    return this.call(fn, ['other'], [this.node(inner)], type);
  }

  /** A binary operator (an unknown node: a constant). */
  private operator(n: AstNode, type: CelType): CostNode {
    const sym = OPERATOR_NAMES[n.op];
    if (!sym) return this.constant(type);
    const l = this.node(n.args[0]);
    const r = this.node(n.args[1]);
    return this.call(sym, operatorOverloads(n.op, l.type.kind, r.type.kind), [l, r], type);
  }

  private invocation(n: AstNode, type: CelType): CostNode {
    const name = n.args[0] as string;
    const member = n.op === 'rcall';
    const alt = n.meta?.alternate as AstNode | undefined;
    if (alt?.op === 'comprehension' && member) return this.macro(name, n, alt, type);
    const macro = n.meta?.macro;
    if (macro && name === 'has') {
      const sel = (n.args[1] as AstNode[])[0]!;
      return {
        e: 'select',
        operand: this.node(sel.args[0]),
        field: sel.args[1] as string,
        testOnly: true,
        type,
      };
    }
    if (macro?.val && macro?.exp && macro?.var) return this.bind(macro, type);
    const target = member ? this.node(n.args[1]) : undefined;
    const args = ((member ? n.args[2] : n.args[1]) as AstNode[]).map((x) => this.node(x));
    return this.call(name, callOverloads(name, member, args), args, type, target);
  }

  /** all, exists, exists_one, map and filter, expanded as cel-go's parser expands them. */
  private macro(name: string, n: AstNode, comp: AstNode, type: CelType): CostNode {
    const c = comp.args;
    const range = this.node(c.iterable);
    const given = n.args[2] as AstNode[];
    const accu = (t: CelType) => this.ident(ACCUMULATOR, t);
    const fold = (init: CostNode, cond: CostNode, step: CostNode, result: CostNode): CostNode => ({
      e: 'comp',
      iterVar: c.iterVarName as string,
      range,
      accuVar: ACCUMULATOR,
      init,
      cond,
      step,
      result,
      type,
    });
    const notStrictlyFalse = (x: CostNode) => this.call('@not_strictly_false', ['other'], [x], BOOL);
    const yes = this.constant(BOOL);
    switch (name) {
      case 'all':
        return fold(
          this.constant(BOOL),
          notStrictlyFalse(accu(BOOL)),
          this.call('_&&_', ['logical_and'], [accu(BOOL), this.node(given[1]!)], BOOL),
          accu(BOOL),
        );
      case 'exists':
        return fold(
          this.constant(BOOL),
          notStrictlyFalse(this.call('!_', ['other'], [accu(BOOL)], BOOL)),
          this.call('_||_', ['logical_or'], [accu(BOOL), this.node(given[1]!)], BOOL),
          accu(BOOL),
        );
      case 'exists_one':
        return fold(
          this.constant(INT),
          yes,
          this.call(
            '_?_:_',
            ['conditional'],
            [
              this.node(given[1]!),
              this.call('_+_', ['add_other'], [accu(INT), this.constant(INT)], INT),
              accu(INT),
            ],
            INT,
          ),
          this.call('_==_', ['equals'], [accu(INT), this.constant(INT)], BOOL),
        );
      case 'map':
      case 'filter': {
        const list = (x: CostNode): CostNode => ({
          e: 'list',
          elems: [x],
          base: MACRO_LIST_BASE_COST,
          type: T('list', x.type),
        });
        const iterVar = this.ident(c.iterVarName as string, range.type.elem ?? T('unknown'));
        const item = name === 'filter' ? iterVar : this.node(given[given.length - 1]!);
        const append = this.call('_+_', ['add_list'], [accu(DYN_LIST), list(item)], DYN_LIST);
        const filter = name === 'filter' || given.length === 3 ? this.node(given[1]!) : undefined;
        const step = filter
          ? this.call('_?_:_', ['conditional'], [filter, append, accu(DYN_LIST)], DYN_LIST)
          : append;
        const empty: CostNode = { e: 'list', elems: [], base: MACRO_LIST_BASE_COST, type: DYN_LIST };
        return fold(empty, yes, step, accu(DYN_LIST));
      }
      default:
        return this.call(name, ['other'], [], type, range);
    }
  }

  /** cel.bind(v, init, expr): a fold over an empty list whose accumulator is v (cel-go's ext). */
  private bind(m: { var: string; val: AstNode; exp: AstNode }, type: CelType): CostNode {
    const init = this.node(m.val);
    return {
      e: 'comp',
      iterVar: '#unused',
      range: { e: 'list', elems: [], base: MACRO_LIST_BASE_COST, type: DYN_LIST },
      accuVar: m.var,
      init,
      cond: this.constant(BOOL),
      step: this.ident(m.var, init.type),
      result: this.node(m.exp),
      type,
    };
  }
}

/** The cost estimator's view of a checked expression. */
export function costTree(root: AstNode, source: string): CostNode {
  return new Converter(source).node(root);
}
