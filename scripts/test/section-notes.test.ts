// Every section of doc1 and doc2 has cases, or a note in suites/SECTION-NOTES.yaml saying why
// not; a note never stands on a section that has cases or that the spec does not have.

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CaseDef } from '../../harness/src/spec.ts';
import { readSectionNotes } from '../../reports/matrix.ts';
import { readSections } from '../../reports/spec-sections.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('section coverage', () => {
  const sections = readSections(ROOT);
  const cases = JSON.parse(readFileSync(join(ROOT, 'suites', 'MANIFEST.json'), 'utf8')) as CaseDef[];
  const notes = readSectionNotes(ROOT);
  const key = (doc: number, title: string) => `doc${doc}\u0000${title}`;
  const withCases = new Set(cases.map((c) => key(c.doc, c.section)));

  it('every doc1 and doc2 section has cases or a note saying why not', () => {
    const bare = sections
      .filter((s) => s.doc !== 3 && !withCases.has(key(s.doc, s.title)) && !notes.has(key(s.doc, s.title)))
      .map((s) => `doc${s.doc} § ${s.title}`);
    expect(bare, 'sections with neither a case nor a note in suites/SECTION-NOTES.yaml').toEqual([]);
  });

  it('notes stand only on sections that exist and have no case', () => {
    const known = new Set(sections.map((s) => key(s.doc, s.title)));
    const wrong = [...notes.keys()]
      .filter((k) => !known.has(k) || withCases.has(k))
      .map(
        (k) =>
          k.replace('\u0000', ' § ') + (known.has(k) ? ' (has cases: drop the note)' : ' (no such section)'),
      );
    expect(wrong).toEqual([]);
  });
});
