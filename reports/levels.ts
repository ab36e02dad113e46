// Verdicts per document and level: "doc1 MUST: 248/248 passed". A document is conformant at a
// level when every case of that level the run selected passed (an expected failure is a
// known departure, not a pass). Levels the run's profile left out are not listed.
import type { Profile } from '../harness/src/profile.ts';
import { profileLevels } from '../harness/src/profile.ts';
import type { Level } from '../harness/src/spec.ts';
import { esc } from './html.ts';
import type { CaseResult } from './outcomes.ts';

export interface LevelVerdict {
  doc: 1 | 2 | 3;
  level: Level;
  /** Cases of this document and level the run selected. */
  selected: number;
  passed: number;
  failed: number;
  expectedFailures: number;
  skipped: number;
  /** Every selected case passed. */
  conformant: boolean;
}

export function levelVerdicts(
  results: CaseResult[],
  cases: { id: string; doc: 1 | 2 | 3; level: Level }[],
  profile: Profile,
): LevelVerdict[] {
  const byId = new Map(results.map((r) => [r.id, r.outcome]));
  const out: LevelVerdict[] = [];
  for (const doc of [1, 2, 3] as const)
    for (const level of profileLevels(profile)) {
      const outcomes = cases
        .filter((c) => c.doc === doc && c.level === level)
        .map((c) => byId.get(c.id))
        .filter((o) => o !== undefined && o !== 'not-selected');
      if (outcomes.length === 0) continue;
      const n = (...os: string[]) => outcomes.filter((o) => os.includes(o!)).length;
      const passed = n('passed');
      out.push({
        doc,
        level,
        selected: outcomes.length,
        passed,
        failed: n('failed', 'unexpected-pass'),
        expectedFailures: n('expected-fail'),
        skipped: n('skipped'),
        conformant: passed === outcomes.length,
      });
    }
  return out;
}

/** One verdict in words: "doc1 MUST: 248/248 passed". */
export function levelVerdictText(v: LevelVerdict): string {
  const extra = [
    v.failed ? `${v.failed} failed` : '',
    v.expectedFailures ? `${v.expectedFailures} expected to fail` : '',
    v.skipped ? `${v.skipped} skipped` : '',
  ].filter(Boolean);
  const level = v.level === 'BEYOND' ? 'beyond the text' : v.level;
  return `doc${v.doc} ${level}: ${v.passed}/${v.selected} passed${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

/** The verdicts as a list for the matrix page. */
export function levelVerdictsHtml(verdicts: LevelVerdict[], profileText: string): string {
  const items = verdicts
    .map(
      (v) =>
        `<li class="${v.conformant ? 'conformant' : 'not-conformant'}" data-doc="${v.doc}" data-level="${v.level}">${esc(levelVerdictText(v))}</li>`,
    )
    .join('');
  return `<section id="levels"><h2>Verdicts by level</h2><p>Profile: <b id="profile">${esc(profileText)}</b></p><ul>${items}</ul></section>`;
}
