// doc3 § Node agent configuration, table-driven: every default and every constraint row of the
// table (rows/*.yaml) as a case. Each row's file goes to the validator (accept: exit 0; refuse:
// exit non-zero, naming the row's field paths) or to the defaulter (the field has its default).
// The commands run side by side (commands.ts bounds how many at once). No API server is used.
import { describe } from 'vitest';
import { parse } from 'yaml';
import { ConformanceError, deepEqual, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { type CaseDef, describePlace, rowCase } from '../../harness/src/spec.ts';
import { at } from './bases.ts';
import {
  type CommandResult,
  defaulterCommand,
  describeRun,
  namesPath,
  outputOf,
  runOnText,
  validatorCommand,
} from './commands.ts';
import { goDurationNs } from './go-duration.ts';
import { loadRows, type Row, rowText } from './row-files.ts';

const SECTION = 'Node agent configuration';

function fail(def: CaseDef, why: string, expected: string, actual: string, r?: CommandResult): never {
  const file = r ? `\n  file:\n${r.file.replace(/^/gm, '    ')}` : '';
  throw new ConformanceError(`${describePlace(def)}: ${why}`, expected, `${actual}${file}`);
}

async function accept(def: CaseDef, row: Row): Promise<void> {
  const r = await runOnText(validatorCommand(), rowText(row), row.name);
  if (r.code !== 0) fail(def, row.title, 'the validator accepts the file (exit code 0)', describeRun(r), r);
}

async function refuse(def: CaseDef, row: Row): Promise<void> {
  const r = await runOnText(validatorCommand(), rowText(row), row.name);
  if (r.code === 0 || r.code === null)
    fail(def, row.title, 'the validator refuses the file (a non-zero exit code)', describeRun(r), r);
  const out = outputOf(r);
  for (const item of row.paths ?? []) {
    const alternatives = Array.isArray(item) ? item : [item];
    if (!alternatives.some((p) => namesPath(out, p)))
      fail(
        def,
        row.title,
        `the validator's output names the field path ${alternatives.map((p) => JSON.stringify(p)).join(' or ')}`,
        describeRun(r),
        r,
      );
  }
}

async function defaults(def: CaseDef, row: Row): Promise<void> {
  const r = await runOnText(defaulterCommand(), rowText(row), row.name);
  if (r.code !== 0)
    fail(def, row.title, 'the defaulter prints the defaulted file (exit code 0)', describeRun(r), r);
  let doc: unknown;
  try {
    doc = parse(r.stdout);
  } catch (e) {
    fail(
      def,
      row.title,
      'the defaulter prints YAML or JSON',
      `${(e as Error).message}; ${describeRun(r)}`,
      r,
    );
  }
  const v = at(doc, row.at!);
  const where = `${row.at} in the defaulter's output`;
  if (row.empty) {
    const empty =
      v === undefined ||
      v === null ||
      v === '' ||
      (Array.isArray(v) && v.length === 0) ||
      (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
    if (!empty) fail(def, row.title, `${where}: absent or empty`, show(v), r);
    return;
  }
  if (row.duration) {
    const got = goDurationNs(v);
    if (got === undefined || got !== goDurationNs(row.value))
      fail(def, row.title, `${where}: the duration ${show(row.value)}`, show(v), r);
    return;
  }
  if (!deepEqual(v, row.value)) fail(def, row.title, `${where}: ${show(row.value)}`, show(v), r);
}

describe.concurrent('node agent configuration table', () => {
  for (const row of loadRows()) {
    const def = rowCase(row, 3, SECTION, { id: `node-agent-config/${row.id}` });
    conformance(def, () =>
      row.expect === 'accept'
        ? accept(def, row)
        : row.expect === 'refuse'
          ? refuse(def, row)
          : defaults(def, row),
    );
  }
});
