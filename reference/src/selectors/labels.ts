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

/** Parses a label selector; throws a 400 Status on syntax errors. */
export function parseLabelSelector(input: string): LabelSelector {
  const s = input.trim();
  if (!s) return [];
  const out: Requirement[] = [];
  let i = 0;
  const n = s.length;
  const ws = () => {
    while (i < n && s[i] === ' ') i++;
  };
  const ident = (): string => {
    ws();
    const st = i;
    while (i < n && !' ,=!()'.includes(s[i]!) && !(s.startsWith('in', i) && false)) i++;
    return s.slice(st, i);
  };
  while (i < n) {
    ws();
    let neg = false;
    if (s[i] === '!') {
      neg = true;
      i++;
    }
    const key = ident();
    if (!key) fail(s, `found '${s[i] ?? ''}', expected: identifier`);
    const kerr = validLabelKey(key);
    if (kerr) fail(s, `invalid label key "${key}": ${kerr}`);
    ws();
    if (neg) {
      out.push({ key, op: '!', values: [] });
    } else if (i >= n || s[i] === ',') {
      out.push({ key, op: 'exists', values: [] });
    } else if (s[i] === '=' || s[i] === '!') {
      let op: Op;
      if (s.startsWith('==', i)) {
        op = '=';
        i += 2;
      } else if (s[i] === '=') {
        op = '=';
        i += 1;
      } else if (s.startsWith('!=', i)) {
        op = '!=';
        i += 2;
      } else fail(s, `found '${s[i]}', expected: '=', '!=', '==', 'in', notin'`);
      const v = ident();
      const verr = validLabelValue(v);
      if (verr) fail(s, `invalid label value: "${v}": at key: "${key}": ${verr}`);
      out.push({ key, op: op!, values: [v] });
    } else {
      const word = ident();
      if (word !== 'in' && word !== 'notin')
        fail(s, `found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
      ws();
      if (s[i] !== '(') fail(s, `found '${s[i] ?? ''}', expected: '('`);
      i++;
      const values: string[] = [];
      for (;;) {
        const v = ident();
        const verr = validLabelValue(v);
        if (verr) fail(s, `invalid label value: "${v}": at key: "${key}": ${verr}`);
        if (v) values.push(v);
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ')') {
          i++;
          break;
        }
        fail(s, `found '${s[i] ?? ''}', expected: ',', ')' or identifier`);
      }
      if (values.length === 0) fail(s, `for 'in', 'notin' operators, values set can't be empty`);
      out.push({ key, op: word, values });
    }
    ws();
    if (i < n) {
      if (s[i] !== ',') fail(s, `found '${s[i]}', expected: ',' or 'end of string'`);
      i++;
      ws();
      if (i >= n) fail(s, `found '', expected: identifier after ','`);
    }
  }
  return out;
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
