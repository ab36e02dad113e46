// Loads the YAML case files that mirror doc1's resource-version tables and validates them
// against cases.schema.json, so a malformed row fails loudly at load time and a new row is a
// new case without new code.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFile } from '../../harness/src/yaml-tables.ts';

export type Write = { create: string } | { update: string } | { delete: string } | { mark: MarkName };
export type MarkName = 'past' | 'current';
export type SymbolicRv = 'unset' | '0' | MarkName | 'future' | 'expired';

interface CommonCase {
  id: string;
  title: string;
  section?: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  setup?: Write[];
}

export interface GetCase extends CommonCase {
  request: { name: string; rv: SymbolicRv };
  expect: {
    status?: number | number[];
    object?: 'current' | 'notOlderThanRequested' | 'anyVersion';
    tooLargeResourceVersion?: true;
  };
}

export interface WatchCase extends CommonCase {
  request: { rv: SymbolicRv };
  after?: Write[];
  expect: {
    initial?: 'addedCurrent' | 'addedAnyVersion' | 'changesAfterRequested';
    error?: { code: number; reason?: string; eventType?: string };
  };
}

export interface ListCase extends CommonCase {
  request: { rv: SymbolicRv; rvMatch?: string; limit?: number; continue?: 'first' };
  between?: Write[];
  expect: {
    status?: number | number[];
    reason?: string;
    items?: 'current' | 'atRequested' | 'notOlderThanRequested' | 'anyVersion' | 'firstChunkSnapshot';
    listRv?: 'requested' | 'firstChunk' | 'notOlderThanRequested' | 'notOlderThanCurrent' | 'any';
    tooLargeResourceVersion?: true;
  };
}

export type CaseFile =
  | { table: 'get'; setup?: Write[]; cases: GetCase[] }
  | { table: 'watch'; setup?: Write[]; cases: WatchCase[] }
  | { table: 'list'; setup?: Write[]; cases: ListCase[] };

const HERE = dirname(fileURLToPath(import.meta.url));

/** Reads and validates one case file; throws with every schema error and its path. */
export function loadCaseFile(file: string): CaseFile {
  const path = join(HERE, 'cases', file);
  const doc = loadTableFile<CaseFile>(path, join(HERE, 'cases.schema.json')).doc;
  const f = doc as CaseFile;
  for (const c of f.cases) {
    if (!c.id.startsWith(`resource-versions/${f.table}/`))
      throw new Error(`${path}: case ${c.id} is not under resource-versions/${f.table}/`);
    const writes = c.setup ?? f.setup ?? [];
    const marks = new Set(writes.flatMap((w) => ('mark' in w ? [w.mark] : [])));
    const rv = c.request.rv;
    if ((rv === 'past' || rv === 'current') && !marks.has(rv))
      throw new Error(`${path}: case ${c.id} asks for rv ${rv} but its setup marks no "${rv}"`);
  }
  return f;
}
