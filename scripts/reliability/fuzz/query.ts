// Query strings: the API's parameters with real, wrong and garbage values, encoded or raw.
import type { Prng } from './prng.ts';
import { QUERY_NAMES, QUERY_VALUES } from './vocabulary.ts';

const RAW = 'abcAZ09-_.=,!()/:;~%';

/** `?a=b&...` (or '') of up to `max` random parameters, plus the `fixed` ones. */
export function queryString(rng: Prng, max: number, fixed: [string, string][] = []): string {
  const pairs: [string, string, boolean][] = fixed.map(([k, v]) => [k, v, true]);
  for (let n = rng.int(0, max); n > 0; n--) {
    const k = rng.chance(0.9) ? rng.pick(QUERY_NAMES) : rng.string(RAW, rng.int(0, 8));
    const v = rng.weighted<() => string>([
      [6, () => rng.pick(QUERY_VALUES)],
      [2, () => rng.string(RAW, rng.int(0, 20))],
      [1, () => 'x'.repeat(rng.pick([1000, 10000]))],
    ])();
    pairs.push([k, v, rng.chance(0.85)]);
  }
  if (pairs.length === 0) return '';
  return `?${pairs
    .map(([k, v, encode]) =>
      encode ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}` : `${k}=${v.replace(/[ #]/g, '')}`,
    )
    .join('&')}`;
}

/** Parameters of a plausible request of `verb`: mostly right, sometimes wrong values. */
export function verbParams(rng: Prng, verb: string): [string, string][] {
  const out: [string, string][] = [];
  const some = (p: number, k: string, vs: string[]) => {
    if (rng.chance(p)) out.push([k, rng.chance(0.85) ? rng.pick(vs) : rng.pick(QUERY_VALUES)]);
  };
  switch (verb) {
    case 'list':
      some(0.3, 'labelSelector', ['app=fuzz', 'app in (fuzz,a)', '!app', 'app!=a']);
      some(0.2, 'fieldSelector', [
        'metadata.name=fz-a',
        'metadata.namespace!=default',
        'status.phase=Running',
      ]);
      some(0.3, 'limit', ['1', '2', '500']);
      some(0.1, 'continue', ['eyJ2IjoxfQ', 'garbage']);
      some(0.2, 'resourceVersion', ['0', '1', '999999999']);
      some(0.15, 'resourceVersionMatch', ['NotOlderThan', 'Exact']);
      break;
    case 'get':
      some(0.15, 'resourceVersion', ['0', '1', '']);
      break;
    case 'create':
    case 'update':
      some(0.2, 'dryRun', ['All']);
      some(0.2, 'fieldValidation', ['Strict', 'Warn', 'Ignore']);
      some(0.2, 'fieldManager', ['fuzz', 'x'.repeat(200)]);
      break;
    case 'patch':
      some(0.2, 'dryRun', ['All']);
      some(0.2, 'fieldValidation', ['Strict', 'Warn', 'Ignore']);
      some(0.6, 'fieldManager', ['fuzz', 'other', '']);
      some(0.4, 'force', ['true', 'false']);
      break;
    case 'delete':
      some(0.2, 'dryRun', ['All']);
      some(0.3, 'propagationPolicy', ['Orphan', 'Foreground', 'Background']);
      some(0.3, 'gracePeriodSeconds', ['0', '1', '30']);
      break;
  }
  return out;
}
