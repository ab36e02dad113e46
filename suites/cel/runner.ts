// Runs the rows: the schema of a group's definition, the writes of a row (each answer and what
// the server then holds checked against the row), and the definition a row expects refused.
// `strict` adds what only Kubernetes shows: 201, 200 and 422 Invalid, each violation a cause
// with its exact field path, its reason and a fragment of its message, all in one answer;
// without it a refusal is any 4xx that leaves nothing written.
import { check, checkStatus, deepEqual, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import {
  CRD_PATH,
  type Definition,
  definitionsUnavailable,
  deleteDefinition,
  newDefinition,
  postDefinition,
} from './definition.ts';
import { type Group, type Row, type Rule, rowKey, type Violation, type Write } from './row-files.ts';

/**
 * How long a row's write may take: its rules may run up to a validation's whole runtime budget
 * (kube-apiserver 1.28 spent over 15 s on the runtime-budget row on a busy machine).
 */
const WRITE_TIMEOUT_MS = 25_000;

/** The row's schema with its rules added to the root's x-orch-validations. */
function withRules(schema: Record<string, unknown>, rules: Rule[] | undefined): Record<string, unknown> {
  if (!rules) return schema;
  const own = (schema['x-orch-validations'] as Rule[] | undefined) ?? [];
  return { ...schema, 'x-orch-validations': [...own, ...rules] };
}

/** A `spec` holding one property per row. */
function specOf(rows: Row[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(rows.map((r) => [rowKey(r), withRules(r.schema, r.rules)])),
  };
}

/** The openAPIV3Schema of a group's definition: every row that is written. */
export function groupSchema(g: Group): Record<string, unknown> {
  const written = g.rows.filter((r) => r.writes);
  if (g.root) return withRules(written[0]!.schema, written[0]!.rules);
  return { type: 'object', properties: { spec: specOf(written) } };
}

/** Whether a group has rows that are written (and so a definition of its own). */
export const hasWrites = (g: Group) => g.rows.some((r) => r.writes);

function joinField(base: string, rel: string): string {
  if (rel === '') return base;
  if (rel.startsWith('[')) return base + rel;
  const tail = rel.startsWith('.') ? rel.slice(1) : rel;
  return base ? `${base}.${tail}` : tail;
}

function showCauses(r: Response): string {
  const causes = r.statusObj?.details?.causes ?? [];
  return causes.length
    ? causes
        .map((c) => `{field: ${show(c.field)}, reason: ${show(c.reason)}, message: ${show(c.message)}}`)
        .join(', ')
    : '(no causes)';
}

/** Every violation is a cause of the one answer: exact field, reason when given, message fragment. */
function checkViolations(r: Response, want: Violation[], base: string, why: string): void {
  const causes = r.statusObj?.details?.causes ?? [];
  for (const v of want) {
    const field = joinField(base, v.field);
    const hit = causes.some(
      (c) =>
        c.field === field &&
        typeof c.message === 'string' &&
        c.message.includes(v.message) &&
        (!v.reason || c.reason === v.reason),
    );
    check(
      hit,
      `among the causes (status.details.causes), one with field ${show(field)}${v.reason ? `, reason ${v.reason}` : ''} and a message containing ${show(v.message)}${want.length > 1 ? ` (all ${want.length} violations in the one answer)` : ''}`,
      `${r.describe()} — causes: ${showCauses(r)}`,
      why,
    );
  }
}

function describeWrite(w: Write, i: number, base: string): string {
  const what =
    'create' in w
      ? `create an object with ${base || 'body'} ${show(w.create)}`
      : `update (PUT) the object with ${base || 'body'} ${show(w.update)}`;
  const outcome = w.refused ? 'refused' : 'accepted';
  return `write ${i + 1}: ${w.say ? `${w.say} — ` : ''}${what}, expected ${outcome}`;
}

export interface WriteRun {
  ns: string;
  def: Definition;
  root: boolean;
  strict: boolean;
}

/** The object a write sends. */
function objectOf(
  d: Definition,
  root: boolean,
  key: string,
  name: string,
  value: unknown,
): Record<string, unknown> {
  const envelope = { apiVersion: d.apiVersion, kind: d.kind };
  if (!root) return { ...envelope, metadata: { name }, spec: { [key]: value } };
  const body = (value ?? {}) as Record<string, unknown>;
  const meta = (body.metadata ?? {}) as Record<string, unknown>;
  return { ...envelope, ...body, metadata: { ...meta, name } };
}

async function read(t: CaseContext, path: string): Promise<any> {
  const r = await t.client.get(path);
  if (r.status === 404) return undefined;
  check(r.status === 200, `200 reading ${path}`, r.describe(), 'reading the object back');
  return r.json;
}

/** The part of a stored object a row's write sets. */
function partOf(obj: any, root: boolean, key: string): unknown {
  if (!obj) return undefined;
  if (!root) return obj.spec?.[key];
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** Runs a row's writes in order on the objects it creates. */
export async function runWrites(row: Row, t: CaseContext, o: WriteRun): Promise<void> {
  if (o.def.unavailable) t.skip(o.def.unavailable);
  check(
    !o.def.refused,
    'the definition of the group served (its rules are valid)',
    o.def.refused,
    `setup of ${row.id}: the group's definition holds this row's rules`,
  );
  const key = rowKey(row);
  const base = o.root ? '' : `spec.${key}`;
  let current = '';
  for (const [i, w] of row.writes!.entries()) {
    const label = describeWrite(w, i, base);
    await t.step(label, async () => {
      let r: Response;
      let before: unknown;
      if ('create' in w) {
        current = uniqueName('c');
        r = await t.client.post(o.def.collection(o.ns), objectOf(o.def, o.root, key, current, w.create), {
          timeoutMs: WRITE_TIMEOUT_MS,
        });
      } else {
        check(
          current !== '',
          'an object created by an earlier write',
          'none',
          `${label}: the row is malformed`,
        );
        const cur = await read(t, o.def.one(o.ns, current));
        check(cur !== undefined, 'the object present, to update it', 'absent', label);
        before = partOf(cur, o.root, key);
        const next = o.root
          ? { ...cur, ...((w.update ?? {}) as object), metadata: cur.metadata }
          : { ...cur, spec: { ...(cur.spec ?? {}), [key]: w.update } };
        r = await t.client.put(o.def.one(o.ns, current), next, {
          timeoutMs: WRITE_TIMEOUT_MS,
        });
      }
      if (w.refused) {
        check(
          r.status >= 400 && r.status < 500,
          'a 4xx refusal',
          `${r.describe()} — causes: ${showCauses(r)}`,
          label,
        );
        if (o.strict) {
          checkStatus(r, 422, 'Invalid', label);
          checkViolations(r, w.refused, base, label);
        }
        const after = await read(t, o.def.one(o.ns, current));
        if ('create' in w)
          check(
            after === undefined,
            'no object stored',
            show(after),
            `${label}: a refused create stores nothing`,
          );
        else
          check(
            deepEqual(partOf(after, o.root, key), before),
            `the value before the update, ${show(before)}`,
            show(partOf(after, o.root, key)),
            `${label}: a refused update changes nothing`,
          );
        if ('create' in w) current = '';
        return;
      }
      check(
        r.status >= 200 && r.status < 300,
        'a 2xx answer (accepted)',
        `${r.describe()} — causes: ${showCauses(r)}`,
        label,
      );
      if (o.strict) checkStatus(r, 'create' in w ? 201 : 200, undefined, label);
    });
  }
}

/** Sends a definition holding this row alone and expects it refused at the rule's field. */
export async function runDefinition(row: Row, root: boolean, t: CaseContext, strict: boolean): Promise<void> {
  const unavailable = await definitionsUnavailable(t.client);
  if (unavailable) t.skip(unavailable);
  const d = newDefinition('def');
  const key = rowKey(row);
  const schema = root
    ? withRules(row.schema, row.rules)
    : { type: 'object', properties: { spec: specOf([row]) } };
  // The definition has one version, so every version has the same schema: Kubernetes then holds
  // it as the definition's one schema (spec.validation) and names its violations there.
  const base = root
    ? 'spec.validation.openAPIV3Schema'
    : `spec.validation.openAPIV3Schema.properties[spec].properties[${key}]`;
  const want = row.definition!.refused;
  const label = `create a definition whose ${root ? 'schema' : `spec.${key}`} is ${show(withRules(row.schema, row.rules))}, expected refused`;
  await t.step(label, async () => {
    const r = await postDefinition(t.client, d, schema);
    try {
      check(
        r.status >= 400 && r.status < 500,
        'a 4xx refusal of the definition',
        `${r.describe()} — causes: ${showCauses(r)}`,
        label,
      );
      if (strict) {
        checkStatus(r, 422, 'Invalid', label);
        checkViolations(r, [want], base, label);
      }
      const after = await t.client.get(`${CRD_PATH}/${d.name}`);
      check(
        after.status === 404,
        'no definition stored (404)',
        after.describe(),
        `${label}: a refused definition is not created`,
      );
    } finally {
      if (r.status >= 200 && r.status < 300) await deleteDefinition(t.client, d);
    }
  });
}
