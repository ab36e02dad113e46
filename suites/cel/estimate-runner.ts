// Runs an estimate row: the definition holding its schema is created, and it is accepted, or
// refused with nothing stored. `strict` adds what only Kubernetes shows: 201, or 422 Invalid
// whose causes are exactly the row's (field, reason and whole message each).
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import {
  CRD_PATH,
  deleteDefinition,
  definitionsUnavailable,
  newDefinition,
  postDefinition,
} from './definition.ts';
import type { Cause, EstimateRow } from './estimate-files.ts';

/** Where a one-version definition's schema is reported (Kubernetes holds it as the definition's one schema). */
const SCHEMA_FIELD = 'spec.validation.openAPIV3Schema';

const line = (c: { field?: string; reason?: string; message?: string }) =>
  `{field: ${show(c.field)}, reason: ${show(c.reason)}, message: ${show(c.message)}}`;

/** Every cause of the answer is one of the row's and every one of the row's is there. */
function checkCauses(r: Response, want: Cause[], why: string): void {
  const got = (r.statusObj?.details?.causes ?? []).map(line).sort();
  const expected = want.map((c) => line({ ...c, field: SCHEMA_FIELD + c.field })).sort();
  const missing = expected.filter((x) => !got.includes(x));
  const extra = got.filter((x) => !expected.includes(x));
  check(
    missing.length === 0 && extra.length === 0,
    `exactly these causes (status.details.causes): ${expected.join(', ')}`,
    `${r.describe()} — missing: ${missing.join(', ') || 'none'}; not expected: ${extra.join(', ') || 'none'}`,
    why,
  );
}

export async function runEstimate(row: EstimateRow, t: CaseContext, strict: boolean): Promise<void> {
  const unavailable = await definitionsUnavailable(t.client);
  if (unavailable) t.skip(unavailable);
  const d = newDefinition('est');
  const label = `create a definition whose schema is ${show(row.schema)}, expected ${row.accepted ? 'accepted' : 'refused'}`;
  await t.step(label, async () => {
    const r = await postDefinition(t.client, d, row.schema);
    try {
      if (row.accepted) {
        check(
          r.status >= 200 && r.status < 300,
          'a 2xx answer (the definition accepted)',
          r.describe(),
          label,
        );
        if (strict) checkStatus(r, 201, undefined, label);
        return;
      }
      check(r.status >= 400 && r.status < 500, 'a 4xx refusal of the definition', r.describe(), label);
      if (strict) {
        checkStatus(r, 422, 'Invalid', label);
        checkCauses(r, row.refused!, label);
      }
      const after = await t.client.get(`${CRD_PATH}/${d.name}`);
      check(
        after.status === 404,
        'no definition stored (404)',
        after.describe(),
        `${label}: a refused definition is not created`,
      );
    } finally {
      if (r.status >= 200 && r.status < 300) await deleteDefinition(t.client, d);
    }
  });
}
