// `has(e.f)` for any operand `e`, as the language defines it (a map or message operand, the field
// declared when the operand is typed). The evaluator's own macro takes only a chain of fields
// from a variable (`has(self.a.b)`); this one is put in its place for every other operand
// (`has(self.items[0].name)`, `has({'a': 1}.a)`), before type checking.
import type { AstNode } from './ast.ts';
import { evalError } from './errors.ts';

function rootIsVariable(n: AstNode): boolean {
  let cur = n;
  while (cur.op === '.' || cur.op === '.?') cur = cur.args[0];
  return cur.op === 'id';
}

function hasMacro(select: AstNode) {
  return {
    args: [select],
    // lets the cost count and estimate reach the operand
    macroHasProps: [select, select.args[0]],
    async: false,
    typeCheck(chk: any, _macro: unknown, ctx: unknown) {
      chk.checkAccessOnType(select, ctx, chk.check(select.args[0], ctx));
      return chk.getType('bool');
    },
    evaluate(ev: any, _macro: unknown, ctx: unknown) {
      const obj = ev.run(select.args[0], ctx);
      const field = select.args[1] as string;
      if (obj instanceof Map) return obj.has(field);
      if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) return Object.hasOwn(obj, field);
      throw evalError('invalid type for field selection.');
    },
  };
}

/** Gives every `has()` whose operand is not a field chain from a variable the language's meaning. */
export function widenHas(root: AstNode): void {
  const seen = new Set<AstNode>();
  const visit = (n: unknown) => {
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    if (!n || typeof n !== 'object' || !('op' in (n as object)) || seen.has(n as AstNode)) return;
    const node = n as AstNode & { setMeta?: (k: string, v: unknown) => unknown };
    seen.add(node);
    if (node.op === 'call' && node.args[0] === 'has' && node.meta?.macro) {
      const sel = node.args[1]?.[0] as AstNode | undefined;
      if (sel && (sel.op === '.' || sel.op === '.?') && !rootIsVariable(sel))
        node.setMeta?.('macro', hasMacro(sel));
    }
    visit(node.args);
    if (node.meta?.alternate) visit(node.meta.alternate);
  };
  visit(root);
}
