// What the field-validation cases share: the Warning header read as RFC 7234 entries
// (`<code> <agent> "<text>"`, several per header line or one per line), and request bodies with
// unknown and duplicate fields written as raw JSON (a duplicate key cannot be built as an object).
import { check, show } from '../../harness/src/assert.ts';
import type { Response } from '../../harness/src/client.ts';

export const SECTION_RULES = 'Resources and their fields';
export const RULES =
  'Unrecognized fields and fields duplicated in the object are dropped by default, unless a custom definition opts out of pruning with the preserve-unknown-fields extension';
export const HEADER_ROW =
  '`Warning` (response) | One entry per dropped unknown or duplicate field when validation is `Warn`';
export const PARAM_ROW = 'fieldValidation | POST, PUT, PATCH | `Ignore`, `Warn` (default), `Strict`';
export const STRICT_ROW =
  '400 Bad Request | `Strict` validation met unknown or duplicate fields (message lists all)';
export const TYPE_ROW =
  '400 Bad Request | a field of the wrong type (no unknown-field detail then, whatever the level)';

export interface WarningEntry {
  code: number;
  agent: string;
  text: string;
}

/** Splits Warning header values into entries (commas inside quoted text do not split). */
export function warnings(r: Response): WarningEntry[] {
  const out: WarningEntry[] = [];
  for (const line of r.headerAll('warning')) {
    let i = 0;
    while (i < line.length) {
      while (i < line.length && (line[i] === ' ' || line[i] === ',')) i++;
      if (i >= line.length) break;
      const m = /^(\d{3}) (\S+) "/.exec(line.slice(i));
      if (!m) {
        out.push({ code: Number.NaN, agent: '', text: line.slice(i) });
        break;
      }
      i += m[0].length;
      let text = '';
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) i++;
        text += line[i];
        i++;
      }
      i++; // closing quote
      // an optional warn-date ("...") follows
      const rest = /^ "[^"]*"/.exec(line.slice(i));
      if (rest) i += rest[0].length;
      out.push({ code: Number(m[1]), agent: m[2]!, text });
    }
  }
  return out;
}

export const showWarnings = (ws: WarningEntry[]) =>
  ws.length ? ws.map((w) => `${w.code} ${w.agent} "${w.text}"`).join(' | ') : '(no Warning header)';

/** The names a dirty body drops, each unique enough to find in a message. */
export const DROPPED = ['bogusTop', 'bogusMeta', 'dupKey'] as const;
/** Unknown fields only (for kinds whose bodies have no free map to duplicate a key in). */
export const UNKNOWN = ['bogusTop', 'bogusMeta'] as const;

/**
 * A ConfigMap body with an unknown top-level field (bogusTop), an unknown metadata field
 * (metadata.bogusMeta) and a duplicated data key (data.dupKey, same value twice).
 */
export function dirtyConfigMap(name: string, extraMeta = ''): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","bogusMeta":"x"${extraMeta}},"data":{"dupKey":"v","k":"v","dupKey":"v"},"bogusTop":true}`;
}

/** A merge patch with the same three problems. */
export const DIRTY_MERGE_PATCH = `{"metadata":{"bogusMeta":"x"},"data":{"dupKey":"w","dupKey":"w"},"bogusTop":true}`;

/** Exactly one Warning entry per dropped field: code 299, agent "-", text naming the field. */
export function checkOneWarningPerField(r: Response, fields: readonly string[]): void {
  const ws = warnings(r);
  for (const w of ws)
    check(
      w.code === 299 && w.agent === '-',
      'entries of the form 299 - "<text>"',
      showWarnings(ws),
      HEADER_ROW,
    );
  for (const f of fields) {
    const hits = ws.filter((w) => w.text.includes(f));
    check(hits.length === 1, `exactly one Warning entry naming ${f}`, showWarnings(ws), HEADER_ROW);
  }
  const about = ws.filter((w) => fields.some((f) => w.text.includes(f)));
  check(
    about.length === fields.length && ws.length === fields.length,
    `${fields.length} entries, one per dropped field (${fields.join(', ')})`,
    showWarnings(ws),
    HEADER_ROW,
  );
}

export function checkNoWarnings(r: Response, why: string): void {
  const ws = warnings(r);
  check(ws.length === 0, 'no Warning header', showWarnings(ws), why);
}

/** The Status message of a refusal names every field. */
export function checkMessageLists(r: Response, fields: readonly string[]): void {
  const msg = r.statusObj?.message ?? r.text;
  const missing = fields.filter((f) => !msg.includes(f));
  check(
    missing.length === 0,
    `a message naming ${fields.join(', ')}`,
    `${show(msg)} (missing: ${missing.join(', ')})`,
    STRICT_ROW,
  );
}

/** The stored object carries none of the dropped unknown fields. */
export function checkDropped(obj: any, why: string): void {
  const kept = [
    obj && 'bogusTop' in obj ? 'bogusTop' : '',
    obj?.metadata && 'bogusMeta' in obj.metadata ? 'metadata.bogusMeta' : '',
  ].filter(Boolean);
  check(kept.length === 0, 'no unknown field stored', `stored: ${kept.join(', ')} in ${show(obj)}`, why);
}
