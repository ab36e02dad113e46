// The environment the suites read their targets from: process.env, plus what the `suites`
// project of `npm test` provides (scripts/embedded-setup.ts). The global setup hands the
// embedded servers over with vitest's provide/inject rather than process.env: a variable it
// set would leak into every other test process of `npm test`, among them the ones that point
// the suites at servers of their own.
//
// A batch of runs in one worker (the fault meta tests: faults/test/batch) names each test
// file's run with useRunEnv before the file's suite loads and again before its cases run; what
// the harness keeps per run (clients, targets) is keyed to the environment object runEnv
// returns, so a new run starts with its own.
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** ORCH_* variables describing the embedded servers (scripts/embedded.ts). */
    orchEnv?: Record<string, string>;
  }
}

let merged: NodeJS.ProcessEnv | undefined;
/** What useRunEnv was last given. */
let current: Record<string, string> | undefined;

export function runEnv(): NodeJS.ProcessEnv {
  if (merged) return merged;
  let provided: Record<string, string> | undefined;
  try {
    provided = inject('orchEnv');
  } catch {
    // not in a vitest worker (a script): process.env alone
    provided = undefined;
  }
  merged = provided ? { ...process.env, ...provided } : process.env;
  return merged;
}

/** Makes `env` (over process.env) the run's environment from now on; the same object keeps the run's clients and targets. */
export function useRunEnv(env: Record<string, string>): void {
  if (merged && current === env) return;
  current = env;
  merged = { ...process.env, ...env };
}
