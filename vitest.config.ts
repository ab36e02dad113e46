import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { CloseServersWhenDone } from './scripts/embedded-done.ts';

/** The fault meta tests take longest by far: they start first, the other files fill the other worker. */
const LONGEST = /faults\/test\/(node-config-)?meta\.test\.ts$/;

/**
 * The meta tests first; then the suites against the reference servers on etcd, whose servers
 * close when their last file ends (scripts/embedded-done.ts) instead of idling through the rest
 * of the run; then the others.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) =>
      LONGEST.test(f.moduleId) ? 0 : f.project.name === 'suites-etcd' ? 1 : 2;
    return [0, 1, 2].flatMap((r) => sorted.filter((f) => rank(f) === r));
  }
}

/** The tests of the reference, the harness, the fault catalogue and the scripts. */
export const UNIT_TESTS = [
  'reference/test/**/*.test.ts',
  'harness/test/**/*.test.ts',
  'lifeline/test/**/*.test.ts',
  'faults/test/**/*.test.ts',
  'scripts/test/**/*.test.ts',
];
/** Of those, the files that need modules of their own (they vi.mock one). */
export const FRESH_MODULES = ['reference/test/durability.test.ts', 'reference/test/health.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // three files at once on two cores: the fault meta test holds one worker while it drives
    // its own vitest processes, the others share the rest. CI's last run with two used 33.4 CPU
    // minutes in 20.8 minutes on two cores (a fifth of the CPU idle, most of it during
    // `vitest run`: tests waiting on servers, processes and timers). Three were tried when the
    // meta test alone took most of CI (npm test 1,444 s against 1,448 s with two); since its runs
    // share workers, it leaves the CPU to the others.
    maxWorkers: Number(process.env.ORCH_TEST_WORKERS) || 3,
    sequence: { sequencer: LongestFirst },
    reporters: ['default', new CloseServersWhenDone()],
    projects: [
      {
        test: {
          name: 'reference',
          include: UNIT_TESTS,
          exclude: [...configDefaults.exclude, ...FRESH_MODULES],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // the files of a worker share its modules: each file loading the reference server's
          // few hundred modules again took 221 of reference/test's 415 CPU seconds (the same
          // files without it: 236 CPU s); a file that replaces a module goes below
          isolate: false,
          // concurrent cases (the fault meta test runs faults side by side) at most 3 at once
          maxConcurrency: 3,
          // GitHub's workflow parser imports its JSON schema without an import attribute, which
          // Node refuses: vitest loads it instead (scripts/test/ci-templates.test.ts)
          server: { deps: { inline: ['@actions/workflow-parser'] } },
        },
      },
      {
        // the files that replace a module (vi.mock of node:fs to break the store's writes):
        // modules of their own, or the replacement would miss what another file loaded first
        test: {
          name: 'reference-fresh',
          include: FRESH_MODULES,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'suites',
          include: ['suites/**/*.test.ts'],
          globalSetup: ['scripts/embedded-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          pool: 'threads',
          // as in suites/vitest.config.ts: the suite files share their worker's modules
          isolate: false,
        },
      },
      {
        // every suite again, against pairs of reference servers on one etcd (requests alternate),
        // but the files that never reach the pair: the node agent configuration cases run a
        // command and need no server; the health lifecycle cases start server processes of
        // their own, the same in both projects
        test: {
          name: 'suites-etcd',
          include: ['suites/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            'suites/node-agent-config/**',
            'suites/health/lifecycle-*.test.ts',
          ],
          globalSetup: ['scripts/embedded-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          pool: 'threads',
          isolate: false,
        },
      },
    ],
  },
});
