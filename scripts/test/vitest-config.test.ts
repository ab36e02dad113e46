// The unit test files share their worker's modules (vitest.config.ts, project `reference`), so a
// file that replaces a module with vi.mock would not see its replacement where another file
// loaded the module first: every such file must be in the project of fresh modules.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FRESH_MODULES, UNIT_TESTS } from '../../vitest.config.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The test files under the folders of UNIT_TESTS (each pattern is `<folder>/**\/*.test.ts`). */
function unitTestFiles(): string[] {
  return UNIT_TESTS.flatMap((pattern) => {
    const folder = pattern.replace(/\/\*\*\/\*\.test\.ts$/, '');
    return (readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `${folder}/${f}`);
  });
}

describe('vitest projects', () => {
  it('every unit test file that replaces a module (vi.mock, vi.doMock, vi.resetModules) gets modules of its own', () => {
    const files = unitTestFiles();
    expect(files.length, 'unit test files found').toBeGreaterThan(100);
    const replacing = files.filter((f) =>
      /\bvi\.(mock|doMock|resetModules)\(/.test(readFileSync(join(ROOT, f), 'utf8')),
    );
    expect(replacing, 'files that replace a module').not.toEqual([]);
    expect(
      replacing.filter((f) => !FRESH_MODULES.includes(f)),
      "files that replace a module but share their worker's modules: add them to FRESH_MODULES in vitest.config.ts",
    ).toEqual([]);
  });
});
