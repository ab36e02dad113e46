// doc3 § Webhook configuration objects (and the rules of § Webhook contract and § Limits about
// those objects) as rows (rows/*.yaml, validated by rows.schema.json when
// this file loads): ValidatingWebhookConfiguration and MutatingWebhookConfiguration written with
// one webhook field changed, each row one case at the level of the table row it checks. A row
// whose refusal the text leaves unshaped also gets a `/kubernetes-shape` case at level BEYOND
// that checks Kubernetes' 422 Invalid with a cause per violation (field path, reason, message).
import { describe } from 'vitest';
import { conformance } from '../../harness/src/case.ts';
import { type CaseDef, rowCase } from '../../harness/src/spec.ts';
import { type LoadedRow, loadRows } from './row-files.ts';
import { runRow } from './runner.ts';

const SECTION = 'Webhook configuration objects';

function caseDef(row: LoadedRow): CaseDef {
  return rowCase(row, 3, SECTION);
}

/** The BEYOND twin of a refused row checked leniently at its own level. */
function twinDef(row: LoadedRow): CaseDef | undefined {
  if (row.level === 'BEYOND' || !row.refused) return undefined;
  return {
    ...caseDef(row),
    id: `${row.id}/kubernetes-shape`,
    title: `${row.title}; refused as Kubernetes refuses it: 422 Invalid, a cause per violation with its field path and message`,
    level: 'BEYOND',
  };
}

describe('admission: webhook configuration objects', () => {
  for (const row of loadRows()) {
    conformance(caseDef(row), (t) => runRow(row, t, row.level === 'BEYOND'), { timeout: 60_000 });
    const twin = twinDef(row);
    if (twin) conformance(twin, (t) => runRow(row, t, true), { timeout: 60_000 });
  }
});
