// The fault catalogue names its catchers rightly: every fault names at least one catcher, each
// catcher (and each alsoFails entry) is a case id of suites/MANIFEST.json, or an id prefix ending
// in '/' that matches at least one, in the fault's own area; fault names are unique. Static: no
// server is started (the fault meta test, faults.test.ts, checks that the catchers catch).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { matchesCase } from '../src/faults/catchers.ts';
import { FAULTS } from '../src/faults/index.ts';

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
      for (const c of [...f.catchers, ...(f.alsoFails ?? [])]) {
        const matched = IDS.filter((id) => matchesCase(c, id));
        expect(matched, `"${c}" names a case of the manifest (or is a prefix of some)`).not.toEqual([]);
        expect(
          matched.filter((id) => !id.startsWith(`${f.area}/`)),
          `"${c}" names cases of the fault's area only`,
        ).toEqual([]);
      }
    });
});
