// Property names as expressions see them (doc2, "Expression language inputs"): a name made of
// letters, digits, `_`, `.`, `-` and `/` (not starting with a digit) is reachable, with `__` spelled
// `__underscores__`, `.` `__dot__`, `-` `__dash__`, `/` `__slash__`, and a reserved word `w`
// (matching the whole name only) spelled `__w__`. Any other name is not reachable.

/** The language's reserved words: a property so named is reached as `__<word>__`. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const ESCAPABLE = /^[A-Za-z_./-][A-Za-z0-9_./-]*$/;
const TO_ESCAPE = /__|[./-]/g;
const ESCAPES: Record<string, string> = {
  __: '__underscores__',
  '.': '__dot__',
  '-': '__dash__',
  '/': '__slash__',
};

/** The name an expression uses for a property, or undefined when the property cannot be reached. */
export function escapeName(name: string): string | undefined {
  if (RESERVED_WORDS.has(name)) return `__${name}__`;
  if (!ESCAPABLE.test(name)) return undefined;
  return name.replace(TO_ESCAPE, (m) => ESCAPES[m]!);
}
