import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['reference/test/**/*.test.ts', 'harness/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
