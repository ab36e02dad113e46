// The endpoints of one API. A target may name several servers of the same API (replicas on
// one store, `--endpoint A --endpoint B` or ORCH_ENDPOINT=A,B): every request and every watch
// the harness sends takes the next one in turn, so consecutive requests of a case reach
// different servers, and a replica that does not see what another one wrote fails the case.
// The rotation keeps a short journal of which endpoint took which request, for failure
// messages (the implementer learns which replica answered); while a case is recorded for a
// reproducer (repro/), the journal keeps every entry of that case, each with its exchange.
import type { Recorded } from './repro/tape.ts';

/** One request or watch given to an endpoint. */
export interface EndpointUse {
  /** e.g. `GET /api/v1/namespaces`, `watch /api/v1/pods`. */
  what: string;
  url: string;
  /** The status code, or why there was none; set when the answer comes. */
  answer?: string;
  /** Position in the rotation's journal (increasing). */
  seq: number;
  /** The request and its answer, when the run records them for reproducers. */
  exchange?: Recorded;
}

const JOURNAL = 64;
/** The most entries kept for one recorded case (a long property run keeps its latest). */
const JOURNAL_RECORDED = 20_000;

export class Endpoints {
  private turn = 0;
  private seq = 0;
  private readonly journal: EndpointUse[] = [];
  /** While set, the journal keeps the entries from this position on (a case being recorded). */
  keepFrom?: number;

  constructor(readonly urls: readonly string[]) {
    if (urls.length === 0) throw new Error('no endpoint');
  }

  get several(): boolean {
    return this.urls.length > 1;
  }

  /** While set (pinned), every request goes to this endpoint. */
  private pin?: string;

  /** The endpoint the next request goes to (round robin, or the pinned one), noted in the journal. */
  take(what: string): EndpointUse {
    const url = this.pin ?? this.urls[this.turn % this.urls.length]!;
    if (!this.pin) this.turn = (this.turn + 1) % this.urls.length;
    const use: EndpointUse = { what, url, seq: this.seq++ };
    this.journal.push(use);
    const first = this.journal[0]!;
    const keep = this.keepFrom !== undefined && first.seq >= this.keepFrom;
    const limit = keep ? JOURNAL_RECORDED : JOURNAL;
    if (this.journal.length > limit) this.journal.splice(0, this.journal.length - limit);
    return use;
  }

  /**
   * Runs `body` with every request going to one endpoint (the next in turn): for requirements
   * about one server's own state, such as its caches or its metrics.
   */
  async pinned<T>(body: () => Promise<T>): Promise<T> {
    const before = this.pin;
    this.pin ??= this.take('(the case runs on one server)').url;
    try {
      return await body();
    } finally {
      this.pin = before;
    }
  }

  /** A position in the journal: `since(mark())` is what was sent after it. */
  mark(): number {
    return this.seq;
  }

  since(mark: number): EndpointUse[] {
    return this.journal.filter((u) => u.seq >= mark);
  }

  /** The endpoints in words, e.g. for a run's header. */
  describe(): string {
    return this.urls.join(', ');
  }
}

/**
 * Lines for a failure message: the endpoints, then the last `max` requests after `mark` with
 * the endpoint that took each (nothing with a single endpoint: its messages stay as they were).
 */
export function endpointTrail(e: Endpoints, mark: number, max = 8): string {
  if (!e.several) return '';
  const shown = e.since(mark).slice(-max);
  const total = e.mark() - mark; // the journal may have dropped the earliest
  const lines = shown.map((u) => `    ${u.what} -> ${u.url}${u.answer ? `: ${u.answer}` : ''}`);
  return (
    `\n  Endpoints (requests alternate): ${e.describe()}` +
    (shown.length
      ? `\n  ${total > shown.length ? `Last ${shown.length} of the case's ${total} requests` : "The case's requests"} and the endpoint that answered each:\n${lines.join('\n')}`
      : '')
  );
}

/**
 * Runs `body`; a failure it throws gets the endpoint lines of the requests sent meanwhile
 * (endpointTrail) added to its message. A skip (vitest's own error, code VITEST_PENDING) is
 * left alone: its note says why already.
 */
export async function namingEndpoints<T>(e: Endpoints, body: () => Promise<T>): Promise<T> {
  const mark = e.mark();
  try {
    return await body();
  } catch (err) {
    if (err instanceof Error && (err as { code?: unknown }).code !== 'VITEST_PENDING') {
      const trail = endpointTrail(e, mark);
      if (trail) {
        const before = err.message;
        // the stack begins with a copy of the message, written when first read: read it first
        const stack = err.stack;
        err.message = `${before}${trail}`;
        if (stack?.includes(before)) err.stack = stack.replace(before, err.message);
      }
    }
    throw err;
  }
}

/**
 * The endpoint URLs of a list (a repeated flag's values, or a comma-separated variable), each
 * an absolute http(s) URL; `source` names where they came from in the error message.
 */
export function parseEndpointList(values: string | readonly string[], source: string): string[] {
  const parts = (typeof values === 'string' ? [values] : [...values]).flatMap((v) => v.split(','));
  const out: string[] = [];
  for (const raw of parts) {
    const v = raw.trim();
    if (v === '')
      throw new Error(
        `${source}: an empty endpoint URL${parts.length > 1 ? ' in the list' : ''} (give each endpoint as http(s)://HOST:PORT)`,
      );
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new Error(`${source}: "${v}" is not a URL (give each endpoint as http(s)://HOST:PORT)`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new Error(
        `${source}: "${v}" is not an http or https URL (give each endpoint as http(s)://HOST:PORT)`,
      );
    const same = out.find((o) => new URL(o).href === u.href);
    if (same !== undefined)
      throw new Error(`${source}: "${v}" is named twice${same === v ? '' : ` (as "${same}")`}`);
    out.push(v);
  }
  return out;
}
