// The docs name files that exist: every backticked path to a source, data or doc file (or a
// folder, ending in '/') in the README and docs/ is a file of the repository, named from its
// root or by its end (`kinds/crd/` inside reference/src/registry/). What a run writes (under
// `out/`, a report folder's parts) is not a file of the repository and is left out. A file
// renamed or removed without its doc fails here with the doc and the path.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = ['README.md', 'docs/ARCHITECTURE.md', 'docs/BENCHMARK.md', 'docs/RELIABILITY.md'];
/** What runs write: named in the docs, never in the repository. */
const WRITTEN = [/^out\//, /^allure-results\/$/, /^\.orch\//];

const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const folders = new Set(
  tracked.flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, a) => `${a.slice(0, i + 1).join('/')}/`),
  ),
);

/** The backticked tokens of `text` that look like repository paths. */
function pathsIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([A-Za-z0-9_.\-/]+)`/g)) {
    const t = m[1]!;
    if (!t.includes('/') || t.startsWith('/') || t.startsWith('.') || t.includes('//')) continue;
    if (!/\.(ts|mjs|md|json|yaml|sh)$|\/$/.test(t) || WRITTEN.some((w) => w.test(t))) continue;
    out.add(t);
  }
  return [...out].sort();
}

const exists = (p: string) =>
  p.endsWith('/')
    ? folders.has(p) || [...folders].some((f) => f.endsWith(`/${p}`))
    : tracked.includes(p) || tracked.some((f) => f.endsWith(`/${p}`));

describe('the docs name files that exist', () => {
  for (const doc of DOCS)
    it(doc, () => {
      const paths = pathsIn(readFileSync(join(ROOT, doc), 'utf8'));
      expect(paths.length, `${doc} names some files`).toBeGreaterThan(0);
      expect(
        paths.filter((p) => !exists(p)),
        `paths in ${doc} that are no file or folder of the repository`,
      ).toEqual([]);
    });
});
