// The golden manifest of all conformance cases (id, title, spec place, level), collected
// from the suites' declarations. `--check` fails when the checked-in manifest drifts from
// the code, when a case names a section its document does not have, when a case id is
// declared twice, when a case lives outside the folder its id starts with (the runner's
// `--case` relies on it), or when a test under suites/ is not a conformance case (the
// counts of a run are cases only). scripts/test/manifest.test.ts runs the same checks.
//
//   npx tsx scripts/manifest.ts             regenerate suites/MANIFEST.json
//   npx tsx scripts/manifest.ts --out FILE  write the collected manifest elsewhere
//   npx tsx scripts/manifest.ts --check     compare, exit 1 on any problem
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaseDef } from '../harness/src/spec.ts';
import { cachedDocument } from '../harness/src/table-cache.ts';
import { readSections, SPEC_FILES, specDir } from '../reports/spec-sections.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST = join(ROOT, 'suites', 'MANIFEST.json');

export interface Collected {
  /** Every declared case, sorted by id (one entry per id). */
  cases: CaseDef[];
  /** Each conformance test vitest collected: its case id and file (relative to the repo). */
  tests: { id: string; file: string }[];
  /** Tests vitest collected under suites/ that declare no case (self-tests belong in harness/test). */
  others: { name: string; file: string }[];
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What a collection depends on: the suites, the harness and the reference they load, the lockfile. */
const COLLECTION_INPUTS = ['suites', 'harness/src', 'reference/src', 'package-lock.json'];

/** The collection's inputs: each file's path and text. */
function collectionInputs(): string[] {
  const out: string[] = [];
  for (const input of COLLECTION_INPUTS) {
    const at = join(ROOT, input);
    if (!existsSync(at)) continue;
    const files = input.includes('.')
      ? [at]
      : readdirSync(at, { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile())
          .map((d) => join(d.parentPath, d.name))
          .sort();
    for (const f of files) out.push(`${relative(ROOT, f)}\0${readFileSync(f, 'utf8')}`);
  }
  return out;
}

/**
 * Collects every declared case by letting vitest collect (not run) the suites: about 12 CPU
 * seconds, so the result is kept (harness/src/table-cache.ts) under a digest of everything the
 * collection reads (the fault meta test and the manifest test each need it in one `npm test`).
 */
export function collectCases(): Collected {
  return cachedDocument(collectionInputs(), collectFresh) as Collected;
}

function collectFresh(): Collected {
  const dir = mkdtempSync(join(tmpdir(), 'orch-manifest-'));
  const out = join(dir, 'cases.jsonl');
  const listFile = join(dir, 'list.json');
  writeFileSync(out, '');
  try {
    const env: NodeJS.ProcessEnv = {};
    // the suites' own environment only: an expectations file would rename skipped tests
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('ORCH_') && !k.startsWith('VITEST')) env[k] = v;
    Object.assign(env, { ORCH_MANIFEST_OUT: out, ORCH_ENDPOINT: 'http://127.0.0.1:1', ORCH_REPORT_DIR: '' });
    const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
    const r = spawnSync(
      process.execPath,
      [vitest, 'list', '--config', join(ROOT, 'suites', 'vitest.config.ts'), '--json', listFile],
      { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.status !== 0) throw new Error(`vitest list failed:\n${r.stdout}\n${r.stderr}`);
    const seen = new Map<string, CaseDef>();
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const e = JSON.parse(line) as CaseDef;
      seen.set(e.id, e);
    }
    const listed = JSON.parse(readFileSync(listFile, 'utf8')) as { name: string; file: string }[];
    const all = listed.map((t) => {
      const name = t.name.split(' > ').at(-1)!;
      const i = name.indexOf(': ');
      return {
        id: i > 0 ? name.slice(0, i) : name,
        name: t.name,
        file: relative(ROOT, t.file).split(sep).join('/'),
      };
    });
    const tests = all.filter((t) => seen.has(t.id)).map(({ id, file }) => ({ id, file }));
    const others = all.filter((t) => !seen.has(t.id)).map(({ name, file }) => ({ name, file }));
    return { cases: [...seen.values()].sort(byId), tests, others };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function manifestText(cases: CaseDef[]): string {
  return `${JSON.stringify(cases, null, 2)}\n`;
}

export function readManifest(path = MANIFEST): CaseDef[] {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as CaseDef[]) : [];
}

/** What differs between the checked-in manifest and the code, one line per case. */
export function diffManifest(checkedIn: CaseDef[], collected: CaseDef[]): string[] {
  const before = new Map(checkedIn.map((c) => [c.id, c]));
  const now = new Map(collected.map((c) => [c.id, c]));
  const out: string[] = [];
  for (const [id, c] of now) {
    const b = before.get(id);
    if (!b) out.push(`+ ${id}: declared in suites/ but not in MANIFEST.json`);
    else {
      const fields = (['title', 'doc', 'section', 'place', 'level', 'specRules'] as const).filter(
        (k) => JSON.stringify(b[k]) !== JSON.stringify(c[k]),
      );
      if (fields.length)
        out.push(
          `~ ${id}: ${fields.map((k) => `${k} ${JSON.stringify(b[k])} -> ${JSON.stringify(c[k])}`).join(', ')}`,
        );
    }
  }
  for (const id of before.keys())
    if (!now.has(id)) out.push(`- ${id}: in MANIFEST.json but no longer declared`);
  const order = checkedIn.map((c) => c.id);
  if (out.length === 0 && order.join('\n') !== [...order].sort().join('\n'))
    out.push('MANIFEST.json is not sorted by id');
  return out;
}

/** diffManifest against the file, plus its layout (as `manifestText` writes it). */
export function manifestDrift(collected: CaseDef[], path = MANIFEST): string[] {
  if (!existsSync(path)) return [`${path} does not exist`];
  const raw = readFileSync(path, 'utf8');
  const checkedIn = JSON.parse(raw) as CaseDef[];
  const drift = diffManifest(checkedIn, collected);
  if (drift.length === 0 && raw !== manifestText(checkedIn))
    drift.push('MANIFEST.json is not laid out as `npm run manifest` writes it');
  return drift;
}

/** Every case must name a heading (##, ### or ####) of its document. */
export function checkSections(cases: CaseDef[], root = ROOT): string[] {
  const sections = readSections(root);
  const problems: string[] = [];
  for (const c of cases) {
    if (!sections.some((s) => s.doc === c.doc && s.title === c.section))
      problems.push(
        `${c.id}: doc${c.doc} (${join(specDir(root), SPEC_FILES[c.doc] ?? '?')}) has no section heading "${c.section}"`,
      );
  }
  return problems;
}

/** suites/ holds conformance cases only: every test there is declared with `conformance()`. */
export function checkOnlyCases(others: Collected['others']): string[] {
  return others.map(
    (t) =>
      `${t.file}: "${t.name}" is not a conformance case (declare it with conformance(), or move a self-test to harness/test)`,
  );
}

/** An id is declared once, and in a file under suites/<the id's first segment>/. */
export function checkPlacement(tests: Collected['tests']): string[] {
  const problems: string[] = [];
  const files = new Map<string, string[]>();
  for (const t of tests) files.set(t.id, [...(files.get(t.id) ?? []), t.file]);
  for (const [id, fs] of files) {
    if (fs.length > 1) problems.push(`${id}: declared ${fs.length} times (${fs.join(', ')})`);
    const area = id.split('/')[0];
    for (const f of new Set(fs))
      if (!f.startsWith(`suites/${area}/`)) problems.push(`${id}: declared in ${f}, outside suites/${area}/`);
  }
  return problems;
}

function main(): number {
  const { cases, tests, others } = collectCases();
  const problems = [...checkSections(cases), ...checkPlacement(tests), ...checkOnlyCases(others)];
  if (process.argv.includes('--check')) {
    const drift = manifestDrift(cases);
    if (drift.length) {
      process.stderr.write(
        `suites/MANIFEST.json is out of date (${drift.length} difference${drift.length === 1 ? '' : 's'}): run \`npm run manifest\` and commit the result\n`,
      );
      for (const d of drift) process.stderr.write(`  ${d}\n`);
      problems.push('drift');
    } else process.stdout.write(`suites/MANIFEST.json matches the ${cases.length} declared cases\n`);
  } else {
    const k = process.argv.indexOf('--out');
    const to = k > 0 && process.argv[k + 1] ? resolve(process.argv[k + 1]!) : MANIFEST;
    writeFileSync(to, manifestText(cases));
    process.stdout.write(`${cases.length} cases written to ${to}\n`);
  }
  for (const p of problems.filter((x) => x !== 'drift')) process.stderr.write(`${p}\n`);
  return problems.length ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main());
