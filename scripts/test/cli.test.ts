// `orch-conformance run` end to end, as a user runs it: help texts, usage errors, selection
// (--area, --case), fast-check settings (--runs, --seed) reaching the properties, the
// expectations file (expected failure, unexpected pass, skip, flaky) and the exit code,
// including a run that executes no case. The target is a reference server behind a proxy
// that counts requests and, when a test asks, breaks one rule.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ProxiedRequest,
  type ProxiedResponse,
  type RunningProxy,
  startFaultProxy,
} from '../../faults/proxy.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import type { MatrixRow } from '../../reports/matrix.ts';
import { readManifest } from '../manifest.ts';
import type { RuleCoverage } from '../../reports/rule-coverage.ts';
import { optionEnv, parseRunArgs, RUN_HELP, run, testNamePattern, vitestArgs } from '../run.ts';
import { type CliResult, cleanupTempDirs, cli, readResults, readSummary, tail, tempDir } from './helpers.ts';

/** `run ARGS` called in this process: its exit code and what it wrote to stdout and stderr. */
async function runInProcess(args: string[]): Promise<CliResult> {
  let out = '';
  const capture = (chunk: unknown) => {
    out += String(chunk);
    return true;
  };
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    return { code: await run(args), out };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('run: help and usage', () => {
  it('orch-conformance --help lists the commands; run --help lists every flag', async () => {
    const top = await cli(['--help']);
    expect(top.code, tail(top)).toBe(0);
    for (const c of ['run', 'merge', 'serve']) expect(top.out, 'commands in --help').toContain(`  ${c} `);
    const run = await cli(['run', '--help']);
    expect(run.code, tail(run)).toBe(0);
    for (const f of [
      '--endpoint',
      '--kubeconfig',
      '--dialect',
      '--area',
      '--case',
      '--runs',
      '--seed',
      '--expect',
      '--report',
      '--shard',
      '--history-seconds',
      '--continue-ttl-seconds',
      '--bookmark-seconds',
      '--in-force-seconds',
      '--feature-gates',
      '--admission-plugins',
      '--audit-log',
      '--request-timeout',
      '--kubernetes-assets',
    ])
      expect(run.out, `run --help mentions ${f}`).toContain(f);
    expect(run.out).toBe(RUN_HELP);
    const merge = await cli(['merge', '--help']);
    expect(merge.code, tail(merge)).toBe(0);
    expect(merge.out).toContain('--report OUT');
  });

  it('a usage error exits 2 and says what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['run', '--bogus'], /Unknown option '--bogus'/],
      [['run', '--area', 'no-such-area'], /no area "no-such-area" \(areas: .*crud/],
      [['run', '--shard', '3/2'], /--shard: "3\/2" is not I\/N/],
      [['run', '--runs', '0'], /--runs: "0" is not a positive integer/],
      [['run', '--seed', 'x'], /--seed: "x" is not an integer/],
      [['run', '--dialect', 'klingon'], /--dialect: "klingon"/],
      [['run', '--level', 'may'], /--level: "may" is not one of must, should, all/],
      [['run', '--expect', 'no/such/file.yaml'], /--expect: no file/],
      [['run', '--history-seconds', '0'], /--history-seconds: "0" is not a positive integer/],
      [
        ['run', '--feature-gates', 'WatchList'],
        /--feature-gates: "WatchList" is not Gate=true or Gate=false/,
      ],
      [['run', '--continue-ttl-seconds', '3'], /describe a target given with --endpoint or --kubeconfig/],
      [
        ['run', '--admission-plugins', 'always-deny'],
        /--admission-plugins: "always-deny" is not an admission plugin name/,
      ],
      [
        ['run', '--admission-plugins', 'AlwaysDeny'],
        /--admission-plugins and --audit-log describe a target given with --endpoint or --kubeconfig/,
      ],
      [['run', '--audit-log', ''], /--audit-log: no file given/],
      [
        ['run', '--audit-log', 'audit.jsonl'],
        /--audit-log describe a target given with --endpoint or --kubeconfig/,
      ],
      [
        ['run', '--endpoint', 'http://127.0.0.1:1', '--endpoint='],
        /--endpoint: an empty endpoint URL in the list/,
      ],
      [
        ['run', '--endpoint', '127.0.0.1:6443'],
        /--endpoint: "127.0.0.1:6443" is not a URL \(give each endpoint as http\(s\):\/\/HOST:PORT\)/,
      ],
      [
        ['run', '--endpoint', 'http://h:1', '--endpoint', 'http://h:1/'],
        /--endpoint: "http:\/\/h:1\/" is named twice/,
      ],
      [
        ['run', '--kubernetes-assets', '../shared/kubernetes-1.28/bin', '--endpoint', 'http://127.0.0.1:1'],
        /--kubernetes-assets starts its own target: leave out --endpoint, --kubeconfig and --etcd/,
      ],
      [['run', '--kubernetes-assets', ''], /--kubernetes-assets: no folder given/],
      [
        ['run', '--kubernetes-assets', '/no/such/folder'],
        /target: no folder \/no\/such\/folder: point --kubernetes-assets/,
      ],
      [['kube-apiserver', '--port', 'x'], /--port N is required/],
      [['merge'], /no report directory given/],
      [['nonsense'], /unknown command "nonsense"/],
    ];
    // `run`'s own usage errors are checked by calling it (what bin.mjs does with `run ARGS`, then
    // exits with its code): each command line would cost a process start of about 1.3 CPU
    // seconds. The other commands', and one of `run`'s, go through the real command line.
    const inProcess = cases.filter(([args]) => args[0] === 'run' && args[1] !== '--bogus');
    const spawned = cases.filter((c) => !inProcess.includes(c));
    const results = new Map<string[], CliResult>();
    for (const [args] of inProcess) results.set(args, await runInProcess(args.slice(1)));
    const outs = await Promise.all(spawned.map(([args]) => cli(args)));
    for (const [i, [args]] of spawned.entries()) results.set(args, outs[i]!);
    expect(spawned.length, 'command lines run as processes').toBeGreaterThan(3);
    for (const [args, want] of cases) {
      const r = results.get(args)!;
      expect(r.code, `${args.join(' ')}: ${tail(r, 500)}`).toBe(2);
      expect(r.out, args.join(' ')).toMatch(want);
    }
  }, 120_000);
});

describe('run: selection and settings reach vitest and the suites', () => {
  it('--area takes several areas (comma-separated or repeated) as file filters', () => {
    const o = parseRunArgs(['--area', 'crud,paths', '--area', 'watch']);
    expect(o.selection.areas).toEqual(['crud', 'paths', 'watch']);
    const args = vitestArgs(o.selection);
    expect(args).toEqual(expect.arrayContaining(['suites/crud/', 'suites/paths/', 'suites/watch/']));
    expect(args).not.toContain('--testNamePattern');
  });

  it('--case selects by id prefix, after describe titles, and narrows the files to the areas named', () => {
    const re = new RegExp(testNamePattern(['crud/get', 'watch/law/']));
    // vitest matches the pattern against "<describe titles> <test name>"
    expect(
      re.test('crud: create and get crud/get/returns-object: GET on a resource path returns the object'),
    ).toBe(true);
    expect(re.test('crud/get/not-found: GET of a missing object answers 404')).toBe(true);
    expect(re.test('watch: laws watch/law/exactly-once-in-order: Law (Events): ...')).toBe(true);
    expect(re.test('crud: create and get crud/create/returns-object: POST ... crud/get')).toBe(false);
    expect(re.test('watch: laws watch/lawful/x: ...')).toBe(false);
    const o = parseRunArgs(['--case', 'crud/get,watch/law/']);
    expect(o.selection.cases).toEqual(['crud/get', 'watch/law/']);
    const args = vitestArgs(o.selection);
    expect(args).toEqual(expect.arrayContaining(['suites/crud/', 'suites/watch/', '--testNamePattern']));
    // a prefix that names no area (or a partial one) keeps every file
    expect(vitestArgs(parseRunArgs(['--case', 'cru']).selection).some((a) => a.startsWith('suites/'))).toBe(
      false,
    );
  });

  it('--runs, --seed, --dialect and --expect become ORCH_* for the suites; --shard becomes vitest --shard', () => {
    const o = parseRunArgs([
      '--runs',
      '25',
      '--seed=-7', // fast-check prints negative seeds too
      '--dialect',
      'kubernetes',
      '--expect',
      'expectations/kubernetes-1.28.yaml',
      '--shard',
      '2/3',
    ]);
    expect(optionEnv(o)).toEqual({
      ORCH_RUNS: '25',
      ORCH_SEED: '-7',
      ORCH_DIALECT: 'kubernetes',
      ORCH_EXPECT: expect.stringMatching(/expectations\/kubernetes-1\.28\.yaml$/),
    });
    expect(vitestArgs(o.selection)).toContain('--shard=2/3');
    expect(o.reportDir, 'a shard writes its own report directory').toMatch(/out\/report-shard-2-of-3$/);
  });

  it("--request-timeout caps the suites' requests and watch openings (ORCH_REQUEST_TIMEOUT, seconds)", () => {
    expect(optionEnv(parseRunArgs(['--request-timeout', '2.5']))).toEqual({ ORCH_REQUEST_TIMEOUT: '2.5' });
    for (const bad of ['0', '-1', 'soon'])
      expect(() => parseRunArgs([`--request-timeout=${bad}`]), bad).toThrow(/--request-timeout/);
  });

  it("--audit-log declares the file of the target's audit events to the suites (ORCH_AUDIT_LOG)", () => {
    expect(optionEnv(parseRunArgs(['--audit-log', 'logs/audit.jsonl']))).toEqual({
      ORCH_AUDIT_LOG: expect.stringMatching(/^\/.*\/logs\/audit\.jsonl$/),
    });
  });
});

describe('run: end to end against a reference server', () => {
  let server: OrchServer;
  let proxy: RunningProxy;
  /** What the proxy does now: pass through, or break a rule. */
  let mode: 'clean' | 'get-missing-500' | 'delete-missing-500' = 'clean';
  let seen: { method: string; path: string }[] = [];
  const args = () => ['--endpoint', proxy.url, '--token', server.adminToken];

  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
    const missingObject = (r: ProxiedRequest, res: ProxiedResponse, method: string) =>
      r.method === method &&
      /^\/api\/v1\/namespaces\/[^/]+\/configmaps\/[^/]+$/.test(r.url.pathname) &&
      res.status === 404;
    proxy = await startFaultProxy({
      target: server.url!,
      fault: {
        name: 'test-switch',
        request: (r) => {
          seen.push({ method: r.method, path: r.url.pathname });
          return r;
        },
        response: (r, res) => {
          if (mode === 'get-missing-500' && missingObject(r, res, 'GET')) return { ...res, status: 500 };
          if (mode === 'delete-missing-500' && missingObject(r, res, 'DELETE'))
            return { ...res, status: 500 };
          return res;
        },
      },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    cleanupTempDirs();
  });

  it('a run that executes no case fails (--case crud/does-not-exist)', async () => {
    const dir = tempDir('none');
    // an id under an area: vitest loads that area's files only (a bare prefix loads every suite)
    const r = await cli(['run', ...args(), '--case', 'crud/does-not-exist', '--report', dir, '--no-html']);
    expect(r.code, tail(r)).toBe(1);
    expect(r.out).toContain('no case was executed');
    const s = readSummary(dir);
    expect(s.executed).toBe(0);
    expect(s.ok).toBe(false);
    expect(s.reasons).toContain('no case was executed');
  }, 120_000);

  it('--level must runs only the MUST cases and every report says so', async () => {
    const dir = tempDir('level-must');
    const r = await cli(['run', ...args(), '--area', 'content-types', '--level', 'must', '--report', dir]);
    expect(r.code, tail(r)).toBe(0);
    // the levels as the cases declare them (suites/MANIFEST.json), not as the run reports them
    const level = new Map(readManifest().map((c) => [c.id, c.level]));
    const all = [...level.keys()].filter((id) => id.startsWith('content-types/'));
    const ran = readResults(dir)
      .testResults.flatMap((f) => f.assertionResults)
      .filter((a) => a.status === 'passed' || a.status === 'failed')
      .map((a) => a.title.slice(0, a.title.indexOf(': ')));
    expect(new Set(ran.map((id) => level.get(id))), 'levels of the cases that ran').toEqual(
      new Set(['MUST']),
    );
    expect(ran.length).toBe(all.filter((id) => level.get(id) === 'MUST').length);
    const s = readSummary(dir);
    expect(s.executed).toBe(ran.length);
    expect(s.notSelected, 'the SHOULD and beyond-the-text cases').toBe(all.length - ran.length);
    expect(s.notSelected).toBeGreaterThan(0);
    expect(s.profile).toBe('must (MUST cases only)');
    expect(s.levels).toEqual([
      expect.objectContaining({
        doc: 1,
        level: 'MUST',
        selected: ran.length,
        passed: ran.length,
        conformant: true,
      }),
    ]);
    expect(r.out).toContain('profile must (MUST cases only)');
    expect(r.out).toContain(`Profile must (MUST cases only): doc1 MUST: ${ran.length}/${ran.length} passed`);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(
      /<testsuites name="orch conformance — profile must \(MUST cases only\)"/,
    );
    const matrix = readFileSync(join(dir, 'matrix.html'), 'utf8');
    expect(matrix).toContain('<b id="profile">must (MUST cases only)</b>');
    expect(matrix).toContain(`doc1 MUST: ${ran.length}/${ran.length} passed`);
    expect(readFileSync(join(dir, 'allure-results', 'environment.properties'), 'utf8')).toContain(
      'profile=must (MUST cases only)',
    );
    expect(readFileSync(join(dir, 'html', 'index.html'), 'utf8')).toContain('profile must');
  }, 120_000);

  it('a case that skips itself is reported as skipped with its reason, everywhere', async () => {
    const dir = tempDir('self-skip');
    // expired-token skips itself unless a short continue-token lifetime is declared
    const r = await cli(['run', ...args(), '--case', 'chunking/continue/', '--report', dir]);
    expect(r.code, tail(r)).toBe(0);
    const s = readSummary(dir);
    expect(s.skipped).toBe(1);
    expect(s.executed).toBeGreaterThan(0);
    const reason = s.skips.find((k) => k.id === 'chunking/continue/expired-token')?.note;
    expect(reason).toMatch(/ORCH_CONTINUE_TTL_SECONDS/);
    expect(r.out).toContain(`skipped  chunking/continue/expired-token: ${reason}`);
    const rows = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixRow[];
    expect(
      rows.flatMap((x) => x.cases).find((c) => c.id === 'chunking/continue/expired-token'),
    ).toMatchObject({
      outcome: 'skipped',
      note: reason,
    });
    // coverage by rule: the rule the case names (suites/rules/doc1.yaml) lists it with its outcome
    const rules = JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as RuleCoverage;
    const gone = rules.sections
      .flatMap((x) => x.rules)
      .find((x) => x.id === 'doc1/errors/410-gone-watch-exact-list-version');
    expect(gone?.cases).toContainEqual({ id: 'chunking/continue/expired-token', outcome: 'skipped' });
    expect(rules.counts.rules).toBeGreaterThan(300);
    expect(readFileSync(join(dir, 'matrix.html'), 'utf8')).toContain('<section id="rules">');
    const allure = readdirSync(join(dir, 'allure-results'))
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, 'allure-results', f), 'utf8')))
      .find((a) => a.labels.some((l: any) => l.value === 'chunking/continue/expired-token'));
    expect(allure?.status).toBe('skipped');
    expect(allure?.statusDetails?.message).toBe(`Skipped: ${reason}`);
  }, 120_000);

  it('--area with two areas runs both, shows per-file progress and ends with wall time and cases/s', async () => {
    const dir = tempDir('areas');
    const r = await cli(['run', ...args(), '--area', 'crud,paths', '--report', dir, '--no-html']);
    expect(r.code, tail(r)).toBe(0);
    const files = readResults(dir).testResults.map((f) => f.name.replace(/^.*\/suites\//, 'suites/'));
    expect(files.some((f) => f.startsWith('suites/crud/'))).toBe(true);
    expect(files.some((f) => f.startsWith('suites/paths/'))).toBe(true);
    expect(
      files.every((f) => /^suites\/(crud|paths)\//.test(f)),
      files.join(', '),
    ).toBe(true);
    // vitest's default reporter: one line per test file as it finishes
    for (const f of files) expect(r.out, `progress line for ${f}`).toContain(f);
    expect(r.out).toMatch(/\d+ cases run in [\d.]+ s \([\d.]+ cases\/s\)/);
    expect(r.out).toMatch(/Wall time [\d.]+ s\. PASS/);
    const s = readSummary(dir);
    expect(s.selection.areas).toEqual(['crud', 'paths']);
    expect(s.executed).toBe(s.passed);
    expect(s.executed).toBeGreaterThan(20);
    expect(s.casesPerSecond).toBeGreaterThan(0);
  }, 180_000);

  it('--runs sets the number of property runs and --seed replays the same inputs', async () => {
    const id = 'crud/names/law-unique-at-any-time';
    // every property run ends with one list of the namespace's ConfigMaps
    const runWith = async (runs: number) => {
      seen = [];
      const dir = tempDir(`runs${runs}`);
      const r = await cli([
        'run',
        ...args(),
        '--case',
        id,
        '--runs',
        String(runs),
        '--seed',
        '4242',
        '--report',
        dir,
        '--no-html',
      ]);
      expect(r.code, tail(r)).toBe(0);
      expect(readSummary(dir).executed).toBe(1);
      const ops = seen
        .filter((s) => /\/configmaps(\/|$)/.test(s.path))
        .map((s) => `${s.method} ${s.path.endsWith('/configmaps') ? 'list' : 'one'}`);
      return { ops, lists: ops.filter((o) => o === 'GET list').length };
    };
    // two runs: the longer one with the same seed replays the shorter one's runs first, then more
    const a = await runWith(2);
    const c = await runWith(6);
    expect(c.lists - a.lists, 'four more runs, four more lists').toBe(4);
    expect(c.ops.slice(0, a.ops.length), 'the same seed: the first runs are the same operations').toEqual(
      a.ops,
    );
  }, 180_000);

  it('a failing property prints the seed given with --seed', async () => {
    mode = 'delete-missing-500';
    try {
      const dir = tempDir('seed');
      const r = await cli([
        'run',
        ...args(),
        '--case',
        'crud/names/law-unique-at-any-time',
        '--seed',
        '987654',
        '--report',
        dir,
        '--no-html',
      ]);
      expect(r.code, tail(r)).toBe(1);
      const s = readSummary(dir);
      expect(s.unexpected.failures.map((f) => f.id)).toEqual(['crud/names/law-unique-at-any-time']);
      const msg = JSON.stringify(
        readResults(dir).testResults.flatMap((f) => f.assertionResults.map((a) => a.failureMessages)),
      );
      expect(msg).toContain('seed: 987654');
    } finally {
      mode = 'clean';
    }
  }, 120_000);

  it('expectations: an expected failure, a skip and a flaky case pass the run; an unexpected pass fails it', async () => {
    mode = 'get-missing-500'; // crud/get/not-found now fails
    try {
      const base = {
        'crud/get/not-found': { expect: 'fail', note: 'the proxy answers 500 for a missing object' },
        'crud/list/envelope': { expect: 'skip', note: 'skipped by the test' },
        'crud/list/*': { expect: 'flaky', note: 'retried by the test' },
      };
      const file = join(tempDir('exp'), 'exp.yaml');
      const write = (cases: Record<string, { expect: string; note: string }>) =>
        writeFileSync(file, JSON.stringify({ implementation: 'test proxy', cases })); // JSON is YAML
      const sel = ['--case', 'crud/get,crud/list', '--expect', file];

      write(base);
      const ok = tempDir('exp-ok');
      const r1 = await cli(['run', ...args(), ...sel, '--report', ok]);
      expect(r1.code, tail(r1)).toBe(0);
      const s1 = readSummary(ok);
      expect({
        executed: s1.executed,
        passed: s1.passed,
        failed: s1.failed,
        expectedFailures: s1.expectedFailures,
        unexpectedPasses: s1.unexpectedPasses,
        skipped: s1.skipped,
      }).toEqual({ executed: 3, passed: 2, failed: 0, expectedFailures: 1, unexpectedPasses: 0, skipped: 1 });
      expect(s1.implementation).toBe('test proxy');
      expect(s1.skips).toEqual([
        { id: 'crud/list/envelope', title: expect.any(String), note: 'skipped by the test' },
      ]);
      const rows = JSON.parse(readFileSync(join(ok, 'matrix.json'), 'utf8')) as MatrixRow[];
      const outcome = (id: string) => rows.flatMap((x) => x.cases).find((c) => c.id === id)?.outcome;
      expect(outcome('crud/get/not-found')).toBe('expected-fail');
      expect(outcome('crud/list/envelope')).toBe('skipped');
      expect(outcome('crud/create/returns-object'), 'not selected').toBe('not-run');
      const allure = readdirSync(join(ok, 'allure-results'))
        .filter((f) => f.endsWith('-result.json'))
        .map((f) => JSON.parse(readFileSync(join(ok, 'allure-results', f), 'utf8')));
      const byId = (id: string) =>
        allure.find((a) => a.labels.some((l: any) => l.name === 'caseId' && l.value === id));
      expect(byId('crud/list/envelope')?.status, 'a skipped case is in the Allure results').toBe('skipped');
      expect(byId('crud/list/envelope')?.statusDetails?.message).toContain('skipped by the test');
      expect(byId('crud/get/not-found')?.statusDetails?.message).toContain('Expected failure');
      expect(existsSync(join(ok, 'html', 'index.html'))).toBe(true);

      write({ ...base, 'crud/get/returns-object': { expect: 'fail', note: 'wrongly expected to fail' } });
      const bad = tempDir('exp-bad');
      const r2 = await cli(['run', ...args(), ...sel, '--report', bad, '--no-html']);
      expect(r2.code, tail(r2)).toBe(1);
      expect(r2.out).toContain('UNEXPECTED PASS crud/get/returns-object');
      const s2 = readSummary(bad);
      expect(s2.unexpectedPasses).toBe(1);
      expect(s2.unexpected.passes.map((p) => [p.id, p.note])).toEqual([
        ['crud/get/returns-object', 'wrongly expected to fail'],
      ]);
      expect(s2.reasons).toEqual(['1 unexpected pass']);
    } finally {
      mode = 'clean';
    }
  }, 180_000);
});
