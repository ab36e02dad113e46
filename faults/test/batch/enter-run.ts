// The first lines of each test file of a batch (faults/test/batch/runs.ts writes them): the
// run's environment is the harness's while the file's suite loads, and again from the file's
// first hook on, since a worker may load several files before it runs them.
import { beforeAll } from 'vitest';
import { useRunEnv } from '../../../harness/src/run-env.ts';

export function enterRun(env: Record<string, string>): void {
  useRunEnv(env);
  beforeAll(() => useRunEnv(env));
}
