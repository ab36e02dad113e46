// The harness against faulty endpoints: for each fault mode (harness/src/faulty-endpoint.ts)
// it starts a misbehaving endpoint on 127.0.0.1, runs real suite areas against it through
// the CLI (`scripts/run.ts --endpoint URL --request-timeout S`), and checks from the report
// that every case ended (failed, or skipped with a reason; none hit its case timeout, none
// missing), that the run finished within a bound derived from the case count and the
// timeouts, and that every failure message says what happened (names the endpoint or the
// request, not a bare "fetch failed", "other side closed", "This operation was aborted" or a
// TypeError from reading a broken answer).
//
//   npm run reliability:faulty -- [--areas crud,watch,chunking] [--modes stalled,reset,...]
//       [--request-timeout 2] [--slow-byte-ms 300] [--report out/reliability/faulty]
//
// Exit code 0 when every mode met all three; 1 otherwise; 2 on a usage error.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FAULT_MODES, type FaultMode, startFaultyEndpoint } from '../../harness/src/faulty-endpoint.ts';
import { startOwned } from '../../lifeline/owned.ts';
import { caseIdOf, readCaseNotes, readCases, readVitestJson } from '../../reports/outcomes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const DEFAULT_AREAS = ['crud', 'watch', 'chunking'];
/** The longest a case waits for one watch event by default (harness/src/watch.ts, suites/watch/support.ts). */
const WATCH_WAIT_S = 10;
/** Starting the CLI, vitest and its workers, and writing the report. */
const STARTUP_S = 60;

export interface ModeOptions {
  areas: string[];
  requestTimeoutS: number;
  slowByteMs: number;
  reportDir: string;
}

export interface Unclear {
  id: string;
  why: string;
  message: string;
}

export interface ModeResult {
  mode: FaultMode;
  cases: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Skipped with no reason given. */
  skippedSilently: string[];
  /** Hit vitest's case or hook timeout: the harness did not end the case itself. */
  hung: string[];
  /** Collected but with no result in the report. */
  missing: string[];
  maxCaseMs: number;
  maxCaseId: string;
  wallS: number;
  boundS: number;
  /** The CLI was killed at twice the bound. */
  killed: boolean;
  unclear: Unclear[];
  ok: boolean;
}

/** The bound on a run's wall time: start-up, then every case at its longest wait, one after another. */
export function wallBoundS(cases: number, requestTimeoutS: number): number {
  return STARTUP_S + cases * (requestTimeoutS + WATCH_WAIT_S);
}

const RAW_WORDS =
  /fetch failed|other side closed|This operation was aborted|socket hang up|read ECONNRESET|Response does not match the HTTP|UND_ERR_/;
const TYPE_ERROR =
  /Cannot read propert|is not a function|is not iterable|of undefined|of null|^(Error: )?undefined$/m;

/** Why a failure message does not say what happened (undefined when it does). */
export function unclearWhy(message: string, origin: string): string | undefined {
  const first = message.split('\n    at ')[0] ?? '';
  if (/Test timed out in|Hook timed out in/.test(first))
    return 'hit the case timeout (the harness did not end it)';
  if (!first.trim() || /^(Error: )?(undefined|null)?$/.test(first.trim())) return 'empty message';
  const names = first.includes(origin.replace(/^https?:\/\//, '')) || /the endpoint/.test(first);
  if (RAW_WORDS.test(first) && !names) return 'network words without the endpoint or what it did';
  if (TYPE_ERROR.test(first) && !names) return 'a TypeError from reading a broken answer';
  const request = /\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/|watch stream|watch event|-> \d{3}/.test(
    first,
  );
  // a conformance verdict on what the endpoint answered (harness/src/assert.ts)
  const verdict = /Expected:[\s\S]*Actual:/.test(first);
  if (!names && !request && !verdict)
    return 'names neither the endpoint, a request and its answer, nor what was expected';
  return undefined;
}

async function runCli(
  args: string[],
  killAfterMs: number,
): Promise<{ code: number | null; killed: boolean; out: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ORCH_') && !k.startsWith('VITEST') && k !== 'NODE_OPTIONS') env[k] = v;
  // the CLI ends with this process however it ends, and its vitest child with it (lifeline/owned.ts)
  const child = startOwned(process.execPath, [join(ROOT, 'scripts', 'bin.mjs'), 'run', ...args], {
    cwd: ROOT,
    env,
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    void child.stop('SIGKILL');
  }, killAfterMs);
  const e = await child.exited;
  clearTimeout(timer);
  return { code: e.code, killed, out: child.output() };
}

/** One mode: a faulty endpoint, the areas run against it, the report judged. */
export async function runMode(mode: FaultMode, o: ModeOptions): Promise<ModeResult> {
  const ep = await startFaultyEndpoint(mode, { slowByteMs: o.slowByteMs });
  const dir = join(o.reportDir, mode);
  mkdirSync(dir, { recursive: true });
  // the bound is known once the cases are collected; until then allow a generous one
  const provisional = wallBoundS(200, o.requestTimeoutS);
  const started = performance.now();
  let run: Awaited<ReturnType<typeof runCli>>;
  try {
    run = await runCli(
      [
        '--endpoint',
        ep.url,
        '--token',
        'x',
        '--area',
        o.areas.join(','),
        '--request-timeout',
        String(o.requestTimeoutS),
        '--no-html',
        '--report',
        dir,
      ],
      2 * provisional * 1000,
    );
  } finally {
    await ep.close();
  }
  const wallS = (performance.now() - started) / 1000;
  writeFileSync(join(dir, 'cli-output.txt'), run.out);
  return judge(mode, dir, ep.url, o.requestTimeoutS, wallS, run.killed);
}

/** Reads a report directory and judges one mode's run. */
export function judge(
  mode: FaultMode,
  dir: string,
  origin: string,
  requestTimeoutS: number,
  wallS: number,
  killed: boolean,
): ModeResult {
  const collected = readCases(join(dir, 'cases.jsonl')).map((c) => c.id);
  const results = readVitestJson(join(dir, 'results.json'));
  const notes = readCaseNotes(join(dir, 'case-notes.json'));
  const seen = new Set<string>();
  const r: ModeResult = {
    mode,
    cases: collected.length,
    passed: 0,
    failed: 0,
    skipped: 0,
    skippedSilently: [],
    hung: [],
    missing: [],
    maxCaseMs: 0,
    maxCaseId: '',
    wallS,
    boundS: wallBoundS(collected.length, requestTimeoutS),
    killed,
    unclear: [],
    ok: false,
  };
  for (const file of results?.testResults ?? []) {
    for (const a of file.assertionResults as {
      title: string;
      status: string;
      duration?: number | null;
      failureMessages: string[];
    }[]) {
      const id = caseIdOf(a.title);
      seen.add(id);
      const ms = a.duration ?? 0;
      if (ms > r.maxCaseMs) {
        r.maxCaseMs = ms;
        r.maxCaseId = id;
      }
      if (a.status === 'passed') r.passed++;
      else if (a.status === 'failed') {
        r.failed++;
        const message = a.failureMessages[0] ?? '';
        if (/Test timed out in|Hook timed out in/.test(message)) r.hung.push(id);
        const why = unclearWhy(message, origin);
        if (why)
          r.unclear.push({
            id,
            why,
            message: (message.split('\n    at ')[0] ?? '').replace(/\s+/g, ' ').slice(0, 400),
          });
      } else {
        r.skipped++;
        if (!notes.skips[id]) r.skippedSilently.push(id);
      }
    }
  }
  r.missing = collected.filter((id) => !seen.has(id));
  r.ok =
    r.cases > 0 &&
    !killed &&
    r.hung.length === 0 &&
    r.missing.length === 0 &&
    r.skippedSilently.length === 0 &&
    r.unclear.length === 0 &&
    wallS <= r.boundS;
  return r;
}

export function table(results: ModeResult[]): string {
  const rows = [
    ['mode', 'cases', 'passed', 'failed', 'skipped', 'hung', 'max case', 'wall', 'bound', 'unclear', 'ok'],
    ...results.map((r) => [
      r.mode,
      String(r.cases),
      String(r.passed),
      String(r.failed),
      `${r.skipped}${r.skippedSilently.length ? ` (${r.skippedSilently.length} no reason)` : ''}`,
      `${r.hung.length + r.missing.length}${r.killed ? ' (killed)' : ''}`,
      `${(r.maxCaseMs / 1000).toFixed(1)} s`,
      `${r.wallS.toFixed(1)} s`,
      `${r.boundS} s`,
      String(r.unclear.length),
      r.ok ? 'yes' : 'NO',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) =>
    row
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  for (const r of results)
    for (const u of r.unclear.slice(0, 3))
      lines.push(`  ${r.mode}: unclear (${u.why}): ${u.id}: ${u.message}`);
  for (const r of results) if (r.hung.length) lines.push(`  ${r.mode}: hung: ${r.hung.join(', ')}`);
  for (const r of results)
    if (r.missing.length) lines.push(`  ${r.mode}: no result: ${r.missing.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        areas: { type: 'string' },
        modes: { type: 'string' },
        'request-timeout': { type: 'string' },
        'slow-byte-ms': { type: 'string' },
        report: { type: 'string' },
      },
      strict: true,
    }) as { values: Record<string, string | undefined> });
  } catch (e) {
    process.stderr.write(`faulty-endpoints: ${(e as Error).message}\n`);
    return 2;
  }
  const modes = (values.modes ?? FAULT_MODES.join(',')).split(',').filter(Boolean) as FaultMode[];
  for (const m of modes)
    if (!FAULT_MODES.includes(m)) {
      process.stderr.write(`faulty-endpoints: --modes: no mode "${m}" (${FAULT_MODES.join(', ')})\n`);
      return 2;
    }
  const requestTimeoutS = Number(values['request-timeout'] ?? 2);
  const slowByteMs = Number(values['slow-byte-ms'] ?? 300);
  if (!(requestTimeoutS > 0) || !(slowByteMs > 0)) {
    process.stderr.write('faulty-endpoints: --request-timeout and --slow-byte-ms take positive numbers\n');
    return 2;
  }
  const o: ModeOptions = {
    areas: (values.areas ?? DEFAULT_AREAS.join(',')).split(',').filter(Boolean),
    requestTimeoutS,
    slowByteMs,
    reportDir: resolve(values.report ?? join(ROOT, 'out', 'reliability', 'faulty')),
  };
  const results: ModeResult[] = [];
  for (const m of modes) {
    process.stdout.write(`${m}: running ${o.areas.join(',')} ...\n`);
    const r = await runMode(m, o);
    process.stdout.write(
      `${m}: ${r.cases} cases, ${r.failed} failed, ${r.skipped} skipped, ${r.hung.length} hung, ${r.unclear.length} unclear, ${r.wallS.toFixed(1)} s\n`,
    );
    results.push(r);
  }
  mkdirSync(o.reportDir, { recursive: true });
  writeFileSync(
    join(o.reportDir, 'faulty-endpoints.json'),
    `${JSON.stringify({ options: o, results }, null, 2)}\n`,
  );
  process.stdout.write(`\n${table(results)}\nreports: ${o.reportDir}\n`);
  return results.every((r) => r.ok) ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (c) => process.exit(c),
    (e) => {
      process.stderr.write(`${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
}
