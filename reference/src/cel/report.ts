// Compile errors as Kubernetes 1.28 (cel-go) shows them: where each points in the source (an
// operator at its symbol, a field selection at its dot, a call at its opening parenthesis, a
// macro's expansion at the macro's parenthesis) and the text of the list: each error
// `ERROR: <input>:line:column: detail`, then its line and a caret, sorted by position.

/** What the location of a node needs of it: its operator, operands and source span. */
interface Located {
  op: string;
  args: any;
  pos?: number;
  start?: number;
  end?: number;
}

const SYMBOLS: Record<string, string> = {
  '==': '==',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  '+': '+',
  '-': '-',
  '*': '*',
  '/': '/',
  '%': '%',
  in: 'in',
  '&&': '&&',
  '||': '||',
  '?:': '?',
  '[]': '[',
};

/** The index of `token` at or after `from`, else `fallback`. */
function after(source: string, token: string, from: number | undefined, fallback: number): number {
  if (typeof from !== 'number') return fallback;
  const i = source.indexOf(token, from);
  return i >= 0 ? i : fallback;
}

/** The opening parenthesis of a method call (or a macro) on `receiver`. */
function callParen(source: string, receiver: Located | undefined, fallback: number): number {
  const dot = after(source, '.', receiver?.end, -1);
  return dot < 0 ? fallback : after(source, '(', dot, fallback);
}

/** The offset in `source` where cel-go locates an error about this node. */
export function locate(source: string, n: Located): number {
  const start = n.start ?? n.pos ?? 0;
  const left = Array.isArray(n.args) ? (n.args[0] as Located | undefined) : undefined;
  switch (n.op) {
    case '.':
    case '.?': {
      // the node's position is its field name's: the dot is the last one before it
      const i = source.lastIndexOf('.', (n.pos ?? start) - 1);
      return i >= 0 ? i : start;
    }
    case 'call':
      return after(source, '(', start + String(n.args[0]).length, start);
    case 'rcall':
      return callParen(source, n.args[1], start);
    case 'comprehension':
      return callParen(source, n.args.iterable, start);
    case '!_':
    case '-_':
      return n.pos ?? start;
  }
  const symbol = SYMBOLS[n.op];
  if (symbol) return after(source, symbol, left?.end, start);
  return start;
}

/** One compile error: where (an offset in the source) and what. */
export interface CompileError {
  at: number;
  message: string;
}

/** Errors cel-go shows at most; the rest are counted. */
const MAX_SHOWN = 100;
/** Longest line cel-go shows under an error. */
const MAX_SNIPPET = 16_384;

const isWide = (ch: string) => ch.length > 1 || ch.charCodeAt(0) > 0x7f;

function display(source: string, e: CompileError): string {
  const before = source.slice(0, e.at).split('\n');
  const line = before.length;
  const column = [...before[before.length - 1]!];
  let out = `ERROR: <input>:${line}:${column.length + 1}: ${e.message}`;
  const text = (source.split('\n')[line - 1] ?? '').replaceAll('\t', ' ');
  if (text.length > MAX_SNIPPET) return out;
  const chars = [...text];
  let marks = '';
  for (let i = 0; i < column.length && i < chars.length; i++) marks += isWide(chars[i]!) ? '．' : '.';
  const at = chars[column.length];
  marks += at !== undefined && isWide(at) ? '＾' : '^';
  out += `\n | ${text}\n | ${marks}`;
  return out;
}

/** The errors as cel-go lists them: sorted by line and column, at most 100 shown. */
export function displayErrors(source: string, errors: CompileError[]): string {
  const shown = errors.slice(0, MAX_SHOWN);
  const sorted = shown
    .map((e, i) => ({ e, i, pos: position(source, e.at) }))
    .sort((a, b) => a.pos.line - b.pos.line || a.pos.column - b.pos.column || a.i - b.i)
    .map((x) => display(source, x.e));
  if (errors.length > MAX_SHOWN) sorted.push(`${errors.length - MAX_SHOWN} more errors were truncated`);
  return sorted.join('\n');
}

function position(source: string, at: number): { line: number; column: number } {
  const before = source.slice(0, at).split('\n');
  return { line: before.length, column: [...before[before.length - 1]!].length };
}
