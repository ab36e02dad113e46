// Faults against doc1's field validation (the fieldValidation levels, the Warning header and
// the 400 rows of § Errors), one rule each; suites/field-validation must catch every one.
// (strip-warnings lives in doc1-core.ts.)
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
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

export const HOOKS: FaultHooks[] = [
  {
    name: 'preserve-unknown-fields-ignored',
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
    request: (r) => level(r, 'Strict', 'Warn'),
  },
  {
    name: 'ignore-as-warn',
    request: (r) => level(r, 'Ignore', 'Warn'),
  },
  {
    name: 'warnings-merged',
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
    request: (r) => {
      const b = r.method === 'POST' && /\/pods$/.test(r.url.pathname) ? bodyOf(r.body) : undefined;
      if (!b || b.spec?.containers) return r;
      const spec = { ...(b.spec ?? {}), containers: [{ name: 'proxy', image: 'proxy:latest' }] };
      return { ...r, body: Buffer.from(JSON.stringify({ ...b, spec })) };
    },
  },
  {
    name: 'warning-on-clean-body',
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
