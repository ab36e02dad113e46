// A case's tape: from the case's start its journal keeps every exchange; when the case fails,
// its reproducer is written to <report dir>/repro/<case id>.sh (script.ts) and its path
// returned. The step the failure is about is the request the failure message names (`GET
// /path -> 200`, `: no answer`, a watch's URL), else the last one sent before the assertion
// failed (the time a ConformanceError was made), else the last one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Endpoints } from '../endpoints.ts';
import type { Exchange } from './exchange.ts';
import { uniqueParts } from './names.ts';
import { type RunSpan, watchProperties } from './property.ts';
import { reproScript } from './script.ts';
import { caseEnded, caseStarted, type Recorded, recording, runTokens, setupFor } from './tape.ts';

/** The most steps a reproducer holds (a long property run keeps its last ones). */
const MAX_STEPS = 2_000;

export interface CaseInfo {
  id: string;
  title: string;
  /** Where the spec says it, in words. */
  place: string;
  level: string;
}

export interface CaseTape {
  /** Writes the reproducer of a failure; returns its path (undefined: nothing was sent). */
  failed(c: CaseInfo, err: Error, timeoutS: number): string | undefined;
  end(): void;
}

/** Starts recording a case's exchanges on `endpoints` (undefined when the run does not record). */
export function startTape(endpoints: Endpoints): CaseTape | undefined {
  if (!recording || !process.env.ORCH_REPORT_DIR) return undefined;
  const dir = process.env.ORCH_REPORT_DIR;
  const from = endpoints.mark();
  const before = endpoints.keepFrom;
  endpoints.keepFrom = from;
  let counterexample: RunSpan | undefined;
  caseStarted();
  watchProperties({ mark: () => endpoints.mark(), failed: (span) => (counterexample = span) });
  return {
    failed(c, err, timeoutS) {
      const span = counterexample ?? { from, to: Number.POSITIVE_INFINITY };
      let steps = endpoints
        .since(span.from)
        .filter((u) => u.seq < span.to && u.exchange)
        .map((u) => u.exchange!);
      if (steps.length === 0) return undefined;
      const dropped = Math.max(0, steps.length - MAX_STEPS);
      steps = steps.slice(dropped);
      const now = performance.now();
      const failing = failingStep(steps, err);
      const parts = uniqueParts(steps.flatMap((x) => [x.path, typeof x.body === 'string' ? x.body : '']));
      const setup = setupFor(parts).filter((x) => !steps.includes(x));
      const all = [...setup, ...steps];
      const own: string[] = [];
      for (const x of all) for (const t of [x.ownToken, x.secret]) if (t && !own.includes(t)) own.push(t);
      const exchanges: Exchange[] = all.map((x, i) => {
        const e = toExchange(x, own, now);
        if (x.watch && x.watchMs !== undefined) {
          const closed = x.startedAt + x.watchMs;
          const next = all.findIndex((y, j) => j > i && y.startedAt >= closed);
          if (next >= 0) e.watchUntil = next;
        }
        return e;
      });
      const urls = endpoints.urls;
      const about = [
        `Reproducer of ${c.id}: ${c.title}`,
        `Spec: ${c.place}`,
        '',
        'The case failed:',
        ...err.message
          .split('\n')
          .slice(0, 40)
          .map((l) => `  ${l}`),
        '',
        urls.length > 1
          ? `The run's requests alternated between ${urls.join(', ')}; this script sends them all to one.`
          : `The run's endpoint: ${urls[0]}`,
        ...(counterexample
          ? [
              "A property case: these are the requests of fast-check's reported counterexample (the shrunk one).",
            ]
          : []),
        ...(setup.length
          ? [`Steps 1-${setup.length} make what the case's requests name and were made before it ran.`]
          : []),
        ...(dropped ? [`The case's first ${dropped} requests are left out (too many to replay).`] : []),
      ];
      const text = reproScript(exchanges, {
        endpoint: urls[0]!,
        about,
        failingStep: setup.length + failing,
        setup: setup.length,
        secrets: { token: [...runTokens], tokens: own },
        timeoutS,
      });
      const file = join(dir, 'repro', `${c.id}.sh`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text, { mode: 0o755 });
      return file;
    },
    end() {
      endpoints.keepFrom = before;
      watchProperties(undefined);
      caseEnded();
    },
  };
}

function toExchange(x: Recorded, own: string[], now: number): Exchange {
  const token = x.ownToken ? own.indexOf(x.ownToken) + 1 : 0;
  return {
    method: x.method,
    path: x.path,
    ...(x.headers ? { headers: x.headers } : {}),
    ...(x.body === undefined ? {} : { body: x.body }),
    status: x.status,
    ...(x.answer === undefined ? {} : { answer: x.answer }),
    ...(x.answerType ? { answerType: x.answerType } : {}),
    auth: token ? { token } : x.auth,
    ...(x.watch ? watchTimes(x, now) : {}),
    ...(x.note ? { note: x.note } : {}),
    ...(x.specPath ? { specPath: x.specPath } : {}),
  };
}

/** A watch's times: how long it was open, how long after its last event, whether the server ended it. */
function watchTimes(x: Recorded, now: number): Pick<Exchange, 'watchMs' | 'watchIdleMs' | 'watchEnded'> {
  const open = Math.min(x.watchMs ?? now - x.startedAt, 60_000);
  return {
    watchMs: open,
    watchIdleMs: Math.min(Math.max(0, open - (x.lastEventMs ?? 0)), 10_000),
    ...(x.ended ? { watchEnded: true } : {}),
  };
}

/** The index of the step the failure is about (see the file's head). */
export function failingStep(steps: readonly Recorded[], err: Error): number {
  // a property's error wraps the case's (fast-check's "Property failed"): its time is the cause's
  const at = (err as { at?: unknown }).at ?? (err.cause as { at?: unknown } | undefined)?.at;
  const sent = typeof at === 'number' ? steps.filter((x) => x.startedAt < at) : [...steps];
  const pool = sent.length ? sent : [...steps];
  const msg = err.message;
  for (let i = pool.length - 1; i >= 0; i--) {
    const x = pool[i]!;
    const named = x.watch
      ? msg.includes(x.path) || (x.status === 0 && msg.includes(`watch ${x.specPath}: no answer`))
      : msg.includes(`${x.method} ${x.specPath} -> ${x.status}`) ||
        (x.status === 0 && msg.includes(`${x.method} ${x.specPath}: no answer`));
    if (named) return steps.indexOf(x);
  }
  // an assertion about events or a stream, with no request named: the last watch
  if (/\b(events?|stream|watch)\b/i.test(msg) || /\b(ADDED|MODIFIED|DELETED|BOOKMARK|ERROR)\b/.test(msg)) {
    const w = [...pool].reverse().find((x) => x.watch);
    if (w) return steps.indexOf(w);
  }
  return steps.indexOf(pool[pool.length - 1]!);
}
