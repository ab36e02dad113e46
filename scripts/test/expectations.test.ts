// Every expectations file (expectations/*.yaml) is valid: it loads with the harness's reader
// (expect is fail, flaky or skip; a note on every entry), every note says something, and
// every case id or `prefix/*` glob names at least one case of suites/MANIFEST.json, so an
// entry cannot outlive the case it was written for.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { expectationFor, loadExpectations } from '../../harness/src/expectations.ts';
import { MANIFEST, readManifest } from '../manifest.ts';
import { ROOT } from './helpers.ts';

const DIR = join(ROOT, 'expectations');
const FILES = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f));

describe('expectations files', () => {
  it('there is at least one, for Kubernetes 1.28', () => {
    expect(FILES).toContain('kubernetes-1.28.yaml');
  });

  const ids = readManifest().map((c) => c.id);

  for (const f of FILES) {
    describe(f, () => {
      const path = join(DIR, f);

      it('loads with harness/src/expectations.ts and names its implementation', () => {
        const e = loadExpectations(path);
        expect(e.implementation, 'implementation: <name>').toBeTruthy();
        expect(Object.keys(e.cases).length).toBeGreaterThan(0);
        const raw = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
        expect(Object.keys(raw).sort(), 'top-level keys').toEqual(['cases', 'implementation']);
      });

      it('every entry has expect and a note that says something, and no other key', () => {
        const raw = parse(readFileSync(path, 'utf8')) as { cases: Record<string, Record<string, unknown>> };
        for (const [id, e] of Object.entries(raw.cases)) {
          expect(Object.keys(e).sort(), id).toEqual(['expect', 'note']);
          expect(String(e.note).trim().length, `${id}: note`).toBeGreaterThan(10);
        }
      });

      it(`every id or glob names a case of suites/MANIFEST.json`, () => {
        expect(ids.length, `${MANIFEST} lists no case`).toBeGreaterThan(0);
        const e = loadExpectations(path);
        const stale = Object.keys(e.cases).filter((k) =>
          k.endsWith('*') ? !ids.some((id) => id.startsWith(k.slice(0, -1))) : !ids.includes(k),
        );
        expect(stale, 'entries that match no case (renamed or removed? regenerate the manifest?)').toEqual(
          [],
        );
        // a glob must be used on purpose: each entry decides at least one case
        for (const k of Object.keys(e.cases))
          expect(
            ids.some((id) => expectationFor(e, id) === e.cases[k]),
            `${k} is shadowed by other entries for every case it names`,
          ).toBe(true);
      });
    });
  }
});
