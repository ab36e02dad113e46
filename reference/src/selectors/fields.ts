// Field selectors: `field=value`, `field==value`, `field!=value`, joined by commas.
// Which fields a kind supports is the strategy's business; unknown ones are a 400.
import { errors } from '../errors/status.ts';

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export type FieldSelector = FieldRequirement[];

export function parseFieldSelector(input: string, supported: (field: string) => boolean): FieldSelector {
  const s = input.trim();
  if (!s) return [];
  const out: FieldRequirement[] = [];
  for (const part of splitUnescaped(s, ',')) {
    const m = /^([^=!]*)(==|=|!=)(.*)$/.exec(part);
    if (!m) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const field = m[1]!.trim();
    const value = unescapeValue(m[3]!.trim());
    if (!field) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    if (!supported(field)) throw errors.badRequest(`field label not supported: ${field}`);
    out.push({ field, op: m[2] === '!=' ? '!=' : '=', value });
  }
  return out;
}

export function matchFields(sel: FieldSelector, get: (field: string) => string | undefined): boolean {
  for (const r of sel) {
    const v = get(r.field) ?? '';
    if (r.op === '=' ? v !== r.value : v === r.value) return false;
  }
  return true;
}

function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      cur += s[i]! + s[i + 1]!;
      i++;
    } else if (s[i] === sep) {
      out.push(cur);
      cur = '';
    } else cur += s[i];
  }
  out.push(cur);
  return out;
}

function unescapeValue(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}
