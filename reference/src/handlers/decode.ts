// Request bodies: JSON, YAML or Protobuf, then schema checks and field validation
// (Ignore / Warn / Strict) with the messages Kubernetes uses.
import { MAX_NESTING, parseJson, tooDeep, valueNestingExceeds } from '../content/json.ts';
import { mediaTypeOf, PROTOBUF_TYPE } from '../content/negotiate.ts';
import { decodeProtobuf } from '../content/protobuf.ts';
import { errors, StatusError } from '../errors/status.ts';
import { type RequestContext, type ResourceDef, schemaFor } from '../registry/types.ts';
import { decodeWithSchema } from '../schema/decode.ts';
import type { KObject } from '../storage/types.ts';
import { yaml } from '../util/yaml.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function fieldValidation(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.badRequest(
    `fieldValidation parameter unsupported: ${v}; supported values: Ignore, Warn, Strict`,
  );
}

/**
 * A parsed body: the value, the paths of duplicate keys and, for YAML, each duplicate as a
 * strict YAML decoder words it (`line 9: key "foo" already set in map`).
 */
export interface ParsedBody {
  value: unknown;
  duplicates: string[];
  duplicateLines?: string[];
  /**
   * No two places of the value share a part (JSON); YAML's aliases can make them share one,
   * so a YAML body's value is copied where it is decoded (see validateFields).
   */
  unshared?: boolean;
}

/** Parses a body by its Content-Type; returns the value and the paths of duplicate keys. */
export function parseBody(buf: Buffer, contentType: string | undefined, accepted: string[]): ParsedBody {
  const mt = mediaTypeOf(contentType || 'application/json');
  if (mt === 'application/json' || mt === '*/*' || mt === '') {
    const { value, duplicates } = parseJson(buf.toString('utf8'));
    return { value, duplicates, unshared: true };
  }
  if (mt === 'application/yaml' || mt === 'application/apply-patch+yaml') {
    return parseYaml(buf.toString('utf8'));
  }
  // kubectl 1.32+ sends `create namespace`/`create configmap` bodies in Kubernetes' own
  // Protobuf media type; the bytes are the same envelope, so it is accepted as an alias.
  if (mt === PROTOBUF_TYPE || mt === 'application/vnd.kubernetes.protobuf') {
    let value: unknown;
    try {
      value = decodeProtobuf(buf);
    } catch (e) {
      throw errors.badRequest(`error decoding request body: ${(e as Error).message}`);
    }
    // the envelope's raw JSON can nest as deep as it likes
    if (valueNestingExceeds(value)) throw tooDeep();
    return { value, duplicates: [] };
  }
  throw errors.unsupportedMediaType(mt, accepted);
}

/**
 * Whether YAML text nests collections deeper than `limit`, measured on the library's concrete
 * syntax tree (built without recursion). The library composes documents recursively: past
 * some hundreds of levels it exhausts the stack, which must never be reached.
 */
function yamlNestingExceeds(text: string, limit: number): boolean {
  type Tok = {
    type?: string;
    value?: Tok | null;
    key?: Tok | null;
    items?: { key?: Tok | null; value?: Tok | null }[];
  };
  const stack: [Tok, number][] = [];
  for (const tok of new (yaml().Parser)().parse(text)) stack.push([tok as Tok, 0]);
  while (stack.length) {
    const [t, d] = stack.pop()!;
    if (t.type === 'document') {
      if (t.value) stack.push([t.value, d]);
    } else if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      if (d + 1 > limit) return true;
      for (const it of t.items ?? []) {
        if (it.key) stack.push([it.key, d + 1]);
        if (it.value) stack.push([it.value, d + 1]);
      }
    }
  }
  return false;
}

export function parseYaml(text: string): ParsedBody {
  if (yamlNestingExceeds(text, MAX_NESTING)) throw tooDeep();
  try {
    return parseYamlDocument(text);
  } catch (e) {
    if (e instanceof StatusError) throw e;
    // the library throws for what it refuses late (unresolved aliases, alias bombs, ...)
    throw errors.badRequest(
      `error converting YAML to JSON: ${String((e as Error)?.message ?? e).split('\n')[0]}`,
    );
  }
}

function parseYamlDocument(text: string): ParsedBody {
  const doc = yaml().parseDocument(text, { uniqueKeys: false, strict: false, prettyErrors: false });
  if (doc.errors.length)
    throw errors.badRequest(`error decoding YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const duplicates: string[] = [];
  const duplicateLines: string[] = [];
  // 1-based line of a text offset
  const lineStarts: number[] = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  type Ranged = { value?: unknown; range?: [number, number, number] } | null;
  // the yaml library reports duplicate keys as warnings when uniqueKeys is off; find them ourselves
  const walk = (node: unknown, path: string) => {
    const n = node as { items?: unknown[]; key?: unknown; value?: unknown } | null;
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n.items)) {
      const isMap = n.items.length > 0 && (n.items[0] as { key?: unknown }).key !== undefined;
      if (isMap) {
        const seen = new Set<string>();
        for (const pair of n.items as { key: Ranged; value: Ranged }[]) {
          const raw = pair.key && typeof pair.key === 'object' ? pair.key.value : pair.key;
          const k = String(raw);
          const p = path ? `${path}.${k}` : k;
          if (seen.has(k)) {
            duplicates.push(p);
            // the line of the repeated key's value (of the key when it has none), as Go's YAML decoder counts
            const at = pair.value?.range?.[0] ?? pair.key?.range?.[0] ?? 0;
            const shown = typeof raw === 'string' ? JSON.stringify(raw) : k;
            duplicateLines.push(`line ${lineOf(at)}: key ${shown} already set in map`);
          }
          seen.add(k);
          walk(pair.value, p);
        }
      } else
        n.items.forEach((it, i) => {
          walk(it, `${path}[${i}]`);
        });
    }
  };
  walk(doc.contents, '');
  const value = doc.toJS({ maxAliasCount: 100 });
  // aliases can rebuild depth (or a cycle) the text does not show
  if (valueNestingExceeds(value)) throw tooDeep();
  return { value, duplicates, duplicateLines };
}

/**
 * Checks an object body against the kind's schema. Wrong types are a 400 whatever the
 * level; unknown and duplicate fields fail under Strict, warn under Warn, and are dropped.
 * `owned`: nothing else holds the value or any part of it, and no two of its places share a
 * part (a JSON body just parsed): it is kept where nothing is dropped rather than copied (see
 * decodeWithSchema).
 */
export function validateFields(
  value: unknown,
  duplicates: string[],
  def: ResourceDef,
  version: string,
  level: FieldValidation,
  ctx: RequestContext,
  owned = false,
): KObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw errors.badRequest(`the body of the request must be a JSON object`);
  // (its nesting was checked where it was made: parseBody for a body, the patch handler for a patched object)
  let obj = value as KObject;
  if (
    obj.metadata !== undefined &&
    (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata))
  )
    throw errors.badRequest(
      `${def.kind} in version "${version}" cannot be handled as a ${def.kind}: metadata must be an object`,
    );
  const schema = schemaFor(def, version);
  if (schema) {
    const r = decodeWithSchema(value, schema, owned);
    if (r.typeErrors.length) {
      const t = r.typeErrors[0]!;
      throw errors.badRequest(
        `${def.kind} in version "${version}" cannot be handled as a ${def.kind}: json: cannot unmarshal ${t.actual} into Go struct field ${t.path} of type ${t.expected}`,
      );
    }
    obj = r.value as KObject;
    const problems = [
      ...r.unknown.map((p) => `unknown field "${p}"`),
      ...duplicates.map((p) => `duplicate field "${p}"`),
    ];
    if (problems.length) {
      if (level === 'Strict') throw strictError(def, version, problems);
      if (level === 'Warn') ctx.warnings.push(...problems);
    }
  } else if (duplicates.length) {
    const problems = duplicates.map((p) => `duplicate field "${p}"`);
    if (level === 'Strict') throw strictError(def, version, problems);
    if (level === 'Warn') ctx.warnings.push(...problems);
  }
  obj.metadata ??= {};
  return obj;
}

/** Strict field validation failed: one 400 listing every unknown and duplicate field. */
function strictError(def: ResourceDef, version: string, problems: string[]) {
  return errors.badRequest(
    `${def.kind} in version "${version}" cannot be handled as a ${def.kind}: strict decoding error: ${problems.join(', ')}`,
  );
}

/**
 * The body's apiVersion and kind must name the resource of the request when present; when
 * absent they default to the request's (as Kubernetes decodes with the endpoint's kind).
 */
export function checkTypeMeta(obj: KObject, def: ResourceDef, apiVersion: string): void {
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== def.kind)
    throw errors.badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${def.kind})`,
    );
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== apiVersion)
    throw errors.badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
}
