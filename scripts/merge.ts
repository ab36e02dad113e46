// `orch-conformance merge DIR... --report OUT`: merges the report directories of shards
// (`run --shard i/n`) into one report, as if the run had not been split: JUnit testsuites,
// vitest's JSON (counts summed, file results concatenated), the Allure results (then
// `allure generate`), the cases list, the skip reasons, the matrix page and summary.json. Its exit code is the
// merged run's verdict, so a CI job can gate on it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mergeAllureResults } from '../reports/allure.ts';
import { finishReport, REPORT_FILES, type ShardInfo, type Summary, summaryText } from '../reports/finish.ts';
import { mergeJunit } from '../reports/junit.ts';
import {
  mergeVitestJson,
  readCaseNotes,
  readCases,
  readVitestJson,
  type VitestJson,
} from '../reports/outcomes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const MERGE_HELP = `Usage: orch-conformance merge DIR1 DIR2 ... [--report OUT] [--no-html]

Merges the report directories written by \`orch-conformance run --shard I/N --report DIR\`
into one report directory (default out/report): junit.xml, results.json, allure-results/
and the Allure HTML report (html/), cases.jsonl, matrix.html/json and summary.json.
The shards must come from one run: the same N, each shard once, the same selection,
dialect and expectations. Exit code 0 when the merged run passes (see run --help), 1 when
it fails, 2 when the inputs do not fit together.

  --report OUT   where the merged report goes (default out/report)
  --allow-partial  merge even when some shards of N are missing
  --no-html      skip \`allure generate\`
  -h, --help     this text

Example (CI, two jobs then one):
  orch-conformance run --shard 1/2 --report out/shard-1
  orch-conformance run --shard 2/2 --report out/shard-2
  orch-conformance merge out/shard-1 out/shard-2 --report out/report
`;

class InputError extends Error {}

function readSummary(dir: string): Summary {
  const p = join(dir, 'summary.json');
  if (!existsSync(p))
    throw new InputError(`${dir}: no summary.json (not a report directory of orch-conformance run)`);
  return JSON.parse(readFileSync(p, 'utf8')) as Summary;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Checks that the shards belong together; returns their infos in shard order. */
function checkShards(dirs: string[], summaries: Summary[], allowPartial: boolean): ShardInfo[] {
  const first = summaries[0]!;
  const infos: ShardInfo[] = [];
  const seen = new Map<number, string>();
  let total: number | undefined;
  summaries.forEach((s, k) => {
    const dir = dirs[k]!;
    const shard = s.selection.shard;
    if (!same(s.selection.areas, first.selection.areas) || !same(s.selection.cases, first.selection.cases))
      throw new InputError(`${dir}: selected other areas or cases than ${dirs[0]}`);
    if ((s.selection.level ?? 'all') !== (first.selection.level ?? 'all'))
      throw new InputError(
        `${dir}: profile ${s.selection.level ?? 'all'}, ${dirs[0]}: ${first.selection.level ?? 'all'}`,
      );
    if (s.dialect !== first.dialect)
      throw new InputError(`${dir}: dialect ${s.dialect}, ${dirs[0]}: ${first.dialect}`);
    if (!same(s.expectations?.cases ?? {}, first.expectations?.cases ?? {}))
      throw new InputError(`${dir}: other expectations than ${dirs[0]}`);
    if (shard) {
      const [i, n] = shard.split('/').map(Number) as [number, number];
      if (total !== undefined && n !== total)
        throw new InputError(`${dir}: shard ${shard}, but others are of ${total}`);
      total = n;
      if (seen.has(i)) throw new InputError(`${dir}: shard ${shard} given twice (also ${seen.get(i)})`);
      seen.set(i, dir);
    } else if (dirs.length > 1) throw new InputError(`${dir}: not a shard (run without --shard)`);
    const code = s.vitestExitCodes?.[0] ?? null;
    infos.push({ dir, shard, seconds: s.seconds, vitestExitCode: code });
  });
  if (total !== undefined && !allowPartial) {
    const missing = Array.from({ length: total }, (_, k) => k + 1).filter((i) => !seen.has(i));
    if (missing.length)
      throw new InputError(`shards ${missing.map((i) => `${i}/${total}`).join(', ')} missing`);
  }
  return infos.sort((a, b) => Number(a.shard?.split('/')[0] ?? 0) - Number(b.shard?.split('/')[0] ?? 0));
}

export async function merge(argv: string[]): Promise<number> {
  const t0 = performance.now();
  let values: { report?: string; 'no-html'?: boolean; 'allow-partial'?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        report: { type: 'string' },
        'no-html': { type: 'boolean' },
        'allow-partial': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`orch-conformance merge: ${(e as Error).message}\n\n${MERGE_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(MERGE_HELP);
    return 0;
  }
  const dirs = positionals.map((d) => resolve(d));
  const out = resolve(values.report ?? join(ROOT, 'out', 'report'));
  let shards: ShardInfo[];
  let parts: VitestJson[];
  let summaries: Summary[];
  try {
    if (dirs.length === 0) throw new InputError('no report directory given');
    if (dirs.includes(out)) throw new InputError(`--report ${out} is one of the inputs`);
    for (const d of dirs) if (!existsSync(d)) throw new InputError(`${d}: no such directory`);
    summaries = dirs.map(readSummary);
    shards = checkShards(dirs, summaries, values['allow-partial'] === true);
    parts = dirs.map((d) => {
      const r = readVitestJson(join(d, 'results.json'));
      if (!r) throw new InputError(`${d}: no results.json (the shard's suites did not run)`);
      return r;
    });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    process.stderr.write(`orch-conformance merge: ${e.message}\n`);
    return 2;
  }

  mkdirSync(out, { recursive: true });
  for (const f of REPORT_FILES) rmSync(join(out, f), { recursive: true, force: true });
  writeFileSync(join(out, 'results.json'), JSON.stringify(mergeVitestJson(parts)));
  const junits = dirs.map((d) => join(d, 'junit.xml')).filter((p) => existsSync(p));
  if (junits.length)
    writeFileSync(join(out, 'junit.xml'), mergeJunit(junits.map((p) => readFileSync(p, 'utf8'))));
  const cases = new Map(dirs.flatMap((d) => readCases(join(d, 'cases.jsonl'))).map((c) => [c.id, c]));
  writeFileSync(join(out, 'cases.jsonl'), [...cases.values()].map((c) => `${JSON.stringify(c)}\n`).join(''));
  const notes = dirs.map((d) => readCaseNotes(join(d, 'case-notes.json')));
  writeFileSync(
    join(out, 'case-notes.json'),
    `${JSON.stringify(
      {
        skips: Object.assign({}, ...notes.map((n) => n.skips)),
        retries: Object.assign({}, ...notes.map((n) => n.retries)),
      },
      null,
      2,
    )}\n`,
  );
  mergeAllureResults(
    dirs.map((d) => join(d, 'allure-results')),
    join(out, 'allure-results'),
  );

  const first = summaries[0]!;
  const endpoints = [...new Set(summaries.map((s) => s.endpoint).filter((e): e is string => !!e))];
  const summary = await finishReport(
    ROOT,
    out,
    {
      endpoint: endpoints.join(', ') || undefined,
      endpoints: [...new Set(summaries.flatMap((s) => s.endpoints ?? (s.endpoint ? [s.endpoint] : [])))],
      dialect: first.dialect,
      expectations: first.expectations,
      selection: { ...first.selection, shard: null },
      // shards run side by side: the merged run took as long as its longest shard
      seconds: Math.max(...shards.map((s) => s.seconds)),
      vitestExitCodes: shards.map((s) => s.vitestExitCode),
      startedAt: summaries.map((s) => s.startedAt).sort()[0]!,
      shards,
    },
    { completeAllure: false, html: values['no-html'] !== true },
  );
  process.stdout.write(
    `merged ${dirs.length} report director${dirs.length === 1 ? 'y' : 'ies'} into ${out}\n`,
  );
  process.stdout.write(summaryText(summary, out, (performance.now() - t0) / 1000));
  return summary.ok ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  merge(process.argv.slice(2)).then(
    (c) => process.exit(c),
    (e) => {
      process.stderr.write(`${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
}
