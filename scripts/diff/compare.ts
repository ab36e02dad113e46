// Compares two sides' normalised results of one sequence: the first operation whose answers
// differ, the paths where they differ, and the kind of the difference (what groups divergences).
import { isDeepStrictEqual } from 'node:util';
import type { NormalResult } from './normalise.ts';
import type { Op } from './ops.ts';

export interface Difference {
  /** Index of the first operation whose answers differ. */
  index: number;
  /** Where they differ (`exchanges[0].body.metadata.managedFields`, ...), at most 20. */
  paths: string[];
  /** The kind of the difference: the operation, its kind, and the status codes or the first path. */
  signature: string;
}

const MAX_PATHS = 20;

function diffPaths(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= MAX_PATHS || isDeepStrictEqual(a, b)) return;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) {
        out.push(`${path}.length`);
        return;
      }
      for (const [i, x] of a.entries()) diffPaths(x, b[i], `${path}[${i}]`, out);
      return;
    }
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)]))
      diffPaths(ao[k], bo[k], `${path}.${k}`, out);
    return;
  }
  out.push(path || '.');
}

/** An answer's status as a signature names it: 2xx, or the code, reason and causes of an error. */
function answerId(r: NormalResult): string {
  if (!r.exchanges.length) return r.skipped ?? 'nothing';
  return r.exchanges
    .map((x) => {
      if (x.status >= 200 && x.status < 300) return '2xx';
      const b = x.body as
        | { reason?: string; details?: { causes?: { field?: string; reason?: string }[] } }
        | undefined;
      // a validation error's causes say what was refused; other errors' causes (the fields of a
      // conflict) vary with the data
      const causes =
        b?.reason === 'Invalid'
          ? (b.details?.causes ?? []).map((c) => c.field ?? c.reason).filter(Boolean)
          : [];
      return `${x.status} ${b?.reason ?? ''}${causes.length ? ` (${causes.join(', ')})` : ''}`.trim();
    })
    .join(', ');
}

/**
 * The kind of a difference, for grouping: where the status codes differ, the two answers'
 * status (an error's code, reason and causes: the same refusal met by several verbs is one
 * kind); otherwise the operation, its resource and the first path that differs (indices
 * generalised, the exchange left out).
 */
function signatureOf(op: Op, a: NormalResult, b: NormalResult, paths: string[]): string {
  const what = `${op.op} ${op.kind}`;
  const codes = (r: NormalResult) => r.exchanges.map((x) => x.status).join(',') || r.skipped || 'nothing';
  if (a.exchanges.length !== b.exchanges.length && a.exchanges.length && b.exchanges.length)
    return `${what}: pages ${a.exchanges.length} vs ${b.exchanges.length}`;
  if (codes(a) !== codes(b)) {
    const [ia, ib] = [answerId(a), answerId(b)];
    return ia !== ib ? `status: ${ia} vs ${ib}` : `${what}: status ${codes(a)} vs ${codes(b)}`;
  }
  const first = (paths[0] ?? '')
    .replace(/^exchanges\[\d+\]\.?/, '')
    .replace(/\[\d+\]/g, '[]')
    .replace(/\.fieldsV1\..*$/, '.fieldsV1');
  return `${what}: ${first || 'answer'}`;
}

/** The first difference between the two sides' results, or undefined when they agree. */
export function compareResults(ops: Op[], a: NormalResult[], b: NormalResult[]): Difference | undefined {
  for (let i = 0; i < ops.length; i++) {
    if (isDeepStrictEqual(a[i], b[i])) continue;
    const paths: string[] = [];
    diffPaths(a[i], b[i], '', paths);
    const clean = paths.map((p) => p.replace(/^\./, ''));
    return { index: i, paths: clean, signature: signatureOf(ops[i]!, a[i]!, b[i]!, clean) };
  }
  return undefined;
}
