// doc1 § Resource version semantics: the get, watch and list tables, one case per cell, from
// the YAML files in cases/ (validated by cases.schema.json when a file loads); each table is a
// test file of its own (cases/<table>.test.ts), so the tables run side by side.
import { describe } from 'vitest';
import { type CaseOptions, conformance } from '../../harness/src/case.ts';
import { type CaseDef, rowCase } from '../../harness/src/spec.ts';
import { type CaseFile, loadCaseFile } from './table-cases.ts';
import { runGet, runList, runWatch } from './table-runner.ts';

const SECTION = 'Resource version semantics';

function def(c: CaseFile['cases'][number]): CaseDef {
  return rowCase(c, 1, SECTION);
}

/** A row at an expired version runs against a target whose history it can outlive. */
function options(c: CaseFile['cases'][number]): CaseOptions {
  return c.request.rv === 'expired' ? { needs: { expiredVersions: true } } : {};
}

/** The cases of one table (`cases/<table>.yaml`). */
export function tableSuite(table: CaseFile['table']): void {
  const file = loadCaseFile(`${table}.yaml`);
  const setup = file.setup ?? [];
  describe(`resource-versions: doc1 ${file.table} table`, () => {
    if (file.table === 'get')
      for (const c of file.cases) conformance(def(c), (t) => runGet(c, setup, t), options(c));
    else if (file.table === 'watch')
      for (const c of file.cases) conformance(def(c), (t) => runWatch(c, setup, t), options(c));
    else for (const c of file.cases) conformance(def(c), (t) => runList(c, setup, t), options(c));
  });
}
