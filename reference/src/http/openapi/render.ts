// The rendering of the model as the Swagger 2.0 document and as the OpenAPI 3.0 documents.
import type { Built } from './model.ts';
import { type Json, REF } from './names.ts';
import type { Op } from './op.ts';
import { JSON_T } from './params.ts';

function sortedObject<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Removes what OpenAPI 2.0 cannot say (nullable) from a schema. */
function schemaV2(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'nullable') continue;
    if (k === 'properties')
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, Json>).map(([n, x]) => [n, schemaV2(x)]),
      );
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object'))
      out[k] = schemaV2(v as Json);
    else out[k] = v;
  }
  return out;
}

/** Rewrites `#/definitions/` references to `#/components/schemas/`. */
function schemaV3(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref') out[k] = String(v).replace(REF, '#/components/schemas/');
    else if (k === 'properties')
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, Json>).map(([n, x]) => [n, schemaV3(x)]),
      );
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object'))
      out[k] = schemaV3(v as Json);
    else out[k] = v;
  }
  // a reference with siblings is not a reference in OpenAPI 3.0: wrap it
  if (out.$ref && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

function opExtensions(o: Op): Json {
  const x: Json = {};
  if (o.action) x['x-orch-action'] = o.action;
  if (o.gvk) x['x-orch-group-version-kind'] = o.gvk;
  return x;
}

export function openapiV2(b: Built, title: string, version: string): Json {
  const paths = new Map<string, Json>();
  for (const o of b.ops) {
    const item = paths.get(o.path) ?? {};
    const params: Json[] = o.params.map((p) => {
      const q: Json = { name: p.name, in: p.in, type: p.type, description: p.description, uniqueItems: true };
      if (p.required) q.required = true;
      return q;
    });
    if (o.body)
      params.unshift({
        name: 'body',
        in: 'body',
        required: o.body.required,
        description: o.body.description,
        schema: o.body.schema,
      });
    const op: Json = { description: o.description, operationId: o.operationId, tags: [o.tag] };
    if (o.consumes) op.consumes = o.consumes;
    op.produces = o.produces;
    // none is no field: Kubernetes' Go types drop an empty list, and a document must read back as written
    if (params.length) op.parameters = params;
    op.responses = Object.fromEntries(
      Object.entries(o.responses).map(([code, r]) => [
        code,
        r.schema ? { description: r.description, schema: r.schema } : { description: r.description },
      ]),
    );
    Object.assign(op, opExtensions(o));
    item[o.method] = op;
    paths.set(o.path, item);
  }
  return {
    swagger: '2.0',
    info: { title, version },
    paths: sortedObject([...paths]),
    definitions: sortedObject(
      Object.entries({ ...b.definitions, ...b.v2Definitions }).map(([k, v]) => [k, schemaV2(v)]),
    ),
    securityDefinitions: {
      BearerToken: {
        type: 'apiKey',
        name: 'authorization',
        in: 'header',
        description: 'Bearer Token authentication',
      },
    },
    security: [{ BearerToken: [] }],
  };
}

function collectRefs(x: unknown, into: Set<string>): void {
  if (Array.isArray(x)) for (const e of x) collectRefs(e, into);
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF)) into.add(v.slice(REF.length));
      else collectRefs(v, into);
    }
}

/** One OpenAPI 3.0 document: the operations of one group version (or discovery path) and what they use. */
export function openapiV3Doc(b: Built, doc: string, title: string, version: string): Json | undefined {
  const ops = b.ops.filter((o) => o.doc === doc);
  if (!ops.length) return undefined;
  const paths = new Map<string, Json>();
  const used = new Set<string>();
  for (const o of ops) {
    collectRefs(o.body?.schema, used);
    for (const r of Object.values(o.responses)) collectRefs(r.schema, used);
    const item = paths.get(o.path) ?? {};
    const op: Json = { tags: [o.tag], description: o.description, operationId: o.operationId };
    // none is no field: Kubernetes' Go types drop an empty list, and a document must read back as written
    if (o.params.length)
      op.parameters = o.params.map((p) => {
        const q: Json = {
          name: p.name,
          in: p.in,
          description: p.description,
          schema: { type: p.type, uniqueItems: true },
        };
        if (p.required) q.required = true;
        return q;
      });
    if (o.body)
      op.requestBody = {
        content: Object.fromEntries(
          (o.consumes ?? [JSON_T]).map((m) => [m, { schema: schemaV3(o.body!.schema) }]),
        ),
        required: o.body.required,
      };
    op.responses = Object.fromEntries(
      Object.entries(o.responses).map(([code, r]) => [
        code,
        r.schema
          ? {
              description: r.description,
              content: Object.fromEntries(o.produces.map((m) => [m, { schema: schemaV3(r.schema!) }])),
            }
          : { description: r.description },
      ]),
    );
    Object.assign(op, opExtensions(o));
    item[o.method] = op;
    paths.set(o.path, item);
  }
  // the definitions those operations reach
  const queue = [...used];
  while (queue.length) {
    const n = queue.pop()!;
    const found = new Set<string>();
    collectRefs(b.definitions[n], found);
    for (const f of found) {
      if (used.has(f)) continue;
      used.add(f);
      queue.push(f);
    }
  }
  const schemas = sortedObject(
    [...used].filter((n) => b.definitions[n]).map((n) => [n, schemaV3(b.definitions[n]!)]),
  );
  return {
    openapi: '3.0.0',
    info: { title, version },
    paths: sortedObject([...paths]),
    components: {
      schemas,
      securitySchemes: {
        BearerToken: {
          type: 'apiKey',
          description: 'Bearer Token authentication',
          name: 'authorization',
          in: 'header',
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}
