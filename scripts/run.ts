// `orch-conformance run`: runs the conformance suites against an endpoint (or, with none
// given, against an embedded reference server it starts), then writes the reports.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { expectationFor, loadExpectations } from '../harness/src/expectations.ts';
import { buildMatrix, matrixHtml, outcomesFrom } from '../reports/matrix.ts';
import type { ManifestEntry } from './manifest.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const RUN_HELP = `orch-conformance run [options]

Runs the conformance suites against an implementation of the orch API.

Target (flags win over ORCH_* environment variables, which win over a kubeconfig):
  --endpoint URL        API server URL (none: start the embedded reference server)
  --token TOKEN         bearer token            --token-file FILE
  --cert FILE --key FILE client certificate and key (PEM)
  --ca FILE             CA bundle (PEM)         --insecure   skip TLS verification
  --kubeconfig FILE     read URL and credentials (token, certs, exec plugins)
  --context NAME        kubeconfig context
  --dialect orch|kubernetes   word mapping (kubernetes: orch.io -> k8s.io, ...)
Selection:
  --area a,b            only these areas (folders under suites/)
  --case ID             only cases whose id starts with ID
  --shard i/n           run shard i of n
Properties:
  --runs N              fast-check runs per property     --seed S   fast-check seed
Results:
  --expect FILE         expectations (fail / flaky / skip per case, with notes)
  --report DIR          where reports go (default out/report)
`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      endpoint: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      ca: { type: 'string' },
      insecure: { type: 'boolean' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      dialect: { type: 'string' },
      area: { type: 'string' },
      case: { type: 'string' },
      shard: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      expect: { type: 'string' },
      report: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  const reportDir = resolve(values.report ?? join(ROOT, 'out', 'report'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  let stop: (() => Promise<void>) | undefined;
  if (values.endpoint || values.kubeconfig || process.env.ORCH_ENDPOINT || process.env.ORCH_KUBECONFIG) {
    if (values.endpoint) env.ORCH_ENDPOINT = values.endpoint;
    if (values.token) env.ORCH_TOKEN = values.token;
    if (values['token-file']) env.ORCH_TOKEN = readFileSync(values['token-file'], 'utf8').trim();
    if (values.cert) env.ORCH_CLIENT_CERT = resolve(values.cert);
    if (values.key) env.ORCH_CLIENT_KEY = resolve(values.key);
    if (values.ca) env.ORCH_CA = resolve(values.ca);
    if (values.insecure) env.ORCH_INSECURE = '1';
    if (values.kubeconfig) env.ORCH_KUBECONFIG = resolve(values.kubeconfig);
    if (values.context) env.ORCH_CONTEXT = values.context;
  } else {
    const { build } = await import('../reference/src/index.ts');
    const t0 = performance.now();
    const server = await build({ inMemory: true, tls: true });
    const { url } = await server.listen();
    process.stdout.write(`embedded reference server at ${url} (ready in ${(performance.now() - t0).toFixed(0)} ms)\n`);
    env.ORCH_ENDPOINT = url;
    env.ORCH_TOKEN = server.adminToken;
    env.ORCH_CA = server.caPem;
    stop = () => server.close();
  }
  if (values.dialect) env.ORCH_DIALECT = values.dialect;
  if (values.runs) env.ORCH_RUNS = values.runs;
  if (values.seed) env.ORCH_SEED = values.seed;
  if (values.expect) env.ORCH_EXPECT = resolve(values.expect);

  const allureDir = join(reportDir, 'allure-results');
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  env.ORCH_REPORT_DIR = reportDir;
  const casesFile = join(reportDir, 'cases.jsonl');
  writeFileSync(casesFile, '');
  env.ORCH_MANIFEST_OUT = casesFile;
  const args = ['vitest', 'run', '--config', join(ROOT, 'suites', 'vitest.config.ts')];
  if (values.area) for (const a of values.area.split(',')) args.push(join('suites', a.trim()));
  if (values.case) args.push('-t', `^${escapeRegex(values.case)}`);
  if (values.shard) args.push(`--shard=${values.shard}`);
  const started = performance.now();
  const code = await new Promise<number>((res) => {
    const child = spawn('npx', args, { cwd: ROOT, env, stdio: 'inherit' });
    child.on('exit', (c) => res(c ?? 1));
  });
  const seconds = (performance.now() - started) / 1000;
  await stop?.();
  const summary = await summarize(join(reportDir, 'results.json'), seconds);
  if (existsSync(join(reportDir, 'results.json'))) {
    const expected = loadExpectations(env.ORCH_EXPECT || undefined);
    const cases = readCases(casesFile);
    const expectedFail = new Set(cases.filter((c) => expectationFor(expected, c.id)?.expect === 'fail').map((c) => c.id));
    const rows = buildMatrix(ROOT, cases, outcomesFrom(join(reportDir, 'results.json'), expectedFail));
    writeFileSync(join(reportDir, 'matrix.html'), matrixHtml(rows));
    writeFileSync(join(reportDir, 'matrix.json'), `${JSON.stringify(rows, null, 2)}\n`);
    writeFileSync(
      join(reportDir, 'summary.json'),
      `${JSON.stringify({ ...summary, seconds, endpoint: env.ORCH_ENDPOINT, dialect: env.ORCH_DIALECT ?? 'orch', expectations: env.ORCH_EXPECT ?? null }, null, 2)}\n`,
    );
    process.stdout.write(`Matrix: ${join(reportDir, 'matrix.html')}\n`);
  }
  if (existsSync(allureDir)) {
    await new Promise<void>((res) => {
      const child = spawn('npx', ['allure', 'generate', allureDir, '-o', join(reportDir, 'html')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('exit', () => res());
    });
    process.stdout.write(`HTML report: ${join(reportDir, 'html', 'index.html')}\n`);
  }
  process.stdout.write(`JUnit: ${join(reportDir, 'junit.xml')}\n`);
  if (summary.executed === 0) {
    process.stderr.write('no case was executed: failing the run\n');
    return 1;
  }
  return code;
}

function readCases(path: string): ManifestEntry[] {
  const seen = new Map<string, ManifestEntry>();
  for (const line of readFileSync(path, 'utf8').split('\n')) if (line.trim()) seen.set(JSON.parse(line).id, JSON.parse(line));
  return [...seen.values()];
}

interface Summary {
  executed: number;
  passed: number;
  failed: number;
  skipped: number;
}

async function summarize(path: string, seconds: number): Promise<Summary> {
  if (!existsSync(path)) return { executed: 0, passed: 0, failed: 0, skipped: 0 };
  const r = JSON.parse(readFileSync(path, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTotalTests: number };
  const executed = r.numPassedTests + r.numFailedTests;
  process.stdout.write(
    `\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped — ${executed} cases in ${seconds.toFixed(1)} s (${(executed / seconds).toFixed(1)} cases/s)\n`,
  );
  return { executed, passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run(process.argv.slice(2)).then(
    (c) => process.exit(c),
    (e) => {
      process.stderr.write(`${(e as Error).message}\n`);
      process.exit(2);
    },
  );
}
