// One client per test worker, built from the environment the runner sets (ORCH_ENDPOINT,
// ORCH_TOKEN, ORCH_CA, ORCH_KUBECONFIG, ORCH_DIALECT, ORCH_EXPECT ...).
import { Client } from './client.ts';
import { type ExpectationFile, loadExpectations } from './expectations.ts';
import { resolveTarget } from './target.ts';

let client: Client | undefined;
let expectations: ExpectationFile | undefined;

export function session(): Client {
  client ??= new Client(resolveTarget());
  return client;
}

export function sessionExpectations(): ExpectationFile {
  expectations ??= loadExpectations(process.env.ORCH_EXPECT || undefined);
  return expectations;
}

/** fast-check settings from the runner (`--runs`, `--seed`). */
export function propertySettings(defaultRuns: number): { numRuns: number; seed?: number } {
  const runs = Number(process.env.ORCH_RUNS);
  const seed = process.env.ORCH_SEED;
  return { numRuns: Number.isFinite(runs) && runs > 0 ? runs : defaultRuns, ...(seed ? { seed: Number(seed) } : {}) };
}
