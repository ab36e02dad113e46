// The Allure side of a report: results written by allure-vitest are completed with what the
// run knows from the expectations file, then `allure generate` turns them into the HTML app.
//  - an expected failure (test.fails whose body failed) says so in its status message;
//  - an unexpected pass is `failed` (allure-vitest calls it "broken") with a message that
//    says what to do;
//  - a case an expectation skips (test.skip) is absent from allure-vitest's output: it is
//    added as `skipped` with the expectation's note, so the report lists every selected case.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CaseDef, DOCS } from '../harness/src/spec.ts';
import type { CaseResult } from './outcomes.ts';

interface AllureLabel {
  name: string;
  value: string;
}

interface AllureResult {
  uuid: string;
  name: string;
  fullName?: string;
  historyId?: string;
  testCaseId?: string;
  status?: string;
  statusDetails?: { message?: string; trace?: string; known?: boolean };
  stage?: string;
  labels: AllureLabel[];
  description?: string;
  start?: number;
  stop?: number;
  [k: string]: unknown;
}

const SEVERITY: Record<string, string> = {
  MUST: 'critical',
  SHOULD: 'normal',
  MAY: 'minor',
  BEYOND: 'trivial',
};
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

function resultFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('-result.json')) : [];
}

/** Completes allure-vitest's results with the run's outcomes (see the file comment). */
export function completeAllureResults(
  dir: string,
  results: CaseResult[],
  cases: CaseDef[],
  runLabels: { endpoint?: string; dialect: string; implementation?: string; profile?: string },
): { updated: number; added: number } {
  mkdirSync(dir, { recursive: true });
  const byId = new Map(results.map((r) => [r.id, r]));
  const seen = new Set<string>();
  let updated = 0;
  for (const f of resultFiles(dir)) {
    const path = join(dir, f);
    const r = JSON.parse(readFileSync(path, 'utf8')) as AllureResult;
    const id = r.labels.find((l) => l.name === 'caseId')?.value;
    if (!id) continue;
    seen.add(id);
    const outcome = byId.get(id);
    if (outcome?.outcome === 'expected-fail') {
      r.statusDetails = {
        ...r.statusDetails,
        known: true,
        message: `Expected failure: the case failed, as the expectations file says (${outcome.note ?? ''})`,
      };
    } else if (outcome?.outcome === 'unexpected-pass') {
      r.status = 'failed';
      r.statusDetails = {
        message: `Unexpected pass: the expectations file says this case fails (${outcome.note ?? ''}), but it passed. Remove the expectation if the implementation now conforms.`,
      };
    } else if (outcome?.outcome === 'skipped' && outcome.note && !r.statusDetails?.message) {
      r.statusDetails = { ...r.statusDetails, message: `Skipped: ${outcome.note}` };
    } else continue;
    writeFileSync(path, JSON.stringify(r));
    updated++;
  }
  const declared = new Map(cases.map((c) => [c.id, c]));
  let added = 0;
  for (const r of results) {
    if (r.outcome !== 'skipped' || seen.has(r.id)) continue;
    const c = declared.get(r.id);
    if (!c) continue;
    const now = Date.now();
    const fullName = `orch-conformance:${r.file}#${r.id}: ${c.title}`;
    const res: AllureResult = {
      uuid: randomUUID(),
      name: `${r.id}: ${c.title}`,
      fullName,
      historyId: md5(fullName),
      testCaseId: md5(fullName),
      status: 'skipped',
      statusDetails: { message: r.note ? `Skipped by the expectations file: ${r.note}` : 'Skipped' },
      stage: 'finished',
      steps: [],
      attachments: [],
      parameters: [],
      links: [],
      labels: [
        { name: 'framework', value: 'vitest' },
        { name: 'epic', value: `doc${c.doc} ${DOCS[c.doc]}` },
        { name: 'feature', value: c.section },
        { name: 'story', value: c.place },
        { name: 'severity', value: SEVERITY[c.level] ?? 'normal' },
        { name: 'tag', value: c.level },
        { name: 'caseId', value: c.id },
        ...(r.note ? [{ name: 'tag', value: 'expected-skip' }] : []),
      ],
      description: `${c.title}\n\nSpec: doc${c.doc} § ${c.section} — "${c.place}" [${c.level}]${r.note ? `\n\nExpectation: skip — ${r.note}` : ''}`,
      start: now,
      stop: now,
    };
    writeFileSync(join(dir, `${res.uuid}-result.json`), JSON.stringify(res));
    added++;
  }
  const env = [
    `endpoint=${runLabels.endpoint ?? ''}`,
    `dialect=${runLabels.dialect}`,
    ...(runLabels.profile ? [`profile=${runLabels.profile}`] : []),
    ...(runLabels.implementation ? [`implementation=${runLabels.implementation}`] : []),
  ];
  writeFileSync(join(dir, 'environment.properties'), `${env.join('\n')}\n`);
  return { updated, added };
}

/** Copies every file of several allure-results directories into one (names are uuids). */
export function mergeAllureResults(dirs: string[], into: string): number {
  mkdirSync(into, { recursive: true });
  let n = 0;
  for (const d of dirs) {
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d)) {
      const to = join(into, f);
      if (existsSync(to)) continue; // environment.properties etc.: the first shard's
      copyFileSync(join(d, f), to);
      n++;
    }
  }
  return n;
}

/** The allure CLI script (the package exports no package.json: look in the node_modules dirs). */
function allureBin(): string {
  const require = createRequire(import.meta.url);
  for (const dir of require.resolve.paths('allure') ?? []) {
    const pkgPath = join(dir, 'allure', 'package.json');
    if (!existsSync(pkgPath)) continue;
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: string | Record<string, string> };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin.allure ?? Object.values(pkg.bin)[0]!);
    return join(dirname(pkgPath), bin);
  }
  throw new Error('the allure package is not installed (npm install)');
}

/**
 * Allure 3's HTML app loads Google's tag manager (analytics) whenever the report is opened;
 * a conformance report should make no request beyond its own files, so the snippet goes.
 */
export function stripAnalytics(htmlDir: string): number {
  let n = 0;
  if (!existsSync(htmlDir)) return 0;
  for (const f of readdirSync(htmlDir).filter((x) => x.endsWith('.html'))) {
    const path = join(htmlDir, f);
    const html = readFileSync(path, 'utf8');
    const out = html.replace(
      /\s*<script async src="https:\/\/www\.googletagmanager\.com\/[^"]*"><\/script>\s*<script>[\s\S]*?gtag\('config'[\s\S]*?<\/script>/g,
      '',
    );
    if (out !== html) {
      writeFileSync(path, out);
      n++;
    }
  }
  return n;
}

/** Allure configuration: the tree groups cases by document (epic), section (feature) and place (story). */
const ALLURE_CONFIG = fileURLToPath(new URL('allurerc.json', import.meta.url));

/**
 * `allure generate` (Allure 3) from a results directory into `out`; resolves to its exit code.
 * With `historyPath` Allure reads the earlier runs from that file and appends this one: the
 * report shows each case's history and the trend.
 */
export async function generateAllure(
  resultsDir: string,
  out: string,
  name: string,
  cwd: string,
  historyPath?: string,
): Promise<number> {
  const bin = allureBin();
  let config = ALLURE_CONFIG;
  if (historyPath) {
    config = join(cwd, '.allurerc-history.json');
    const base = JSON.parse(readFileSync(ALLURE_CONFIG, 'utf8')) as Record<string, unknown>;
    writeFileSync(config, JSON.stringify({ ...base, historyPath }));
  }
  const code = await new Promise<number>((res) => {
    const child = spawn(
      process.execPath,
      [bin, 'generate', resultsDir, '-o', out, '--name', name, '--config', config],
      { cwd, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('error', () => res(1));
    child.on('exit', (c) => res(c ?? 1));
  });
  if (config !== ALLURE_CONFIG) rmSync(config, { force: true });
  if (code === 0) stripAnalytics(out);
  return code;
}
