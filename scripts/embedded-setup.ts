// vitest global setup for the `suites` and `suites-etcd` projects of `npm test`: unless
// ORCH_ENDPOINT names a target, start the embedded reference servers (scripts/embedded.ts: the
// main one and those the cases with needs are routed to; for `suites-etcd` each is a pair of
// servers on one private etcd, the cases alternating between them) and hand them to the suites. They go through vitest's
// provide (read by harness/src/run-env.ts), not process.env: this process also starts the
// other projects' test processes, which must not inherit them.
import type { TestProject } from 'vitest/node';
import { startEmbedded } from './embedded.ts';
import { projectClosers } from './embedded-done.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.ORCH_ENDPOINT || process.env.ORCH_KUBECONFIG) return async () => {};
  const embedded = await startEmbedded({ etcd: project.name === 'suites-etcd' });
  project.provide('orchEnv', embedded.env);
  // closed when the project's last file ends (scripts/embedded-done.ts), else at the teardown
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= embedded.close());
  projectClosers().set(project.name, close);
  return close;
}
