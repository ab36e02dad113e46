// Label selectors in the query syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`,
// `a` (exists), `!a` (does not exist); requirements joined by commas are ANDed.
import { errors } from '../errors/status.ts';

export type Op = 'in' | 'notin' | 'exists' | '!' | '=' | '!=';

export interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

export type LabelSelector = Requirement[];

const KEY_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function validLabelKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (!prefix || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))
      return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  if (!name || name.length > 63 || !KEY_NAME.test(name))
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

export function validLabelValue(v: string): string | undefined {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (!VALUE.test(v))
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

function fail(sel: string, why: string): never {
  throw errors.badRequest(`unable to parse requirement: ${why}`.replace('%s', sel));
}

/** A position in a selector's text. */
class Cursor {
  i = 0;
  readonly n: number;
  constructor(readonly s: string) {
    this.n = s.length;
  }
  /** Skips spaces. */
  ws(): void {
    while (this.i < this.n && this.s[this.i] === ' ') this.i++;
  }
  /** The identifier (key, operator word or value) after any spaces: up to a space, `,`, `=`, `!` or a parenthesis. */
  ident(): string {
    this.ws();
    const st = this.i;
    while (this.i < this.n && !' ,=!()'.includes(this.s[this.i]!)) this.i++;
    return this.s.slice(st, this.i);
  }
}

/** Parses a label selector; throws a 400 Status on syntax errors. */
export function parseLabelSelector(input: string): LabelSelector {
  const s = input.trim();
  if (!s) return [];
  const out: Requirement[] = [];
  const c = new Cursor(s);
  const n = c.n;
  while (c.i < n) {
    c.ws();
    let neg = false;
    if (s[c.i] === '!') {
      neg = true;
      c.i++;
    }
    const key = c.ident();
    if (!key) fail(s, `found '${s[c.i] ?? ''}', expected: identifier`);
    const kerr = validLabelKey(key);
    if (kerr) fail(s, `invalid label key "${key}": ${kerr}`);
    c.ws();
    if (neg) out.push({ key, op: '!', values: [] });
    else if (c.i >= n || s[c.i] === ',') out.push({ key, op: 'exists', values: [] });
    else if (s[c.i] === '=' || s[c.i] === '!') out.push(parseEquality(c, key));
    else out.push(parseSet(c, key));
    c.ws();
    if (c.i < n) {
      if (s[c.i] !== ',') fail(s, `found '${s[c.i]}', expected: ',' or 'end of string'`);
      c.i++;
      c.ws();
      if (c.i >= n) fail(s, `found '', expected: identifier after ','`);
    }
  }
  return out;
}

/** `key=value`, `key==value` or `key!=value`, at the operator. */
function parseEquality(c: Cursor, key: string): Requirement {
  const s = c.s;
  let op: Op;
  if (s.startsWith('==', c.i)) {
    op = '=';
    c.i += 2;
  } else if (s[c.i] === '=') {
    op = '=';
    c.i += 1;
  } else if (s.startsWith('!=', c.i)) {
    op = '!=';
    c.i += 2;
  } else fail(s, `found '${s[c.i]}', expected: '=', '!=', '==', 'in', notin'`);
  const v = c.ident();
  const verr = validLabelValue(v);
  if (verr) fail(s, `invalid label value: "${v}": at key: "${key}": ${verr}`);
  return { key, op: op!, values: [v] };
}

/** `key in (a,b)` or `key notin (a,b)`, at the operator word. */
function parseSet(c: Cursor, key: string): Requirement {
  const s = c.s;
  const word = c.ident();
  if (word !== 'in' && word !== 'notin') fail(s, `found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
  c.ws();
  if (s[c.i] !== '(') fail(s, `found '${s[c.i] ?? ''}', expected: '('`);
  c.i++;
  const values: string[] = [];
  for (;;) {
    const v = c.ident();
    const verr = validLabelValue(v);
    if (verr) fail(s, `invalid label value: "${v}": at key: "${key}": ${verr}`);
    if (v) values.push(v);
    c.ws();
    if (s[c.i] === ',') {
      c.i++;
      continue;
    }
    if (s[c.i] === ')') {
      c.i++;
      break;
    }
    fail(s, `found '${s[c.i] ?? ''}', expected: ',', ')' or identifier`);
  }
  if (values.length === 0) fail(s, `for 'in', 'notin' operators, values set can't be empty`);
  return { key, op: word, values };
}

export function matchLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of sel) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const v = has ? labels![r.key]! : undefined;
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case '=':
        if (v !== r.values[0]) return false;
        break;
      case '!=':
        if (has && v === r.values[0]) return false;
        break;
      case 'in':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case 'notin':
        if (has && r.values.includes(v!)) return false;
        break;
    }
  }
  return true;
}
