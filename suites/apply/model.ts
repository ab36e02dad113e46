// A model of doc2's field ownership rules (§ States and transitions, § Merge strategy markers),
// written from the text, for the property-based cases: a Widget spec with a granular map, an
// atomic list, a set list and a map list keyed by name, and the managers that own its fields.
//
// The model works on fields and list items (the leaves of the object, and the items of set and
// map lists); maps, lists and structs that merely hold them are left out, and an empty one counts
// as absent. Rules, as the model applies them:
// - apply by M (intent I, force F): the intent merges into the object (granular keys one by one,
//   atomic list whole, set and map-list items by value and key); then every field or item M owned
//   before and leaves out of I is removed unless another manager owns it (an item goes with its
//   fields) — "applied set shrinks", "sole owner omits". A field whose value the request changes
//   (or that it adds) and that another manager owns is a conflict: without force the request is
//   rejected and nothing changes; with force the field leaves the other managers. M then owns
//   exactly the fields of I (same values shared: "A and B share ownership").
// - update (PUT) by U: no conflicts; U gains every field or item it changes or adds, the others
//   lose them; a removed field leaves everyone.
// - a manager that owns nothing has no entry.
import { canonicalJson, formatPath } from './fieldsets.ts';

export const APPLIERS = ['alice', 'bob'] as const;
export const UPDATER = 'carol';
export type Applier = (typeof APPLIERS)[number];

export interface MapItem {
  name: string;
  value?: string;
}

/** An apply intent for spec (each field optional). */
export interface Intent {
  granular?: Record<string, string>;
  atomicList?: string[];
  setList?: string[];
  mapList?: MapItem[];
}

/** The object's spec as the model sees it (sets and map lists without order). */
export interface Spec {
  granular: Record<string, string>;
  atomicList?: string[];
  setList: string[];
  mapList: Record<string, { value?: string }>;
}

export interface ModelState {
  exists: boolean;
  spec: Spec;
  /** manager key (`name@Apply` / `name@Update`) -> owned paths */
  owners: Map<string, Set<string>>;
}

export interface Conflict {
  path: string;
  manager: string;
}

export type StepResult =
  | { ok: true; created: boolean; state: ModelState }
  | { ok: false; conflicts: Conflict[] };

export const emptySpec = (): Spec => ({ granular: {}, setList: [], mapList: {} });
export const initialState = (): ModelState => ({ exists: false, spec: emptySpec(), owners: new Map() });

// ---------------------------------------------------------------------------- paths

export const P = {
  granular: (k: string) => formatPath([{ f: 'spec' }, { f: 'granular' }, { f: k }]),
  atomicList: () => formatPath([{ f: 'spec' }, { f: 'atomicList' }]),
  set: (v: string) => formatPath([{ f: 'spec' }, { f: 'setList' }, { v }]),
  item: (name: string) => formatPath([{ f: 'spec' }, { f: 'mapList' }, { k: { name } }]),
  itemName: (name: string) => formatPath([{ f: 'spec' }, { f: 'mapList' }, { k: { name } }, { f: 'name' }]),
  itemValue: (name: string) => formatPath([{ f: 'spec' }, { f: 'mapList' }, { k: { name } }, { f: 'value' }]),
};

/** Leaf and item paths of a spec, each with its value (canonical JSON; null for a map-list item). */
export function flatten(s: Spec): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const [k, v] of Object.entries(s.granular)) out.set(P.granular(k), canonicalJson(v));
  if (s.atomicList?.length) out.set(P.atomicList(), canonicalJson(s.atomicList));
  for (const v of s.setList) out.set(P.set(v), canonicalJson(v));
  for (const [name, item] of Object.entries(s.mapList)) {
    out.set(P.item(name), null);
    out.set(P.itemName(name), canonicalJson(name));
    if (item.value !== undefined) out.set(P.itemValue(name), canonicalJson(item.value));
  }
  return out;
}

/** The fields an intent names: its field set. */
export function intentFields(i: Intent): Set<string> {
  const out = new Set<string>();
  for (const k of Object.keys(i.granular ?? {})) out.add(P.granular(k));
  if (i.atomicList) out.add(P.atomicList());
  for (const v of i.setList ?? []) out.add(P.set(v));
  for (const it of i.mapList ?? []) {
    out.add(P.item(it.name));
    out.add(P.itemName(it.name));
    if (it.value !== undefined) out.add(P.itemValue(it.name));
  }
  return out;
}

function cloneSpec(s: Spec): Spec {
  return {
    granular: { ...s.granular },
    atomicList: s.atomicList ? [...s.atomicList] : undefined,
    setList: [...s.setList],
    mapList: Object.fromEntries(Object.entries(s.mapList).map(([k, v]) => [k, { ...v }])),
  };
}

function cloneOwners(o: Map<string, Set<string>>): Map<string, Set<string>> {
  return new Map([...o].map(([k, v]) => [k, new Set(v)]));
}

/** The intent merged into the spec. */
export function merge(s: Spec, i: Intent): Spec {
  const out = cloneSpec(s);
  Object.assign(out.granular, i.granular ?? {});
  if (i.atomicList) out.atomicList = [...i.atomicList];
  for (const v of i.setList ?? []) if (!out.setList.includes(v)) out.setList.push(v);
  for (const it of i.mapList ?? []) {
    const cur = out.mapList[it.name] ?? {};
    out.mapList[it.name] = it.value !== undefined ? { ...cur, value: it.value } : cur;
  }
  return out;
}

/** Removes the fields and items at these paths (an item with its fields). */
function removePaths(s: Spec, paths: Set<string>): Spec {
  const out = cloneSpec(s);
  for (const k of Object.keys(out.granular)) if (paths.has(P.granular(k))) delete out.granular[k];
  if (paths.has(P.atomicList())) out.atomicList = undefined;
  out.setList = out.setList.filter((v) => !paths.has(P.set(v)));
  for (const name of Object.keys(out.mapList)) {
    if (paths.has(P.item(name))) delete out.mapList[name];
    else if (paths.has(P.itemValue(name))) delete out.mapList[name]!.value;
  }
  return out;
}

/** What changed between two specs: added, modified (value differs) and removed paths. */
export function compare(
  a: Spec,
  b: Spec,
): { added: Set<string>; modified: Set<string>; removed: Set<string> } {
  const fa = flatten(a);
  const fb = flatten(b);
  const added = new Set<string>();
  const modified = new Set<string>();
  const removed = new Set<string>();
  for (const [p, v] of fb) {
    if (!fa.has(p)) added.add(p);
    else if (v !== null && fa.get(p) !== v) modified.add(p);
  }
  for (const p of fa.keys()) if (!fb.has(p)) removed.add(p);
  return { added, modified, removed };
}

const key = (manager: string, op: 'Apply' | 'Update') => `${manager}@${op}`;
export const managerOf = (k: string) => k.split('@')[0]!;

function dropEmpty(o: Map<string, Set<string>>): void {
  for (const [k, v] of o) if (v.size === 0) o.delete(k);
}

export function applyStep(s: ModelState, manager: string, intent: Intent, force: boolean): StepResult {
  const me = key(manager, 'Apply');
  const config = intentFields(intent);
  const last = s.owners.get(me) ?? new Set<string>();
  const merged = merge(s.spec, intent);
  // a field the applier owned before and leaves out goes, unless another manager owns it
  const ownedByOthers = new Set<string>();
  for (const [k, v] of s.owners) if (k !== me) for (const p of v) ownedByOthers.add(p);
  const drop = new Set([...last].filter((p) => !config.has(p) && !ownedByOthers.has(p)));
  const next = removePaths(merged, drop);
  const diff = compare(s.spec, next);
  const changed = new Set([...diff.modified, ...diff.added]);
  const conflicts: Conflict[] = [];
  for (const [k, v] of s.owners) {
    if (k === me) continue;
    for (const p of v) if (changed.has(p)) conflicts.push({ path: p, manager: managerOf(k) });
  }
  if (conflicts.length && !force) return { ok: false, conflicts };
  const owners = cloneOwners(s.owners);
  for (const [k, v] of owners) {
    if (k === me) continue;
    for (const p of [...v]) if (changed.has(p) || diff.removed.has(p)) v.delete(p);
  }
  owners.set(me, new Set(config));
  dropEmpty(owners);
  return { ok: true, created: !s.exists, state: { exists: true, spec: next, owners } };
}

export function updateStep(s: ModelState, manager: string, next: Spec): StepResult {
  const me = key(manager, 'Update');
  const diff = compare(s.spec, next);
  const changed = new Set([...diff.modified, ...diff.added]);
  const owners = cloneOwners(s.owners);
  for (const [k, v] of owners) {
    if (k === me) continue;
    for (const p of [...v]) if (changed.has(p) || diff.removed.has(p)) v.delete(p);
  }
  const mine = owners.get(me) ?? new Set<string>();
  for (const p of [...mine]) if (diff.removed.has(p)) mine.delete(p);
  for (const p of changed) mine.add(p);
  owners.set(me, mine);
  dropEmpty(owners);
  return { ok: true, created: false, state: { exists: true, spec: cloneSpec(next), owners } };
}

// ------------------------------------------------------------------ updates (PUT edits)

export type Edit =
  | { op: 'setKey'; key: string; value: string }
  | { op: 'delKey'; key: string }
  | { op: 'setAtomic'; value: string[] }
  | { op: 'delAtomic' }
  | { op: 'addSet'; value: string }
  | { op: 'delSet'; value: string }
  | { op: 'setItem'; name: string; value: string }
  | { op: 'delItem'; name: string };

/** The spec after an edit (the model's side of a PUT). */
export function editSpec(s: Spec, e: Edit): Spec {
  const out = cloneSpec(s);
  switch (e.op) {
    case 'setKey':
      out.granular[e.key] = e.value;
      break;
    case 'delKey':
      delete out.granular[e.key];
      break;
    case 'setAtomic':
      out.atomicList = [...e.value];
      break;
    case 'delAtomic':
      out.atomicList = undefined;
      break;
    case 'addSet':
      if (!out.setList.includes(e.value)) out.setList.push(e.value);
      break;
    case 'delSet':
      out.setList = out.setList.filter((v) => v !== e.value);
      break;
    case 'setItem':
      out.mapList[e.name] = { ...(out.mapList[e.name] ?? {}), value: e.value };
      break;
    case 'delItem':
      delete out.mapList[e.name];
      break;
  }
  return out;
}

/** The same edit on the object as read from the server (the body of the PUT); empty containers go. */
export function editObject(obj: any, e: Edit): any {
  const o = structuredClone(obj);
  o.spec ??= {};
  const sp = o.spec;
  switch (e.op) {
    case 'setKey':
      sp.granular = { ...(sp.granular ?? {}), [e.key]: e.value };
      break;
    case 'delKey':
      if (sp.granular) delete sp.granular[e.key];
      break;
    case 'setAtomic':
      sp.atomicList = [...e.value];
      break;
    case 'delAtomic':
      delete sp.atomicList;
      break;
    case 'addSet':
      sp.setList = [...(sp.setList ?? [])];
      if (!sp.setList.includes(e.value)) sp.setList.push(e.value);
      break;
    case 'delSet':
      sp.setList = (sp.setList ?? []).filter((v: string) => v !== e.value);
      break;
    case 'setItem': {
      const items = [...(sp.mapList ?? [])];
      const i = items.findIndex((x: MapItem) => x?.name === e.name);
      if (i >= 0) items[i] = { ...items[i], value: e.value };
      else items.push({ name: e.name, value: e.value });
      sp.mapList = items;
      break;
    }
    case 'delItem':
      sp.mapList = (sp.mapList ?? []).filter((x: MapItem) => x?.name !== e.name);
      break;
  }
  for (const k of ['granular', 'setList', 'mapList', 'atomicList'])
    if (sp[k] && (Array.isArray(sp[k]) ? sp[k].length === 0 : Object.keys(sp[k]).length === 0)) delete sp[k];
  return o;
}

// ------------------------------------------------------------------------ observation

/** The model's view of a Widget read from the server (unknown fields of spec are ignored). */
export function specOf(obj: any): Spec {
  const sp = obj?.spec ?? {};
  const mapList: Spec['mapList'] = {};
  for (const it of sp.mapList ?? []) mapList[it.name] = it.value === undefined ? {} : { value: it.value };
  return {
    granular: { ...(sp.granular ?? {}) },
    atomicList: Array.isArray(sp.atomicList) && sp.atomicList.length ? [...sp.atomicList] : undefined,
    setList: [...(sp.setList ?? [])],
    mapList,
  };
}

/** A canonical text of a spec, for comparison (order of sets and map lists ignored). */
export function showSpec(s: Spec): string {
  return canonicalJson({
    granular: s.granular,
    atomicList: s.atomicList ?? null,
    setList: [...s.setList].sort(),
    mapList: Object.fromEntries(Object.entries(s.mapList).sort(([a], [b]) => a.localeCompare(b))),
  });
}

/** The intent as a Widget body's spec. */
export function intentBody(i: Intent): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (i.granular) spec.granular = i.granular;
  if (i.atomicList) spec.atomicList = i.atomicList;
  if (i.setList) spec.setList = i.setList;
  if (i.mapList) spec.mapList = i.mapList;
  return { spec };
}
