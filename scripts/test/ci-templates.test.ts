// The CI templates (ci-templates/): each is valid to its CI's own checker (GitHub's workflow
// parser; GitLab's schema, as gitlab-ci-local applies it), and each runs here as written, twice,
// in a working copy of this repository: the second run's report holds the trend of both runs,
// the history having gone from the first run to the second the way the template keeps it.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { afterAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../reports/finish.ts';
import { runGithubJob } from './github-local.ts';
import { cleanEnv, cleanupTempDirs, ROOT, tempDir } from './helpers.ts';

const GITHUB = join(ROOT, 'ci-templates', 'github', 'orch-conformance.yml');
const GITLAB = join(ROOT, 'ci-templates', 'gitlab', 'orch-conformance.gitlab-ci.yml');
const GITLAB_CI_LOCAL = join(ROOT, 'node_modules', '.bin', 'gitlab-ci-local');
const SPEC_DIR = process.env.ORCH_SPEC_DIR ?? join(ROOT, '..', 'shared', 'spec');
/** A small area keeps each run to a few seconds; the templates pass ORCH_RUN_FLAGS on as flags. */
const FLAGS = '--area dry-run';
/** A case of that area that passes on the reference (an expectation of failure makes it fail the run). */
const CASE = 'dry-run/post/all';

afterAll(cleanupTempDirs);

/** A git working copy of this repository's files as they are now, sharing its node_modules. */
function workingCopy(name: string): string {
  const dir = join(tempDir(name), 'repo');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)) && f !== 'node_modules');
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    // timestamps kept: the lock file no newer than node_modules, so nothing is reinstalled
    cpSync(join(ROOT, f), join(dir, f), { preserveTimestamps: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const git = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=ci', ...a], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'working copy');
  return dir;
}

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;

function workflowErrors(name: string, content: string): string[] {
  const r = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  return r.context.errors.getErrors().map((e) => e.message);
}

describe('the GitHub Actions template', () => {
  it("is a valid workflow to GitHub's own parser (which finds a broken one)", () => {
    const text = readFileSync(GITHUB, 'utf8');
    expect(workflowErrors('orch-conformance.yml', text)).toEqual([]);
    const broken = text.replace(
      'runs-on: ubuntu-latest\n    timeout-minutes',
      'runs-on: ubuntu-latest\n    timeout-minute',
    );
    expect(broken).not.toBe(text);
    expect(workflowErrors('broken.yml', broken).join('\n')).toMatch(/timeout-minute/);
  });

  it("runs as written, twice: the second report has the trend, the newly failing case and the first run's history", () => {
    const repo = workingCopy('gh');
    const cacheDir = tempDir('gh-cache');
    const artifacts = (n: number) => tempDir(`gh-artifacts-${n}`);
    const base = {
      cwd: repo,
      cacheDir,
      baseEnv: cleanEnv({ ORCH_SPEC_DIR: SPEC_DIR }),
      secrets: {},
    };
    const github = (n: number) => ({
      run_number: n,
      run_id: `70000${n}`,
      ref_name: 'main',
      sha: `${n}`.repeat(40),
      default_branch: 'main',
    });
    const names = (r: ReturnType<typeof runGithubJob>) =>
      Object.fromEntries(
        r.steps.map((s) => [s.name, s.ran ? (s.code === 0 ? s.output.split('\n')[0] : 'failed') : 'skipped']),
      );

    const a1 = artifacts(1);
    const first = runGithubJob(GITHUB, 'conformance', {
      ...base,
      github: github(1),
      artifactsDir: a1,
      vars: { ORCH_RUN_FLAGS: FLAGS },
    });
    const log1 = first.steps.map((s) => `--- ${s.name}\n${s.output.slice(-3000)}`).join('\n');
    expect(first.ok, log1).toBe(true);
    expect(names(first)).toMatchObject({
      'Restore the history of earlier runs': 'no cache entry',
      'Start a kind cluster (Kubernetes 1.28)': 'skipped',
      'Keep the history for the next run': 'saved orch-conformance-history-main-700001',
      'Upload the report': 'uploaded out/report',
      'Upload the report for GitHub Pages': 'uploaded out/report',
    });
    const s1 = summaryOf(join(a1, 'orch-conformance-report'));
    expect(s1.trend?.runs.map((r) => r.label)).toEqual([`#1 ${'1'.repeat(8)}`]);

    // a fresh runner: nothing of the first run is left but what the cache kept
    rmSync(join(repo, 'out'), { recursive: true, force: true });
    const expectFile = join(repo, 'expect-fail.yaml');
    writeFileSync(
      expectFile,
      JSON.stringify({ cases: { [CASE]: { expect: 'fail', note: 'made to fail' } } }),
    );
    const a2 = artifacts(2);
    const second = runGithubJob(GITHUB, 'conformance', {
      ...base,
      github: github(2),
      artifactsDir: a2,
      vars: { ORCH_RUN_FLAGS: `${FLAGS} --expect ${expectFile}` },
    });
    expect(second.ok, 'the unexpected pass fails the job').toBe(false);
    expect(names(second)).toMatchObject({
      'Restore the history of earlier runs': 'restored orch-conformance-history-main-700001',
      'Run the suites': 'failed',
      'Keep the history for the next run': 'saved orch-conformance-history-main-700002',
      'Upload the report': 'uploaded out/report',
    });
    const s2 = summaryOf(join(a2, 'orch-conformance-report'));
    expect(s2.trend?.runs.map((r) => [r.run, r.label, r.ok])).toEqual([
      [1, `#1 ${'1'.repeat(8)}`, true],
      [2, `#2 ${'2'.repeat(8)}`, false],
    ]);
    expect(s2.trend?.newlyFailing.map((f) => f.id)).toEqual([CASE]);
    expect(s2.trend?.failingSince).toEqual([{ id: CASE, run: 2, label: `#2 ${'2'.repeat(8)}` }]);
    const page = readFileSync(join(a2, 'github-pages', 'trend.html'), 'utf8');
    expect(page).toMatch(new RegExp(`<ul id="newly-failing"><li><code>${CASE}</code>`));
    expect(readFileSync(join(a2, 'github-pages', 'index.html'), 'utf8')).toContain('href="trend.html"');
    const allureHistory = join(
      cacheDir,
      encodeURIComponent('orch-conformance-history-main-700002'),
      'allure-history.jsonl',
    );
    expect(readFileSync(allureHistory, 'utf8').trim().split('\n')).toHaveLength(2);
  }, 240_000);
});

describe('the GitLab CI template', () => {
  const gitlabCiLocal = (cwd: string, ...args: string[]) =>
    spawnSync(process.execPath, [GITLAB_CI_LOCAL, ...args], {
      cwd,
      env: cleanEnv({ ORCH_SPEC_DIR: SPEC_DIR }),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });

  it("is valid to GitLab's schema (which finds a broken one)", () => {
    const repo = workingCopy('gl-schema');
    writeFileSync(join(repo, '.gitlab-ci.yml'), readFileSync(GITLAB, 'utf8'));
    const ok = gitlabCiLocal(repo, '--list');
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/conformance\s/);
    writeFileSync(
      join(repo, '.gitlab-ci.yml'),
      readFileSync(GITLAB, 'utf8').replace('when: always\n  script', 'when: sometimes\n  script'),
    );
    const bad = gitlabCiLocal(repo, '--list');
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/cache\[0\]\.when is not 'on_success', 'on_failure' or 'always'/);
  }, 60_000);

  it('runs as written, twice (gitlab-ci-local, shell executor): the published report of the second has both runs', () => {
    const repo = workingCopy('gl');
    writeFileSync(join(repo, '.gitlab-ci.yml'), readFileSync(GITLAB, 'utf8'));
    const pipeline = () =>
      gitlabCiLocal(repo, '--force-shell-executor', '--variable', `ORCH_RUN_FLAGS=${FLAGS}`);
    const first = pipeline();
    expect(first.status, (first.stdout + first.stderr).slice(-4000)).toBe(0);
    expect(first.stdout).toMatch(/PASS\s+conformance/);
    expect(first.stdout).toMatch(/PASS\s+pages/);
    expect(first.stdout, 'the kind job is left out').not.toMatch(/conformance-kind/);
    const second = pipeline();
    expect(second.status, (second.stdout + second.stderr).slice(-4000)).toBe(0);
    const s = summaryOf(join(repo, 'public'));
    expect(s.trend?.runs.map((r) => r.run)).toEqual([1, 2]);
    expect(
      s.trend?.runs.every((r) => /^#\d+ [0-9a-f]{8}$/.test(r.label)),
      JSON.stringify(s.trend?.runs),
    ).toBe(true);
    expect(readFileSync(join(repo, 'public', 'trend.html'), 'utf8')).toContain('run 2 of this history');
    expect(existsSync(join(repo, 'public', 'html', 'index.html'))).toBe(true);
  }, 240_000);
});
