// `string.format(list)` of the strings extension: `%s`, `%d`, `%f`, `%e`, `%b`, `%o`, `%x`,
// `%X` with an optional precision (`%.3f`) and `%%`, in the words of cel-go's errors. Written by
// hand: the evaluator has no such function.
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { evalError } from './errors.ts';
import { formatDuration, formatTimestamp } from './timefmt.ts';

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof UnsignedInt) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map && v.constructor === Map) return 'map';
  if (Object.getPrototypeOf(v) === Object.prototype) return 'map';
  return (v as { constructor?: { name?: string } }).constructor?.name ?? 'object';
}

const fail = (m: string) => evalError(`error during formatting: ${m}`);

function special(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  return undefined;
}

function isType(v: unknown): v is { name: string } {
  return v !== null && typeof v === 'object' && Object.prototype.toString.call(v).startsWith('[object Type<');
}

function str(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return special(v) ?? String(v);
  if (v instanceof UnsignedInt) return String(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  if (isType(v)) return v.name;
  if (Array.isArray(v)) return `[${v.map(str).join(', ')}]`;
  const entries =
    v instanceof Map && v.constructor === Map
      ? [...v.entries()]
      : Object.getPrototypeOf(v) === Object.prototype
        ? Object.entries(v as object)
        : undefined;
  if (!entries)
    throw fail(
      `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeName(v)}`,
    );
  const shown = entries
    .map(([k, x]) => [str(k), str(x)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${shown.map(([k, x]) => `${k}: ${x}`).join(', ')}}`;
}

const integer = (v: unknown): bigint | undefined =>
  typeof v === 'bigint' ? v : v instanceof UnsignedInt ? v.value : undefined;

/** Fixed-point with Go's rounding: an exact half goes to the even digit. */
function fixed(n: number, p: number): string {
  const s = n.toFixed(p);
  const scaled = Math.abs(n) * 10 ** p;
  if (
    Number.isFinite(scaled) &&
    scaled - Math.floor(scaled) === 0.5 &&
    Number.isSafeInteger(Math.floor(scaled))
  ) {
    const down = Math.floor(scaled);
    const even = down % 2 === 0 ? down : down + 1;
    const digits = String(even).padStart(p + 1, '0');
    const body = p > 0 ? `${digits.slice(0, -p)}.${digits.slice(-p)}` : digits;
    return n < 0 ? `-${body}` : body;
  }
  return s;
}

function clause(verb: string, precision: number | undefined, v: unknown): string {
  switch (verb) {
    case 's':
      return str(v);
    case 'd': {
      const i = integer(v);
      if (i !== undefined) return String(i);
      if (typeof v === 'number' && special(v)) return special(v)!;
      throw fail(`decimal clause can only be used on integers, was given ${typeName(v)}`);
    }
    case 'f':
      if (typeof v !== 'number')
        throw fail(`fixed-point clause can only be used on doubles, was given ${typeName(v)}`);
      return special(v) ?? fixed(v, precision ?? 6);
    case 'e': {
      if (typeof v !== 'number')
        throw fail(`scientific clause can only be used on doubles, was given ${typeName(v)}`);
      const sp = special(v);
      if (sp) return sp;
      return v.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'b': {
      const i = integer(v);
      if (i !== undefined) return i.toString(2);
      if (typeof v === 'boolean') return v ? '1' : '0';
      throw fail(`only integers and bools can be formatted as binary, was given ${typeName(v)}`);
    }
    case 'o': {
      const i = integer(v);
      if (i !== undefined) return i.toString(8);
      throw fail(`octal clause can only be used on integers, was given ${typeName(v)}`);
    }
    default: {
      const i = integer(v);
      let hex: string;
      if (i !== undefined) hex = i.toString(16);
      else if (typeof v === 'string') hex = Buffer.from(v, 'utf8').toString('hex');
      else if (v instanceof Uint8Array) hex = Buffer.from(v).toString('hex');
      else
        throw fail(
          `only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`,
        );
      return verb === 'X' ? hex.toUpperCase() : hex;
    }
  }
}

export function formatString(fmt: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i]!;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    i++;
    if (fmt[i] === '%') {
      out += '%';
      continue;
    }
    let precision: number | undefined;
    if (fmt[i] === '.') {
      let j = i + 1;
      while (j < fmt.length && fmt[j]! >= '0' && fmt[j]! <= '9') j++;
      precision = Number(fmt.slice(i + 1, j));
      i = j;
    }
    const verb = fmt[i];
    if (verb === undefined) throw evalError('could not parse formatting clause: unexpected end of string');
    if (!'sdfebxXo'.includes(verb))
      throw evalError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    if (next >= args.length) throw evalError(`index ${next} out of range`);
    out += clause(verb, precision, args[next++]);
  }
  return out;
}

const ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** `strings.quote`: the text as a double-quoted string literal. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) out += ESCAPES[ch] ?? ch;
  return `${out}"`;
}
