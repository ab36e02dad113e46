// doc2 § Expression language inputs as rows (environment/*.yaml, validated by
// environment.schema.json when this file loads): the environment an expression is compiled in
// (the libraries it may call, the literals it may write) and how a compile error reads, where
// the text is silent (level BEYOND: Kubernetes 1.28). Each row is compiled in every place the
// API takes an expression that it names (a definition's rule, a policy's validation, a webhook's
// match condition): Kubernetes 1.28 compiles them all in one environment, with one compiler.
import { describe } from 'vitest';
import { conformance } from '../../harness/src/case.ts';
import { type CaseDef, rowCase } from '../../harness/src/spec.ts';
import type { Needs } from '../../harness/src/targets.ts';
import { type CompilePlace, type EnvironmentRow, loadEnvironmentRows, PLACES } from './environment-files.ts';
import { runEnvironmentRow } from './environment-runner.ts';

/** Policies are written only where the API is served and acted on (the ValidatingAdmissionPolicy gate). */
const POLICY_NEEDS: Needs = { featureGates: { ValidatingAdmissionPolicy: true } };

const IN: Record<CompilePlace, string> = {
  rule: 'as a custom-definition rule',
  policy: 'as a policy validation',
  'match-condition': 'as a webhook match condition',
};

function caseDef(row: EnvironmentRow, place: CompilePlace): CaseDef {
  return rowCase(row, 2, row.section, { id: `${row.id}/${place}`, title: `${row.title} (${IN[place]})` });
}

describe('cel: the expression environment and its compile errors', () => {
  for (const row of loadEnvironmentRows())
    for (const place of row.places ?? PLACES)
      conformance(caseDef(row, place), (t) => runEnvironmentRow(row, place, t), {
        timeout: 60_000,
        ...(place === 'policy' ? { needs: POLICY_NEEDS } : {}),
      });
});
