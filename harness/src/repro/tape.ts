// Recording the requests of a run for reproducers. When the run writes a report
// (ORCH_REPORT_DIR) every request and watch the client sends leaves its details on its entry
// of the endpoint journal (endpoints.ts), which keeps a running case's entries until it ends;
// nothing is copied, and a file is written only for a case that fails (case-tape.ts).
// Creates made outside any case (a file's namespace, made before its cases run) are kept
// apart, the last SETUP_KEPT of them: a reproducer makes again the ones its case's requests
// name.
import type { Exchange } from './exchange.ts';

/** `ORCH_REPRO=0` turns the recording off. */
export const REPRO_ENV = 'ORCH_REPRO';

export const recording: boolean = !!process.env.ORCH_REPORT_DIR && process.env[REPRO_ENV] !== '0';

/** An exchange as recorded: with when it began and the token it used (never written). */
export interface Recorded extends Exchange {
  /** performance.now() when the request was sent. */
  startedAt: number;
  /** A watch (its `watchMs` is set once it ends). */
  watch?: boolean;
  /** A watch: when its last event came (ms after it was opened). */
  lastEventMs?: number;
  /** A watch the server ended before the case closed it. */
  ended?: boolean;
  /** The token of a request that sent one of its own (`token`). */
  ownToken?: string;
  /** A credential the case sent of its own (a token, an Authorization header): never written. */
  secret?: string;
}

let casesRunning = 0;
const SETUP_KEPT = 200;
const setup: Recorded[] = [];
/** The tokens the run's own credentials sent (written as $ORCH_TOKEN). */
export const runTokens = new Set<string>();

export function caseStarted(): void {
  casesRunning++;
}
export function caseEnded(): void {
  casesRunning = Math.max(0, casesRunning - 1);
}

/** Notes an answered exchange: a create outside any case is kept as possible setup. */
export function answered(x: Recorded): void {
  if (casesRunning > 0 || x.method !== 'POST' || x.status < 200 || x.status >= 300) return;
  setup.push(x);
  if (setup.length > SETUP_KEPT) setup.shift();
}

/** The creates made outside cases whose path or body holds one of `parts`, in order. */
export function setupFor(parts: readonly string[]): Recorded[] {
  if (parts.length === 0) return [];
  const holds = (s: string) => parts.some((p) => s.includes(p));
  return setup.filter(
    (x) =>
      holds(x.path) ||
      (typeof x.body === 'string'
        ? holds(x.body)
        : Buffer.isBuffer(x.body) && holds(x.body.toString('latin1'))),
  );
}
