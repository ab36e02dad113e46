// doc2 § Limits as rows (estimates/*.yaml, validated by estimates.schema.json when this file
// loads): the write-time cost estimate of custom-definition rules, one definition a row,
// accepted or refused. A row below BEYOND checks the verdict; its `/kubernetes-shape` twin at
// BEYOND checks Kubernetes' answer word for word (422 Invalid, exactly the row's causes).
import { describe } from 'vitest';
import { conformance } from '../../harness/src/case.ts';
import { type CaseDef, rowCase } from '../../harness/src/spec.ts';
import { type EstimateRow, loadEstimateRows } from './estimate-files.ts';
import { runEstimate } from './estimate-runner.ts';

const rows = loadEstimateRows();

function caseDef(row: EstimateRow): CaseDef {
  return rowCase(row, 2, 'Limits');
}

function twinDef(row: EstimateRow): CaseDef | undefined {
  if (row.level === 'BEYOND' || row.twin === false) return undefined;
  return {
    ...caseDef(row),
    id: `${row.id}/kubernetes-shape`,
    title: `${row.title}; answered as Kubernetes answers it: ${row.accepted ? '201' : '422 Invalid with exactly these causes'}`,
    level: 'BEYOND',
  };
}

describe('cel: cost estimates of validation rules', () => {
  for (const row of rows) {
    conformance(caseDef(row), (t) => runEstimate(row, t, row.level === 'BEYOND'), { timeout: 60_000 });
    const twin = twinDef(row);
    if (twin) conformance(twin, (t) => runEstimate(row, t, true), { timeout: 60_000 });
  }
});
