import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        test: {
          name: 'reference',
          include: ['reference/test/**/*.test.ts', 'harness/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // concurrent cases (the fault meta test runs faults side by side) at most 3 at once
          maxConcurrency: 3,
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
        },
      },
      {
        // every suite again, against pairs of reference servers on one etcd (requests alternate)
        test: {
          name: 'suites-etcd',
          include: ['suites/**/*.test.ts'],
          globalSetup: ['scripts/embedded-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          pool: 'threads',
        },
      },
    ],
  },
});
