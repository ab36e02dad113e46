// The benchmark's parts, each usable alone (run.ts runs them all; the smoke test runs them
// tiny). Servers under test run as child processes (scripts/bench/server.ts); the load
// generator (autocannon, the watch clients) runs in this process, so on a 2-core machine
// the server and the load each get a core. Every figure that has a baseline is measured
// against a bare Node HTTP server answering the same bytes, in the same run.
//
// process.ts starts and stops the servers, http.ts holds the HTTP helpers, measure.ts the
// load and the comparison; one file per benchmark: get.ts, create.ts, list.ts, watch.ts,
// memory.ts, ready.ts, create-rules.ts (and webhooks.ts, etcd.ts).
export { benchCreate } from './create.ts';
export { benchCreateRules } from './create-rules.ts';
export { benchGet, benchGetAuthorized } from './get.ts';
export { call, cmPath, configMapBody, createMany, ensureNamespace, type Reply } from './http.ts';
export { benchList, followList, type ListSetup } from './list.ts';
export { type CompareOpts, type Comparison, type Load, load } from './measure.ts';
export { benchMemory, type MemResult } from './memory.ts';
export {
  cleanupTempDirs,
  loadUrl,
  ROOT,
  type ServerProc,
  serverGroup,
  spawnServer,
  tempDir,
} from './process.ts';
export { benchReadyCli, benchReadyInProcess, type ReadyResult } from './ready.ts';
export { benchWatch, type WatchResult } from './watch.ts';
