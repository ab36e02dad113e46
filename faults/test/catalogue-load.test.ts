// The catalogue's load joins each fault's data (faults/<area>/faults.yaml) with its hooks (the
// folder's modules, HOOKS) by name, and refuses, naming the file to fix, a fault without hooks,
// hooks without a fault, a fault in two places, and data the schema refuses. Each case loads a
// catalogue of its own from a temporary folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const BREAKS = 'doc1 § Somewhere: a rule, broken for the test';

/** A catalogue folder: for each area, its faults.yaml text (absent when undefined) and its modules. */
function catalogue(areas: Record<string, { yaml?: string; modules?: Record<string, string[]> }>): string {
  const root = mkdtempSync(join(tmpdir(), 'orch-catalogue-'));
  dirs.push(root);
  for (const [area, a] of Object.entries(areas)) {
    mkdirSync(join(root, area));
    if (a.yaml !== undefined) writeFileSync(join(root, area, 'faults.yaml'), a.yaml);
    for (const [file, names] of Object.entries(a.modules ?? {}))
      writeFileSync(
        join(root, area, file),
        `export const HOOKS = [${names.map((n) => `{ name: '${n}', response: (_r, res) => ({ ...res, status: 418 }) }`).join(', ')}];\n`,
      );
  }
  return root;
}

const entry = (name: string, catchers = ['crud/create/returns-object']) =>
  `- name: ${name}\n  breaks: "${BREAKS}"\n  catchers: [${catchers.join(', ')}]\n`;

describe('the fault catalogue load', () => {
  it('joins each fault with its hooks by name, its area the folder', async () => {
    const root = catalogue({
      crud: { yaml: entry('a') + entry('b'), modules: { 'one.ts': ['b'], 'two.ts': ['a'] } },
      watch: { yaml: entry('c', ['watch/x']), modules: { 'hooks.ts': ['c'] } },
    });
    const faults = await loadCatalogue(root);
    expect(faults.map((f) => [f.name, f.area, f.breaks, f.catchers])).toEqual([
      ['a', 'crud', BREAKS, ['crud/create/returns-object']],
      ['b', 'crud', BREAKS, ['crud/create/returns-object']],
      ['c', 'watch', BREAKS, ['watch/x']],
    ]);
    expect(typeof faults[0]!.response).toBe('function');
  });

  it('refuses a fault without hooks, naming its file', async () => {
    const root = catalogue({ crud: { yaml: entry('a') + entry('b'), modules: { 'one.ts': ['a'] } } });
    await expect(loadCatalogue(root)).rejects.toThrow(/crud\/faults\.yaml: fault "b" has no hooks/);
  });

  it('refuses hooks without a fault, naming the module', async () => {
    const root = catalogue({ crud: { yaml: entry('a'), modules: { 'one.ts': ['a', 'stray'] } } });
    await expect(loadCatalogue(root)).rejects.toThrow(/crud\/one\.ts: hooks "stray" belong to no fault/);
  });

  it('refuses hooks of one name in two modules, and a fault in two areas', async () => {
    const twice = catalogue({ crud: { yaml: entry('a'), modules: { 'one.ts': ['a'], 'two.ts': ['a'] } } });
    await expect(loadCatalogue(twice)).rejects.toThrow(/two\.ts: hooks "a" are in .*one\.ts too/);
    const twoAreas = catalogue({
      crud: { yaml: entry('a'), modules: { 'one.ts': ['a'] } },
      watch: { yaml: entry('a'), modules: { 'one.ts': ['a'] } },
    });
    await expect(loadCatalogue(twoAreas)).rejects.toThrow(
      /watch\/faults\.yaml: fault "a" is in the catalogue twice/,
    );
  });

  it('refuses data the schema refuses (a fault without catchers, an unknown field)', async () => {
    const noCatchers = catalogue({
      crud: { yaml: `- name: a\n  breaks: "${BREAKS}"\n  catchers: []\n`, modules: { 'one.ts': ['a'] } },
    });
    await expect(loadCatalogue(noCatchers)).rejects.toThrow(
      /faults\.yaml does not match faults\.schema\.json/,
    );
    const unknown = catalogue({
      crud: { yaml: `${entry('a')}  alsoFails: [x]\n`, modules: { 'one.ts': ['a'] } },
    });
    await expect(loadCatalogue(unknown)).rejects.toThrow(
      /must NOT have additional properties {"additionalProperty":"alsoFails"}/,
    );
  });

  it('refuses hooks in a folder without faults.yaml', async () => {
    const root = catalogue({ crud: { modules: { 'one.ts': ['a'] } } });
    await expect(loadCatalogue(root)).rejects.toThrow(/crud\/ has hooks but no faults\.yaml/);
  });
});
