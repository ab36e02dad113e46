// Faults against doc1's field validation (the fieldValidation levels, the Warning header and
// the 400 rows of § Errors), one rule each; suites/field-validation must catch every one.
// (strip-warnings lives in doc1-core.ts.)
import type { Fault, ProxiedRequest } from '../fault-proxy.ts';
import { bodyOf, mapJson } from './util.ts';

function level(r: ProxiedRequest, from: string, to: string): ProxiedRequest {
  if (r.url.searchParams.get('fieldValidation') !== from) return r;
  const url = new URL(r.url);
  url.searchParams.set('fieldValidation', to);
  return { ...r, url };
}

const warningHeader = (h: Record<string, string | string[]>) =>
  Object.keys(h).find((k) => k.toLowerCase() === 'warning');

/** Envelope and common top-level fields of the kinds the suite writes; anything else is unknown. */
const KNOWN_TOP = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'data',
  'binaryData',
  'immutable',
  'spec',
  'status',
]);

export const FIELD_VALIDATION_FAULTS: Fault[] = [
  {
    name: 'strict-as-warn',
    breaks:
      'doc1 § Errors: Strict validation met unknown or duplicate fields is 400 (the proxy turns Strict into Warn)',
    area: 'field-validation',
    catchers: ['field-validation/strict/', 'field-validation/custom/strict'],
    request: (r) => level(r, 'Strict', 'Warn'),
  },
  {
    name: 'ignore-as-warn',
    breaks:
      'doc1 § Query parameters: Ignore drops fields silently (the proxy turns Ignore into Warn, so warnings appear)',
    area: 'field-validation',
    catchers: ['field-validation/ignore/'],
    request: (r) => level(r, 'Ignore', 'Warn'),
  },
  {
    name: 'warnings-merged',
    breaks:
      'doc1 § Headers: Warning, one entry per dropped unknown or duplicate field (all merged into one entry)',
    area: 'field-validation',
    catchers: ['field-validation/warn/'],
    response: (_r, res) => {
      const k = warningHeader(res.headers);
      if (!k) return res;
      const v = res.headers[k]!;
      const all = Array.isArray(v) ? v : [v];
      if (all.length < 2) return res;
      const texts = all.map((w) => w.replace(/^299 - "/, '').replace(/"$/, ''));
      return { ...res, headers: { ...res.headers, [k]: `299 - "${texts.join('; ')}"` } };
    },
  },
  {
    name: 'strict-message-lists-one',
    breaks:
      'doc1 § Errors: Strict 400, the message lists all unknown and duplicate fields (only the first is kept)',
    area: 'field-validation',
    catchers: ['field-validation/strict/', 'field-validation/custom/strict'],
    response: (_r, res) =>
      res.status === 400
        ? mapJson(res, (j) => {
            const m = typeof j?.message === 'string' ? /^(.*?field \\?"[^"\\]*\\?")/.exec(j.message) : null;
            return m ? { ...j, message: m[1] } : j;
          })
        : res,
  },
  {
    name: 'type-error-with-unknown-fields',
    breaks:
      'doc1 § Errors: a field of the wrong type is 400 with no unknown-field detail (the proxy adds the unknown fields to the message)',
    area: 'field-validation',
    catchers: [
      'field-validation/wrong-type/ignore',
      'field-validation/wrong-type/strict',
      'field-validation/wrong-type/warn',
    ],
    response: (r, res) => {
      if (res.status !== 400 || !['POST', 'PUT', 'PATCH'].includes(r.method)) return res;
      let body: any;
      try {
        body = JSON.parse(r.body.toString('utf8'));
      } catch {
        return res;
      }
      const unknown = Object.keys(body ?? {}).filter((k) => !KNOWN_TOP.has(k));
      if (!unknown.length) return res;
      return mapJson(res, (j) => ({
        ...j,
        message: `${j?.message ?? ''}; unknown field ${unknown.map((u) => `"${u}"`).join(', ')}`,
      }));
    },
  },
  {
    name: 'wrong-type-coerced',
    breaks:
      'doc1 § Query parameters: field types are always validated (a string finalizers is read as a one-item list, a number generateName as text)',
    area: 'field-validation',
    catchers: ['field-validation/wrong-type/array', 'field-validation/wrong-type/string-field'],
    request: (r) => {
      const b = r.method === 'POST' || r.method === 'PUT' ? bodyOf(r.body) : undefined;
      const md = b?.metadata;
      if (!md || (typeof md.finalizers !== 'string' && typeof md.generateName !== 'number')) return r;
      const fixed = {
        ...md,
        finalizers: typeof md.finalizers === 'string' ? [md.finalizers] : md.finalizers,
        generateName: typeof md.generateName === 'number' ? String(md.generateName) : md.generateName,
      };
      return { ...r, body: Buffer.from(JSON.stringify({ ...b, metadata: fixed })) };
    },
  },
  {
    name: 'pod-containers-defaulted',
    breaks:
      'doc1 § Query parameters: omitting a required field is an error (a Pod without spec.containers gets one)',
    area: 'field-validation',
    catchers: ['field-validation/required/pod-containers'],
    // (beyond doc1) checks the same refusal, with Kubernetes' 422
    alsoFails: ['field-validation/required/422'],
    request: (r) => {
      const b = r.method === 'POST' && /\/pods$/.test(r.url.pathname) ? bodyOf(r.body) : undefined;
      if (!b || b.spec?.containers) return r;
      const spec = { ...(b.spec ?? {}), containers: [{ name: 'proxy', image: 'proxy:latest' }] };
      return { ...r, body: Buffer.from(JSON.stringify({ ...b, spec })) };
    },
  },
  {
    name: 'warning-on-clean-body',
    breaks:
      'doc1 § Headers: Warning, one entry per dropped unknown or duplicate field (a write of a built-in kind with none gets one)',
    area: 'field-validation',
    catchers: ['field-validation/clean-body-no-warning'],
    response: (r, res) =>
      (r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH') &&
      r.url.pathname.startsWith('/api/') &&
      r.url.searchParams.get('fieldValidation') !== 'Ignore' &&
      res.status < 300 &&
      !warningHeader(res.headers)
        ? { ...res, headers: { ...res.headers, warning: '299 - "unknown field \\"proxy\\""' } }
        : res,
  },
];
