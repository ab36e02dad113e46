// The fault catalogue names its catchers rightly: every fault names at least one catcher, each
// catcher is a case id of suites/MANIFEST.json, or an id prefix ending in '/' that matches at
// least one, in the fault's own area; fault names are unique. The blast radii
// (faults/blast-radius.json) are those of the catalogue's faults, each a list of case ids of
// the fault's area that are not its catchers. And every
// MUST case of doc1 and doc2 is some fault's catcher or is listed, with a reason, in
// faults/exceptions.ts (and only those). Static: no server is started (the fault meta test,
// faults.test.ts, checks that the catchers catch).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readRadius } from '../blast-radius.ts';
import { matchesCase } from '../catchers.ts';
import { EXCEPTIONS } from '../exceptions.ts';
import { FAULTS } from '../index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MANIFEST: { id: string; doc: number; level: string }[] = JSON.parse(
  readFileSync(join(ROOT, 'suites', 'MANIFEST.json'), 'utf8'),
);
const IDS = MANIFEST.map((c) => c.id);

describe('the fault catalogue', () => {
  it('has unique fault names', () => {
    const names = FAULTS.map((f) => f.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  for (const f of FAULTS)
    it(`fault "${f.name}" names catchers that are cases of suites/${f.area}`, () => {
      expect(f.catchers.length, 'at least one catcher').toBeGreaterThan(0);
      for (const c of f.catchers) {
        const matched = IDS.filter((id) => matchesCase(c, id));
        expect(matched, `"${c}" names a case of the manifest (or is a prefix of some)`).not.toEqual([]);
        expect(
          matched.filter((id) => !id.startsWith(`${f.area}/`)),
          `"${c}" names cases of the fault's area only`,
        ).toEqual([]);
      }
    });

  it('has a blast radius recorded for every fault and for no other, of cases of its area that are not its catchers', () => {
    const radius = readRadius();
    const names = FAULTS.map((f) => f.name);
    expect(
      names.filter((n) => !(n in radius)),
      'faults without a recorded radius: run `npm run faults:update` (ORCH_FAULTS=name for new ones) and commit faults/blast-radius.json',
    ).toEqual([]);
    expect(
      Object.keys(radius).filter((n) => !names.includes(n)),
      'radii of faults no longer in the catalogue',
    ).toEqual([]);
    for (const f of FAULTS)
      for (const id of radius[f.name] ?? []) {
        expect(IDS, `${f.name}: radius case "${id}" is a case of the manifest`).toContain(id);
        expect(id.startsWith(`${f.area}/`), `${f.name}: radius case "${id}" is in suites/${f.area}`).toBe(
          true,
        );
        expect(
          f.catchers.some((c) => matchesCase(c, id)),
          `${f.name}: radius case "${id}" is not a catcher`,
        ).toBe(false);
      }
  });

  const caught = (id: string) => FAULTS.some((f) => f.catchers.some((c) => matchesCase(c, id)));
  const must = MANIFEST.filter((c) => c.level === 'MUST' && (c.doc === 1 || c.doc === 2));

  it('names a catcher for every MUST case of doc1 and doc2, or lists it in faults/exceptions.ts with a reason', () => {
    const neither = must.filter((c) => !caught(c.id) && !EXCEPTIONS[c.id]).map((c) => c.id);
    expect(
      neither,
      'MUST cases with no fault and no exception: write a fault, or add the case and why to faults/exceptions.ts',
    ).toEqual([]);
  });

  it('lists as exceptions only MUST cases of doc1 and doc2 that no fault catches, each with a reason', () => {
    const mustIds = new Set(must.map((c) => c.id));
    for (const [id, reason] of Object.entries(EXCEPTIONS)) {
      expect(mustIds.has(id), `exception "${id}" is a MUST case of doc1 or doc2`).toBe(true);
      expect(caught(id), `exception "${id}" has a fault now: remove it from faults/exceptions.ts`).toBe(
        false,
      );
      expect(reason.length, `exception "${id}" says why`).toBeGreaterThan(20);
    }
    const covered = must.filter((c) => caught(c.id)).length;
    process.stdout.write(
      `MUST cases of doc1 and doc2: ${must.length}; a fault's catcher: ${covered}; exceptions: ${Object.keys(EXCEPTIONS).length} (not yet: ${Object.values(EXCEPTIONS).filter((r) => r.startsWith('not yet')).length})\n`,
    );
  });
});
