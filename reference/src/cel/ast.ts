// The evaluator's syntax tree as the cost estimate and the runtime count read it: each node's
// operator, operands and (after type checking) type; macros expanded by the parser are reached
// through their expansion.

export interface AstNode {
  op: string;
  args: any;
  readonly meta: any;
  checkedType?: { name: string; kind: string };
  evaluate: (ev: any, ast: any, ctx: any) => unknown;
}

const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in', '&&', '||']);

export const isBinary = (op: string) => BINARY.has(op);

/** The node's operand nodes, in evaluation order (a macro: its expansion). */
export function children(n: AstNode): AstNode[] {
  const meta = n.meta;
  if (meta?.alternate) return [meta.alternate];
  if (meta?.macro) {
    const m = meta.macro;
    if (m.macroHasProps) return [...m.macroHasProps].reverse();
    if (m.val && m.exp) return [m.val, m.exp];
    return [];
  }
  switch (n.op) {
    case 'value':
    case 'id':
    case 'accuValue':
    case 'accuInc':
      return [];
    case '.':
    case '.?':
      return [n.args[0]];
    case 'call':
      return n.args[1];
    case 'rcall':
      return [n.args[1], ...n.args[2]];
    case 'list':
      return n.args;
    case 'map':
      return n.args.flat();
    case '!_':
    case '-_':
    case 'accuPush':
      return [n.args];
    case 'comprehension':
      return [n.args.iterable, n.args.init, n.args.step].filter(Boolean);
    default:
      return Array.isArray(n.args)
        ? n.args.filter((a: unknown) => a && typeof a === 'object' && 'op' in (a as object))
        : [];
  }
}
