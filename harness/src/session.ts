// One client per target per test worker, built from the environment the runner sets
// (ORCH_ENDPOINT, ORCH_TOKEN, ORCH_CA, ORCH_KUBECONFIG, ORCH_DIALECT, ORCH_EXPECT ...; further
// targets in ORCH_EXTRA_TARGETS, see targets.ts; run-env.ts adds what `npm test` provides).
import { Client } from './client.ts';
import { type ExpectationFile, loadExpectations } from './expectations.ts';
import { runEnv } from './run-env.ts';
import { resolveTarget, type Target } from './target.ts';

const clients = new Map<string, Client>();
/** The run environment the clients were made for (a batch of runs changes it: run-env.ts). */
let clientsEnv: NodeJS.ProcessEnv | undefined;
let expectations: ExpectationFile | undefined;

/** The clients of the current run. */
function runClients(): Map<string, Client> {
  const env = runEnv();
  if (clientsEnv !== env) {
    clients.clear();
    clientsEnv = env;
  }
  return clients;
}

/** The client of the run's main target. */
export function session(): Client {
  const clients = runClients();
  let c = clients.get('main');
  if (!c) {
    c = new Client(resolveTarget({}, runEnv()));
    clients.set('main', c);
  }
  return c;
}

/** The client of a named target of the run (one per name: "main" is `session()`'s). */
export function clientFor(t: { name: string; target: Target }): Client {
  const clients = runClients();
  let c = clients.get(t.name);
  if (!c) {
    c = new Client(t.target);
    clients.set(t.name, c);
  }
  return c;
}

export function sessionExpectations(): ExpectationFile {
  expectations ??= loadExpectations(process.env.ORCH_EXPECT || undefined);
  return expectations;
}

/**
 * A run that needs only the verdicts (the fault meta tests) sets ORCH_SHRINK=0: a property
 * ends at its first counterexample (still printed with its seed and path) instead of shrinking it.
 */
export const SHRINK_ENV = 'ORCH_SHRINK';

/** fast-check settings from the runner (`--runs`, `--seed`). */
export function propertySettings(defaultRuns: number): {
  numRuns: number;
  seed?: number;
  endOnFailure?: boolean;
} {
  const runs = Number(process.env.ORCH_RUNS);
  const seed = process.env.ORCH_SEED;
  return {
    numRuns: Number.isFinite(runs) && runs > 0 ? runs : defaultRuns,
    ...(seed ? { seed: Number(seed) } : {}),
    ...(process.env[SHRINK_ENV] === '0' ? { endOnFailure: true } : {}),
  };
}
