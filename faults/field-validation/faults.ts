// Faults against doc1's field validation (the fieldValidation levels, the Warning header and
// the 400 rows of § Errors), one rule each; suites/field-validation must catch every one.
// (strip-warnings lives in doc1-core.ts.)
import type { Fault, ProxiedRequest } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

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

const CRD_PATH = /^\/apis\/apiextensions\.orch\.io\/v1\/customresourcedefinitions\/?$/;

/** The `spec` schema of each custom group the proxy saw defined (from the definition's create). */
function specSchemas(): {
  learn(r: ProxiedRequest): void;
  of(r: ProxiedRequest): { required?: string[]; properties?: Record<string, { type?: string }> } | undefined;
} {
  const byGroup = new Map<string, any>();
  return {
    learn: (r) => {
      if (r.method !== 'POST' || !CRD_PATH.test(r.url.pathname)) return;
      const d = bodyOf(r.body);
      const spec = d?.spec?.versions?.[0]?.schema?.openAPIV3Schema?.properties?.spec;
      if (typeof d?.spec?.group === 'string' && spec) byGroup.set(d.spec.group, spec);
    },
    of: (r) => {
      const g = /^\/apis\/([^/]+)\//.exec(r.url.pathname)?.[1];
      return g ? byGroup.get(g) : undefined;
    },
  };
}

/** A create of a custom resource whose group the proxy saw defined, with its body and spec schema. */
function customCreate(schemas: ReturnType<typeof specSchemas>, r: ProxiedRequest) {
  schemas.learn(r);
  if (r.method !== 'POST') return undefined;
  const schema = schemas.of(r);
  const body = schema ? bodyOf(r.body) : undefined;
  return body?.spec && typeof body.spec === 'object' && !Array.isArray(body.spec)
    ? { schema: schema!, body }
    : undefined;
}

const zeroOf = (type: string | undefined) =>
  type === 'integer' || type === 'number' ? 0 : type === 'array' ? [] : type === 'object' ? {} : '';

const requiredSchemas = specSchemas();
const typedSchemas = specSchemas();

export const FAULTS: Fault[] = [
  {
    name: 'preserve-unknown-fields-ignored',
    breaks:
      'doc1 § Resources and their fields: a custom definition opts out of pruning with the preserve-unknown-fields extension (the proxy removes the extension from the definitions it creates, so their unknown fields are pruned)',
    area: 'field-validation',
    catchers: [
      'field-validation/custom/preserved-ignore',
      'field-validation/custom/preserved-strict',
      'field-validation/custom/preserved-warn',
    ],
    request: (r) => {
      if (r.method !== 'POST' || !CRD_PATH.test(r.url.pathname)) return r;
      const d = bodyOf(r.body);
      const strip = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.map(strip)
          : v && typeof v === 'object'
            ? Object.fromEntries(
                Object.entries(v)
                  .filter(([k]) => k !== 'x-orch-preserve-unknown-fields')
                  .map(([k, x]) => [k, strip(x)]),
              )
            : v;
      return d ? { ...r, body: Buffer.from(JSON.stringify(strip(d))) } : r;
    },
  },
  {
    name: 'custom-required-defaulted',
    breaks:
      "doc1 § Resources and their fields: omitting a required field is an error (a custom resource without a field its definition's schema requires gets the field's zero value)",
    area: 'field-validation',
    catchers: ['field-validation/custom/required'],
    request: (r) => {
      const c = customCreate(requiredSchemas, r);
      const missing = (c?.schema.required ?? []).filter((k) => !(k in c!.body.spec));
      if (!c || !missing.length) return r;
      const spec = { ...c.body.spec };
      for (const k of missing) spec[k] = zeroOf(c.schema.properties?.[k]?.type);
      return { ...r, body: Buffer.from(JSON.stringify({ ...c.body, spec })) };
    },
  },
  {
    name: 'custom-wrong-type-coerced',
    breaks:
      "doc1 § Errors: a field of the wrong type is 400 (a custom resource's text given for an integer of its definition's schema is read as a number, 0 when it is none)",
    area: 'field-validation',
    catchers: ['field-validation/custom/wrong-type'],
    request: (r) => {
      const c = customCreate(typedSchemas, r);
      if (!c) return r;
      const props = c.schema.properties ?? {};
      const wrong = Object.keys(c.body.spec).filter(
        (k) => props[k]?.type === 'integer' && typeof c.body.spec[k] === 'string',
      );
      if (!wrong.length) return r;
      const spec = { ...c.body.spec };
      for (const k of wrong) spec[k] = Number.parseInt(spec[k], 10) || 0;
      return { ...r, body: Buffer.from(JSON.stringify({ ...c.body, spec })) };
    },
  },
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
