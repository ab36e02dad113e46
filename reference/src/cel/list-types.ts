// Lists with a list type (doc2's table: "set-typed lists compare order-insensitively;
// concatenation follows the list type: union for set, key-wise merge for map"). A value of a
// set or map list carries its type (values.ts marks it); the `==`, `!=` and `+` of lists are
// replaced by ones that read that mark on the left operand and fall back to the plain list
// operations otherwise.
import type { AstNode } from './ast.ts';
import { celEquals } from './equality.ts';

export type ListType = { kind: 'set' } | { kind: 'map'; keys: string[] };

const LIST_TYPE = Symbol('list type');

/** Marks a list value with its list type. */
export function markList<T extends unknown[]>(list: T, t: ListType): T {
  Object.defineProperty(list, LIST_TYPE, { value: t, enumerable: false });
  return list;
}

const listTypeOf = (v: unknown): ListType | undefined =>
  Array.isArray(v) ? (v as unknown as { [LIST_TYPE]?: ListType })[LIST_TYPE] : undefined;

function field(item: unknown, k: string): unknown {
  if (item instanceof Map) return item.get(k);
  return item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[k] : undefined;
}

function sameKeys(a: unknown, b: unknown, keys: string[]): boolean {
  return keys.every((k) => celEquals(field(a, k), field(b, k)));
}

export function listEquals(l: unknown[], r: unknown[]): boolean {
  const t = listTypeOf(l);
  if (!t) return celEquals(l, r);
  if (l.length !== r.length) return false;
  if (t.kind === 'set')
    return l.every((x) => r.some((y) => celEquals(x, y))) && r.every((y) => l.some((x) => celEquals(x, y)));
  return l.every((x) => r.some((y) => sameKeys(x, y, t.keys) && celEquals(x, y)));
}

export function listConcat(l: unknown[], r: unknown[]): unknown[] {
  const t = listTypeOf(l);
  if (!t) return [...l, ...r];
  if (t.kind === 'set') {
    const out = [...l];
    for (const y of r) if (!out.some((x) => celEquals(x, y))) out.push(y);
    return markList(out, t);
  }
  const out = [...l];
  for (const y of r) {
    const i = out.findIndex((x) => sameKeys(x, y, t.keys));
    if (i >= 0) out[i] = y;
    else out.push(y);
  }
  return markList(out, t);
}

/** Gives the `==`, `!=` and `+` nodes on lists of a checked expression the list-type semantics. */
export function applyListTypes(root: AstNode): void {
  const seen = new Set<AstNode>();
  const visit = (n: AstNode) => {
    if (!n || typeof n !== 'object' || seen.has(n)) return;
    seen.add(n);
    const meta = n.meta;
    if (meta?.alternate) visit(meta.alternate);
    if (meta?.macro?.macroHasProps) for (const p of meta.macro.macroHasProps) visit(p);
    if (meta?.macro?.val) visit(meta.macro.val);
    if (meta?.macro?.exp) visit(meta.macro.exp);
    const args = n.args;
    const each = (x: unknown) => {
      if (Array.isArray(x)) for (const y of x) each(y);
      else if (x && typeof x === 'object' && 'op' in (x as object)) visit(x as AstNode);
      else if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype)
        for (const y of Object.values(x)) each(y);
    };
    each(args);
    if ((n.op === '==' || n.op === '!=' || n.op === '+') && n.args[0]?.checkedType?.kind === 'list' && meta) {
      const op = n.op;
      meta.evaluate = (ev: { run: (a: AstNode, c: unknown) => unknown }, ast: AstNode, ctx: unknown) => {
        const l = ev.run(ast.args[0], ctx) as unknown[];
        const r = ev.run(ast.args[1], ctx) as unknown[];
        if (op === '+') return listConcat(l, r);
        const eq = Array.isArray(l) && Array.isArray(r) ? listEquals(l, r) : celEquals(l, r);
        return op === '==' ? eq : !eq;
      };
    }
  };
  visit(root);
}
