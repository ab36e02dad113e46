// The golden manifest of all conformance cases (id, title, spec place, level), collected
// from the suites' declarations. `--check` fails when the checked-in manifest drifts from
// the code, or when a case names a section the spec does not have.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSections } from '../reports/spec-sections.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST = join(ROOT, 'suites', 'MANIFEST.json');

export interface ManifestEntry {
  id: string;
  title: string;
  doc: 1 | 2 | 3;
  section: string;
  place: string;
  level: string;
}

/** Collects every declared case by letting vitest collect (not run) the suites. */
export function collectCases(): ManifestEntry[] {
  const dir = mkdtempSync(join(tmpdir(), 'orch-manifest-'));
  const out = join(dir, 'cases.jsonl');
  writeFileSync(out, '');
  try {
    const r = spawnSync('npx', ['vitest', 'list', '--config', join(ROOT, 'suites', 'vitest.config.ts'), '--json', join(dir, 'list.json')], {
      cwd: ROOT,
      env: { ...process.env, ORCH_MANIFEST_OUT: out, ORCH_ENDPOINT: process.env.ORCH_ENDPOINT ?? 'http://127.0.0.1:1', ORCH_REPORT_DIR: '' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`vitest list failed:\n${r.stdout}\n${r.stderr}`);
    const seen = new Map<string, ManifestEntry>();
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const e = JSON.parse(line) as ManifestEntry;
      seen.set(e.id, e);
    }
    return [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function checkSections(cases: ManifestEntry[]): string[] {
  const sections = readSections(ROOT);
  const problems: string[] = [];
  for (const c of cases) {
    if (!sections.some((s) => s.doc === c.doc && s.title === c.section))
      problems.push(`${c.id}: doc${c.doc} has no section "${c.section}"`);
  }
  return problems;
}

function main(): number {
  const cases = collectCases();
  const problems = checkSections(cases);
  const text = `${JSON.stringify(cases, null, 2)}\n`;
  if (process.argv.includes('--check')) {
    const current = existsSync(MANIFEST) ? readFileSync(MANIFEST, 'utf8') : '';
    if (current !== text) {
      process.stderr.write('suites/MANIFEST.json is out of date: run `npm run manifest` and commit the result\n');
      return 1;
    }
  } else {
    writeFileSync(MANIFEST, text);
    process.stdout.write(`${cases.length} cases written to ${MANIFEST}\n`);
  }
  for (const p of problems) process.stderr.write(`${p}\n`);
  return problems.length ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main());
