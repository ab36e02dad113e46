// The sections of the three spec documents (their headings), for the conformance matrix
// and for checking that every case names a section that exists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Section {
  doc: 1 | 2 | 3;
  /** Heading text without the #s. */
  title: string;
  /** Enclosing headings, outermost first. */
  path: string[];
  depth: number;
}

export const SPEC_FILES: Record<1 | 2 | 3, string> = {
  1: 'doc1-resource-api.md',
  2: 'doc2-apply-cel-deprecation.md',
  3: 'doc3-auth-admission-health-nodeagent.md',
};

export function specDir(root: string): string {
  return process.env.ORCH_SPEC_DIR ?? join(root, '..', 'shared', 'spec');
}

export function readSections(root: string): Section[] {
  const out: Section[] = [];
  for (const doc of [1, 2, 3] as const) {
    const text = readFileSync(join(specDir(root), SPEC_FILES[doc]), 'utf8');
    const stack: string[] = [];
    for (const line of text.split('\n')) {
      const m = /^(#{2,4})\s+(.+?)\s*$/.exec(line);
      if (!m) continue;
      const depth = m[1]!.length;
      stack.length = depth - 2;
      out.push({ doc, title: m[2]!, path: [...stack], depth });
      stack.push(m[2]!);
    }
  }
  return out;
}
