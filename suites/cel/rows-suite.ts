// doc2 § Expression language inputs and § Limits as rows (rows/*.yaml, validated by
// rows.schema.json when a file loads): validation rules of custom definitions, each row one
// case at the level of the spec place it checks. Each table file is a test file of its own
// (rows/<name>.test.ts), so the files run side by side and a run can take one of them. The rows of a group share one definition. A row
// whose refusals the text leaves unshaped also gets a `/kubernetes-shape` case at level BEYOND
// that checks Kubernetes' 422 Invalid with a cause per violation (field path, reason, message).
import { describe } from 'vitest';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import { type CaseDef, rowCase } from '../../harness/src/spec.ts';
import { useDefinition } from './definition.ts';
import { type Group, loadGroups, type Row } from './row-files.ts';
import { groupSchema, hasWrites, runDefinition, runWrites } from './runner.ts';

function caseDef(row: Row): CaseDef {
  return rowCase(row, 2, row.section);
}

/** The BEYOND twin of a row whose refusals are checked leniently at its own level. */
function twinDef(row: Row): CaseDef | undefined {
  if (row.level === 'BEYOND') return undefined;
  if (!row.definition && !row.writes?.some((w) => w.refused)) return undefined;
  return {
    ...caseDef(row),
    id: `${row.id}/kubernetes-shape`,
    title: `${row.title}; refused as Kubernetes refuses it: 422 Invalid, a cause per violation with its field path and message`,
    level: 'BEYOND',
  };
}

function groupCases(g: Group, ns: { name: string }): void {
  const def = hasWrites(g) ? useDefinition(g.group, () => groupSchema(g)) : undefined;
  for (const row of g.rows) {
    const run = (strict: boolean) =>
      row.definition
        ? (t: CaseContext) => runDefinition(row, !!g.root, t, strict)
        : (t: CaseContext) => runWrites(row, t, { ns: ns.name, def: def!, root: !!g.root, strict });
    conformance(caseDef(row), run(row.level === 'BEYOND'), { timeout: 60_000 });
    const twin = twinDef(row);
    if (twin) conformance(twin, run(true), { timeout: 60_000 });
  }
}

/** The cases of one table file (`rows/<name>.yaml`). */
export function rowsSuite(name: string): void {
  const groups = loadGroups().filter((g) => g.file === `rows/${name}.yaml`);
  if (!groups.length) throw new Error(`suites/cel/rows/${name}.yaml holds no group`);
  describe(`cel: validation rules (rows/${name}.yaml)`, () => {
    const ns = useNamespace('cel');
    for (const g of groups) describe(`${g.file} ${g.group}`, () => groupCases(g, ns));
  });
}
