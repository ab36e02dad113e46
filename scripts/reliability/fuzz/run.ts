// One fuzz run against one server: discovery, the work namespace and the canary, then
// `requests` generated requests sent `concurrency` at a time, every answer checked; every
// `checkEvery` requests and at the end the health and the canary. Violations keep the request
// index: the seed and the index rebuild the request (generateRequest).
import { type Canary, canaryProblem, createCanary, ensureNamespace, readCanary } from './canary.ts';
import { checkAnswer, type Violation } from './check.ts';
import type { FuzzContext } from './context.ts';
import { type FuzzTarget, healthProblems } from './health.ts';
import { type FuzzRequest, generateRequest } from './request.ts';
import { discoverResources } from './resources.ts';
import { send } from './send.ts';

export interface FuzzOptions {
  seed: number;
  requests: number;
  concurrency: number;
  /** Health and canary every so many requests (default 2000). */
  checkEvery?: number;
  /** Called every `progressMs` (default 5000) with the counts so far. */
  onProgress?: (p: FuzzProgress) => void;
  progressMs?: number;
  /** How many violations are kept in full (default 20). */
  keep?: number;
  /** Called with each kept violation as it is found. */
  onViolation?: (v: Violation) => void;
}

export interface FuzzProgress {
  done: number;
  total: number;
  perSecond: number;
  byStatus: Record<string, number>;
  violations: number;
}

export interface FuzzResult {
  seed: number;
  requests: number;
  /** Answers by HTTP status ('0' for none). */
  byStatus: Record<string, number>;
  /** Answers by class: 2xx, 3xx, 4xx, 5xx, none. */
  byClass: Record<string, number>;
  byFamily: Record<string, number>;
  violationCount: number;
  /** The first violations, in full. */
  violations: Violation[];
  healthChecks: number;
  maxRssBytes?: number;
  wallMs: number;
}

const WORK_NAMESPACE = 'fuzz-work';
const CANARY_NAMESPACE = 'fuzz-canary-zone';

/** Discovery, the work namespace and the canary: what a run (or a replay) needs first. */
export async function prepare(t: FuzzTarget): Promise<{ ctx: FuzzContext; canary: Canary }> {
  const resources = await discoverResources(t.url, t.token);
  await ensureNamespace(t.url, t.token, WORK_NAMESPACE);
  const canary = await createCanary(t.url, t.token, CANARY_NAMESPACE);
  return {
    ctx: { token: t.token, workNamespace: WORK_NAMESPACE, canaryNamespace: CANARY_NAMESPACE, resources },
    canary,
  };
}

export function statusClass(status: number): string {
  return status === 0 ? 'none' : `${Math.floor(status / 100)}xx`;
}

export async function runFuzz(t: FuzzTarget, o: FuzzOptions): Promise<FuzzResult> {
  const started = Date.now();
  const { ctx, canary } = await prepare(t);
  const keep = o.keep ?? 20;
  const checkEvery = o.checkEvery ?? 2000;
  const byStatus: Record<string, number> = {};
  const byClass: Record<string, number> = {};
  const byFamily: Record<string, number> = {};
  const violations: Violation[] = [];
  let violationCount = 0;
  let healthChecks = 0;
  let maxRss = t.rss();
  let next = 0;
  let done = 0;
  const note = (vs: Violation[]) => {
    violationCount += vs.length;
    for (const v of vs)
      if (violations.length < keep) {
        violations.push(v);
        o.onViolation?.(v);
      }
  };
  const checkpoint = async (index: number) => {
    healthChecks++;
    const rss = t.rss();
    if (rss !== undefined && (maxRss === undefined || rss > maxRss)) maxRss = rss;
    const health = await healthProblems(t);
    const problems = [...health];
    if (!health.includes('the server process is not running')) {
      const p = canaryProblem(canary.recorded, await readCanary(t.url, t.token, canary));
      if (p) problems.push(p);
    }
    note(
      problems.map((problem) => ({
        index,
        problem,
        request: `(checked after ${index} requests)`,
        status: 0,
        answer: '',
      })),
    );
    return problems;
  };
  let stop = false;
  const progress = setInterval(() => {
    const s = (Date.now() - started) / 1000;
    o.onProgress?.({
      done,
      total: o.requests,
      perSecond: done / s,
      byStatus: { ...byStatus },
      violations: violationCount,
    });
  }, o.progressMs ?? 5000);
  const worker = async () => {
    while (!stop) {
      const i = next++;
      if (i >= o.requests) return;
      let r: FuzzRequest;
      try {
        r = generateRequest(o.seed, i, ctx);
      } catch (e) {
        note([
          { index: i, problem: (e as Error).message, request: '(not generated)', status: 0, answer: '' },
        ]);
        continue;
      }
      const a = await send(t.url, r);
      byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
      const cls = statusClass(a.status);
      byClass[cls] = (byClass[cls] ?? 0) + 1;
      byFamily[r.family] = (byFamily[r.family] ?? 0) + 1;
      note(checkAnswer(r, a));
      done++;
      if (done % checkEvery === 0) {
        const problems = await checkpoint(done);
        // a dead server answers nothing more: stop rather than count every request as a violation
        if (problems.includes('the server process is not running')) stop = true;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
    await checkpoint(done);
  } finally {
    clearInterval(progress);
  }
  return {
    seed: o.seed,
    requests: done,
    byStatus,
    byClass,
    byFamily,
    violationCount,
    violations,
    healthChecks,
    maxRssBytes: maxRss,
    wallMs: Date.now() - started,
  };
}
