// What the apply cases share: the kinds of object they write, the requests (apply and the other
// writes, with a manager named by ?fieldManager= or User-Agent), and the checks of an object's
// content and of its metadata.managedFields against what a scenario or the model expects.
import { check, checkRfc3339, isRfc3339, show } from '../../harness/src/assert.ts';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { paths } from '../../harness/src/fixtures.ts';
import { portableYaml } from '../../harness/src/yaml.ts';
import {
  canonicalJson,
  canonicalPath,
  formatElement,
  fromFieldsV1,
  lenientPath,
  lenientSet,
  parsePath,
  sameSet,
  setDiff,
  smdPathString,
  sortedList,
  withoutIdentity,
} from './fieldsets.ts';
import { WIDGET_UNORDERED, type WidgetType } from './widget.ts';

export const MEDIA = {
  apply: 'application/apply-patch+yaml',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

export type KindName = 'ConfigMap' | 'Widget' | 'Deployment' | 'Pod';

export interface ObjectKind {
  name: KindName;
  apiVersion: string;
  kind: string;
  collection(ns: string): string;
  one(ns: string, name: string): string;
  /** Canonical paths of the lists compared in any order (sets and map lists). */
  unordered: Set<string>;
}

export function objectKind(name: KindName, widget?: WidgetType): ObjectKind {
  switch (name) {
    case 'ConfigMap':
      return {
        name,
        apiVersion: 'v1',
        kind: 'ConfigMap',
        collection: paths.configmaps,
        one: paths.configmap,
        unordered: new Set(),
      };
    case 'Pod':
      return {
        name,
        apiVersion: 'v1',
        kind: 'Pod',
        collection: (ns) => `/api/v1/namespaces/${ns}/pods`,
        one: (ns, n) => `/api/v1/namespaces/${ns}/pods/${n}`,
        unordered: new Set(),
      };
    case 'Deployment':
      return {
        name,
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        collection: (ns) => `/apis/apps/v1/namespaces/${ns}/deployments`,
        one: (ns, n) => `/apis/apps/v1/namespaces/${ns}/deployments/${n}`,
        unordered: new Set(),
      };
    case 'Widget':
      if (!widget) throw new Error('a Widget scenario needs the Widget type');
      return {
        name,
        apiVersion: widget.apiVersion,
        kind: widget.kind,
        collection: widget.collection,
        one: widget.one,
        unordered: new Set([...WIDGET_UNORDERED, '.spec.topo'].map(canonicalPath)),
      };
  }
}

/** Why objects of this kind cannot be written on this endpoint, or ''. */
export async function kindUnavailable(c: Client, name: KindName): Promise<string> {
  const need: Partial<Record<KindName, string>> = { Deployment: 'apps/v1/deployments', Pod: 'v1/pods' };
  const r = need[name];
  if (!r) return '';
  return (await capabilities(c)).resources.has(r) ? '' : notServed(r);
}

// ------------------------------------------------------------------------------- requests

export interface WriteOptions {
  manager?: string;
  userAgent?: string;
  force?: boolean;
  dryRun?: boolean;
  anonymous?: boolean;
}

function writeQuery(o: WriteOptions): Record<string, string | undefined> {
  return {
    fieldManager: o.manager,
    force: o.force === undefined ? undefined : String(o.force),
    dryRun: o.dryRun ? 'All' : undefined,
  };
}

function writeHeaders(o: WriteOptions): Record<string, string> | undefined {
  return o.userAgent ? { 'user-agent': o.userAgent } : undefined;
}

/** A server-side apply: PATCH with application/apply-patch+yaml, the body as YAML (or JSON) text. */
export function applyPatch(
  c: Client,
  path: string,
  body: unknown,
  o: WriteOptions & { encoding?: 'yaml' | 'json' } = {},
): Promise<Response> {
  const mapped = c.d.out(body);
  const text = o.encoding === 'json' ? JSON.stringify(mapped) : portableYaml(mapped);
  return c.patch(path, text, MEDIA.apply, {
    query: writeQuery(o),
    headers: writeHeaders(o),
    anonymous: o.anonymous,
  });
}

export function patchAs(
  c: Client,
  path: string,
  body: unknown,
  contentType: string,
  o: WriteOptions = {},
): Promise<Response> {
  return c.patch(path, body, contentType, {
    query: writeQuery(o),
    headers: writeHeaders(o),
    anonymous: o.anonymous,
  });
}

export function putAs(c: Client, path: string, body: unknown, o: WriteOptions = {}): Promise<Response> {
  return c.put(path, body, { query: writeQuery(o), headers: writeHeaders(o), anonymous: o.anonymous });
}

export function postAs(c: Client, path: string, body: unknown, o: WriteOptions = {}): Promise<Response> {
  return c.post(path, body, { query: writeQuery(o), headers: writeHeaders(o), anonymous: o.anonymous });
}

/** The object, or undefined when absent (404); anything else fails the case. */
export async function readObject(c: Client, path: string, why: string): Promise<any | undefined> {
  const r = await c.get(path);
  if (r.status === 404) return undefined;
  check(r.status === 200, `200 or 404 reading the object (${why})`, r.describe());
  return r.json;
}

/** RFC 7386 merge of `patch` into `target` (null deletes; arrays and scalars replace). */
export function mergeInto(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeInto(out[k], v);
  }
  return out;
}

// ---------------------------------------------------------------------- object content

/**
 * The value at a path (undefined when absent): struct fields, and list items by key (`k:`),
 * value (`v:`) or index (`i:`).
 */
export function valueAt(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const e of parsePath(path)) {
    if ('f' in e) {
      cur =
        cur && typeof cur === 'object' && !Array.isArray(cur)
          ? (cur as Record<string, unknown>)[e.f]
          : undefined;
    } else if (!Array.isArray(cur)) return undefined;
    else if ('k' in e)
      cur = cur.find(
        (x) =>
          x &&
          typeof x === 'object' &&
          Object.entries(e.k).every(
            ([n, v]) => canonicalJson((x as Record<string, unknown>)[n]) === canonicalJson(v),
          ),
      );
    else if ('v' in e) cur = cur.find((x) => canonicalJson(x) === canonicalJson(e.v));
    else if ('i' in e) cur = cur[e.i];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A value with the lists the spec leaves unordered sorted, so equal contents compare equal. */
export function normalizeValue(v: unknown, path: string, unordered: Set<string>): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => normalizeValue(x, `${path}[*]`, unordered));
    return unordered.has(path)
      ? [...items].sort((a, b) => canonicalJson(a).localeCompare(canonicalJson(b)))
      : items;
  }
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      o[k] = normalizeValue(x, `${path}${formatElement({ f: k })}`, unordered);
    return o;
  }
  return v;
}

/** Each path has the expected value (null: absent); lists the spec leaves unordered in any order. */
export function checkFields(
  obj: unknown,
  fields: Record<string, unknown>,
  unordered: Set<string>,
  why: string,
): void {
  for (const [p, want] of Object.entries(fields)) {
    const path = canonicalPath(p);
    const got = valueAt(obj, path);
    if (want === null) {
      check(got === undefined, `${path} absent`, `${path} = ${show(got)}`, why);
      continue;
    }
    const a = canonicalJson(normalizeValue(got, path, unordered));
    const b = canonicalJson(normalizeValue(want, path, unordered));
    check(a === b, `${path} = ${show(want)}`, `${path} = ${show(got)}`, why);
  }
}

// ----------------------------------------------------------------------- managed fields

export interface Entry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export function entriesOf(obj: any): Entry[] {
  const mf = obj?.metadata?.managedFields;
  return Array.isArray(mf) ? mf : [];
}

/** doc2 § managedFields entry: manager, operation (Apply or Update), apiVersion, time (when present), fieldsType FieldsV1, fieldsV1. */
export function checkEntryShape(e: Entry, why: string): void {
  const who = `the entry of ${show(e.manager)}`;
  check(typeof e.manager === 'string', `${who}: a manager string`, show(e), why);
  check(
    e.operation === 'Apply' || e.operation === 'Update',
    `${who}: operation Apply or Update`,
    show(e.operation),
    why,
  );
  check(
    typeof e.apiVersion === 'string' && e.apiVersion !== '',
    `${who}: an apiVersion`,
    show(e.apiVersion),
    why,
  );
  // doc2 describes `time` ("when the entry was last written") without saying every entry has
  // one: Kubernetes leaves it out of an entry whose apply changed no value. Checked when present.
  if (e.time !== undefined) checkRfc3339(e.time, `${who}: time, when present`, why);
  check(e.fieldsType === 'FieldsV1', `${who}: fieldsType "FieldsV1"`, show(e.fieldsType), why);
  check(!!e.fieldsV1 && typeof e.fieldsV1 === 'object', `${who}: fieldsV1, a map`, show(e.fieldsV1), why);
}

/** The paths an entry owns (canonical notation), identity fields left out. */
export function ownedPaths(e: Entry): Set<string> {
  return withoutIdentity(fromFieldsV1(e.fieldsV1));
}

export interface ExpectedEntry {
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  fields?: string[];
  includes?: string[];
  excludes?: string[];
  /** Written by the step's change: `time` present, RFC 3339, not before the object's creation. */
  written?: true;
}

export interface ManagedFieldsCheck {
  /** by `manager` or `manager@Operation`; null: no entry */
  entries: Record<string, ExpectedEntry | null>;
  otherManagers?: 'none' | 'any';
  /** The apiVersion every entry names unless the expectation says otherwise. */
  apiVersion: string;
  /** Compare list items by their fieldsV1 keys (Kubernetes' formats), or as `[*]`. */
  strict: boolean;
}

function showEntries(es: Entry[]): string {
  return es.map((e) => `${e.manager}@${e.operation}: {${sortedList(ownedPaths(e)).join(', ')}}`).join(' | ');
}

export function checkManagedFields(obj: unknown, m: ManagedFieldsCheck, why: string): void {
  const entries = entriesOf(obj);
  for (const e of entries) checkEntryShape(e, why);
  const matched = new Set<Entry>();
  const view = (s: Iterable<string>) => (m.strict ? new Set(s) : lenientSet(s));
  for (const [key, want] of Object.entries(m.entries)) {
    const [name, op] = key.split('@') as [string, string | undefined];
    const cands = entries.filter((e) => e.manager === name && (!op || e.operation === op));
    if (want === null) {
      check(cands.length === 0, `no managedFields entry for ${key}`, showEntries(entries) || 'none', why);
      continue;
    }
    check(cands.length === 1, `one managedFields entry for ${key}`, showEntries(entries) || 'none', why);
    const e = cands[0]!;
    matched.add(e);
    const operation = want.operation ?? op;
    if (operation) check(e.operation === operation, `${key}: operation ${operation}`, show(e.operation), why);
    const apiVersion = want.apiVersion ?? m.apiVersion;
    check(e.apiVersion === apiVersion, `${key}: apiVersion ${apiVersion}`, show(e.apiVersion), why);
    const got = view(ownedPaths(e));
    if (want.fields) {
      const exp = view(want.fields.map(canonicalPath));
      check(
        sameSet(exp, got),
        `${key} owns exactly {${sortedList(exp).join(', ')}}`,
        `{${sortedList(got).join(', ')}} (${setDiff(exp, got)})`,
        why,
      );
    }
    for (const p of want.includes ?? []) {
      const x = m.strict ? canonicalPath(p) : lenientPath(p);
      check(got.has(x), `${key} owns ${x}`, `{${sortedList(got).join(', ')}}`, why);
    }
    if (want.written) {
      const created = (obj as { metadata?: { creationTimestamp?: string } })?.metadata?.creationTimestamp;
      check(
        isRfc3339(e.time) && (!created || Date.parse(e.time) >= Date.parse(created)),
        `${key}: time, when the entry was last written (an RFC 3339 timestamp not before the creation, ${created})`,
        show(e.time),
        why,
      );
    }
    for (const p of want.excludes ?? []) {
      // a list item cannot be told apart from its siblings without the key formats
      if (!m.strict && lenientPath(p) !== canonicalPath(p)) continue;
      const x = canonicalPath(p);
      check(!got.has(x), `${key} does not own ${x}`, `{${sortedList(got).join(', ')}}`, why);
    }
  }
  if ((m.otherManagers ?? 'none') === 'none') {
    const others = entries.filter((e) => !matched.has(e));
    check(
      others.length === 0,
      `no managedFields entries besides ${
        Object.keys(m.entries)
          .filter((k) => m.entries[k])
          .join(', ') || 'none'
      }`,
      showEntries(others),
      why,
    );
  }
}

// ------------------------------------------------------------------------------ conflicts

export interface ExpectedConflict {
  field: string;
  manager: string;
}

/** Kubernetes: 409 Conflict whose causes (FieldManagerConflict) name each field and its manager. */
export function checkConflictCauses(r: Response, want: ExpectedConflict[], why: string): void {
  const causes = (r.statusObj?.details?.causes ?? []).filter((c: any) => c.reason === 'FieldManagerConflict');
  const got = new Set(
    causes.map(
      (c) => `${c.field} with ${/conflict with "([^"]*)"/.exec(c.message ?? '')?.[1] ?? show(c.message)}`,
    ),
  );
  const exp = new Set(want.map((w) => `${smdPathString(w.field)} with ${w.manager}`));
  check(
    sameSet(exp, got),
    `causes (FieldManagerConflict) {${sortedList(exp).join('; ')}}`,
    `{${sortedList(got).join('; ')}} (${setDiff(exp, got)})`,
    why,
  );
}

/** Nothing changed: same object, resourceVersion and managedFields (or still absent). */
export function checkUnchanged(before: unknown, after: unknown, why: string): void {
  if (before === undefined) {
    check(after === undefined, 'the object still absent', show(after), why);
    return;
  }
  check(after !== undefined, 'the object still present', 'absent', why);
  check(canonicalJson(after) === canonicalJson(before), show(before), show(after), why);
}

export function is2xx(r: Response): boolean {
  return r.status >= 200 && r.status < 300;
}
export function is4xx(r: Response): boolean {
  return r.status >= 400 && r.status < 500;
}
