// Loads the area's tables, each checked against its JSON schema when the suite loads (a
// malformed row fails loudly; a new row is a new case without new code): the retired-versions
// rows, the field-change rows and the sample objects they write. What a schema cannot say (ids
// unique, every stored replacement and every create step naming a sample) is checked here.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFile, uniqueId } from '../../harness/src/yaml-tables.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The release whose served versions the suite holds a target to (doc2's table is read against it). */
export const TARGET_RELEASE = '1.28';

export interface RetiredRow {
  id: string;
  kind: string;
  resource: string;
  /** '' for the core group. */
  group: string;
  version: string;
  namespaced: boolean;
  /** The release that stops serving the version. */
  release: string;
  stored?: false;
  replacement: { groupVersion?: string; since?: string; retired?: string; note?: string };
  /** The rule of the table row (suites/rules/doc2.yaml). */
  specRules: string[];
}

export interface Expect {
  status: number;
  /** Fields a cause must name; a list names one field by either of its names (Kubernetes 1.28 names some by the internal type's name). */
  causes?: (string | string[])[];
  shows?: Record<string, unknown>;
  absent?: string[];
}

export interface Step {
  create?: string;
  update?: true;
  subresource?: 'status';
  get?: string;
  set?: Record<string, unknown>;
  query?: Record<string, string>;
  expect: Expect;
}

export interface FieldRow {
  id: string;
  title: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level?: Level;
  steps: Step[];
}

/** Whether `a` (1.x) is a later release than `b`. */
export function laterRelease(a: string, b: string): boolean {
  return Number(a.split('.')[1]) > Number(b.split('.')[1]);
}

/** A row whose release is after the target's: the version is still served, deprecated. */
export const stillServed = (r: RetiredRow) => laterRelease(r.release, TARGET_RELEASE);

/** The replacement a target serves (none for a note, or a replacement itself retired by now). */
export function servedReplacement(r: RetiredRow): string | undefined {
  const rep = r.replacement;
  if (!rep.groupVersion) return undefined;
  if (rep.retired && !laterRelease(rep.retired, TARGET_RELEASE)) return undefined;
  return rep.groupVersion;
}

export const groupOf = (gv: string) => (gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '');
export const gvOf = (group: string, version: string) => (group ? `${group}/${version}` : version);
/** The key of a resource's sample object: `<group>/<resource>`, 'core' for the core group. */
export const sampleKey = (group: string, resource: string) => `${group || 'core'}/${resource}`;

export function loadSamples(): Record<string, Record<string, unknown>> {
  return loadTableFile<{ objects: Record<string, Record<string, unknown>> }>(
    join(HERE, 'objects.yaml'),
    join(HERE, 'objects.schema.json'),
  ).doc.objects;
}

export function loadRetiredRows(): RetiredRow[] {
  const f = loadTableFile<{ rows: RetiredRow[] }>(
    join(HERE, 'rows', 'retired-versions.yaml'),
    join(HERE, 'retired.schema.json'),
  );
  const samples = loadSamples();
  const ids = new Set<string>();
  for (const r of f.doc.rows) {
    uniqueId(ids, r.id, f.path);
    const rep = servedReplacement(r);
    if (rep && r.stored !== false && !samples[sampleKey(groupOf(rep), r.resource)])
      throw new Error(
        `${f.path}: row ${r.id}: no sample object ${sampleKey(groupOf(rep), r.resource)} in objects.yaml`,
      );
  }
  return f.doc.rows;
}

export function loadFieldRows(): FieldRow[] {
  const f = loadTableFile<{ rows: FieldRow[] }>(
    join(HERE, 'rows', 'field-changes.yaml'),
    join(HERE, 'field-changes.schema.json'),
  );
  const samples = loadSamples();
  const ids = new Set<string>();
  for (const r of f.doc.rows) {
    uniqueId(ids, r.id, f.path);
    if (!r.steps[0]?.create) throw new Error(`${f.path}: row ${r.id}: the first step must create an object`);
    for (const s of r.steps)
      if (s.create && !samples[s.create])
        throw new Error(`${f.path}: row ${r.id}: no sample object ${s.create}`);
  }
  return f.doc.rows;
}

/** The sample with its placeholders filled. */
export function fill(v: unknown, vars: Record<string, string>): any {
  if (typeof v === 'string') return v.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
  if (Array.isArray(v)) return v.map((x) => fill(x, vars));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, vars)]));
  return v;
}

const segments = (path: string) => path.split('.');

/** The value at a dotted path (array indices as numbers); undefined when absent. */
export function at(obj: unknown, path: string): unknown {
  let cur: any = obj;
  for (const s of segments(path)) {
    if (cur === null || typeof cur !== 'object' || !(s in cur)) return undefined;
    cur = cur[s];
  }
  return cur;
}

/** Whether the dotted path exists in the object. */
export function has(obj: unknown, path: string): boolean {
  const parts = segments(path);
  const parent = parts.length > 1 ? at(obj, parts.slice(0, -1).join('.')) : obj;
  return !!parent && typeof parent === 'object' && parts[parts.length - 1]! in (parent as object);
}

/** Sets each dotted path of `set` in a copy of `obj` (null removes it; missing objects are made). */
export function applySet(obj: unknown, set: Record<string, unknown> = {}): any {
  const out: any = structuredClone(obj);
  for (const [path, value] of Object.entries(set)) {
    const parts = segments(path);
    let cur = out;
    for (const p of parts.slice(0, -1)) {
      if (cur[p] === undefined || cur[p] === null) cur[p] = /^\d+$/.test(p) ? [] : {};
      cur = cur[p];
    }
    const last = parts[parts.length - 1]!;
    if (value === null) {
      if (Array.isArray(cur)) cur.splice(Number(last), 1);
      else delete cur[last];
    } else cur[last] = structuredClone(value);
  }
  return out;
}

export interface DeprecatedRow {
  id: string;
  kind: string;
  resource: string;
  group: string;
  version: string;
  deprecatedIn: string;
  removedIn?: string;
  /** The group/version to use instead (same kind). */
  replacement?: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
}

export function loadDeprecatedRows(): DeprecatedRow[] {
  const f = loadTableFile<{ rows: DeprecatedRow[] }>(
    join(HERE, 'rows', 'deprecated-versions.yaml'),
    join(HERE, 'deprecated.schema.json'),
  );
  const ids = new Set<string>();
  for (const r of f.doc.rows) uniqueId(ids, r.id, f.path);
  return f.doc.rows;
}

/**
 * The Warning text Kubernetes sends for a deprecated built-in version:
 * `<group>/<version> <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <group>/<version> <Kind>`.
 */
export function kubernetesWarning(r: DeprecatedRow): string {
  let w = `${gvOf(r.group, r.version)} ${r.kind} is deprecated in v${r.deprecatedIn}+`;
  if (r.removedIn) w += `, unavailable in v${r.removedIn}+`;
  if (r.replacement) w += `; use ${r.replacement} ${r.kind}`;
  return w;
}
