// Loads the scenario files (scenarios/*.yaml), validates them against scenarios.schema.json and
// a few rules a schema cannot say (paths parse, twins have a place), so a malformed scenario
// fails loudly at load time and a new scenario is a new case without new code.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, requireTestFiles, uniqueId } from '../../harness/src/yaml-tables.ts';
import { canonicalPath, fromFieldsV1, lenientPath, toFieldsV1 } from './fieldsets.ts';
import type { ExpectedConflict, ExpectedEntry, KindName } from './support.ts';

export interface State {
  absent?: true;
  fields?: Record<string, unknown>;
  managedFields?: Record<string, ExpectedEntry | null>;
  otherManagers?: 'none' | 'any';
  noManagedFields?: true;
}

export interface StepExpect extends State {
  status?: number;
  reason?: string;
  rejected?: true;
  conflicts?: ExpectedConflict[];
  response?: State;
}

export interface Step {
  say?: string;
  manager?: string;
  userAgent?: string;
  apply?: Record<string, unknown>;
  create?: Record<string, unknown>;
  put?: Record<string, unknown>;
  merge?: Record<string, unknown>;
  strategic?: Record<string, unknown>;
  jsonPatch?: Record<string, unknown>[];
  schema?: { topo: 'atomic' | 'set' };
  force?: boolean;
  dryRun?: boolean;
  anonymous?: boolean;
  encoding?: 'yaml' | 'json';
  expect?: StepExpect;
}

export interface SpecPlaceData {
  section: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
}

export interface Scenario {
  id: string;
  title: string;
  doc?: 1 | 2;
  section: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  skip?: string;
  kubernetes?: SpecPlaceData;
  kind: KindName;
  topology?: 'atomic' | 'set';
  steps: Step[];
  expect?: State;
  /** The file it came from (for messages). */
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const DIR = join(HERE, 'scenarios');

/** Every path a scenario names, with where. */
function pathsOf(sc: Scenario): { path: string; inManaged: boolean }[] {
  const out: { path: string; inManaged: boolean }[] = [];
  const state = (s: State | undefined) => {
    if (!s) return;
    for (const p of Object.keys(s.fields ?? {})) out.push({ path: p, inManaged: false });
    for (const e of Object.values(s.managedFields ?? {}))
      for (const p of [...(e?.fields ?? []), ...(e?.includes ?? []), ...(e?.excludes ?? [])])
        out.push({ path: p, inManaged: true });
  };
  for (const st of sc.steps) {
    state(st.expect);
    state(st.expect?.response);
    for (const c of st.expect?.conflicts ?? []) out.push({ path: c.field, inManaged: true });
  }
  state(sc.expect);
  return out;
}

/** What the scenario expects beyond the text (Kubernetes' codes, causes and key formats). */
export function kubernetesShape(sc: Scenario): { statuses: boolean; conflicts: boolean; itemKeys: boolean } {
  return {
    statuses: sc.steps.some((s) => s.expect?.status !== undefined || s.expect?.reason !== undefined),
    conflicts: sc.steps.some((s) => (s.expect?.conflicts?.length ?? 0) > 0),
    itemKeys: pathsOf(sc).some((p) => p.inManaged && lenientPath(p.path) !== canonicalPath(p.path)),
  };
}

/** The place of the `/kubernetes-shape` twin, or undefined when the scenario needs none. */
export function twinPlace(sc: Scenario): SpecPlaceData | undefined {
  if (sc.level === 'BEYOND') return undefined;
  const k = kubernetesShape(sc);
  if (!k.statuses && !k.conflicts && !k.itemKeys) return undefined;
  if (sc.kubernetes) return sc.kubernetes;
  if (k.conflicts)
    return {
      section: 'Errors',
      place:
        'A conflict is a special status error returned by apply when it changes a field another manager owns. Its HTTP status code: not shown',
      specRules: ['doc2/errors/conflict-special-status-error-returned-apply'],
    };
  const errors = sc.steps.some((s) => (s.expect?.status ?? 0) >= 400);
  if (errors)
    throw new Error(
      `${sc.file}: ${sc.id} expects an error code: say where the text leaves it open (kubernetes: {section, place})`,
    );
  if (k.itemKeys)
    return {
      section: 'managedFields entry',
      place: 'Key formats inside `fieldsV1` for list and set items: not shown',
    };
  return { section: 'Endpoints', place: 'Success status codes of an apply: not shown' };
}

function validateSemantics(sc: Scenario): void {
  const where = `${sc.file}: ${sc.id}`;
  for (const { path } of pathsOf(sc)) {
    // each path parses and survives the round trip through fieldsV1
    const c = canonicalPath(path);
    const back = [...fromFieldsV1(toFieldsV1([c]))];
    if (back.length !== 1 || back[0] !== c)
      throw new Error(`${where}: path ${path} does not round-trip through fieldsV1 (${back})`);
  }
  if (sc.topology && sc.kind !== 'Widget') throw new Error(`${where}: topology needs kind Widget`);
  for (const [i, st] of sc.steps.entries()) {
    if (st.schema && !sc.topology)
      throw new Error(`${where}: step ${i + 1} changes the schema of a scenario without topology`);
    if (
      (st.apply || st.create) &&
      st.manager === undefined &&
      !st.userAgent &&
      !st.expect?.rejected &&
      !(st.expect?.status ?? 0)
    )
      throw new Error(`${where}: step ${i + 1} writes without a manager and expects success`);
  }
  twinPlace(sc);
}

export function loadScenarios(): Scenario[] {
  requireTestFiles(DIR);
  const out: Scenario[] = [];
  const ids = new Set<string>();
  for (const f of loadTableFiles<{ scenarios: Omit<Scenario, 'file'>[] }>(
    DIR,
    join(HERE, 'scenarios.schema.json'),
  )) {
    for (const raw of f.doc.scenarios) {
      const sc: Scenario = { ...raw, file: f.name };
      uniqueId(ids, sc.id, f.path, 'scenario id');
      validateSemantics(sc);
      out.push(sc);
    }
  }
  return out;
}
