// The soak's event check: what each watcher saw against what the writers had acknowledged in its
// scope. Lost (an acknowledged change in scope never delivered), duplicated (delivered twice),
// reordered (a resourceVersion not above the one before it on the same watcher, across its
// reconnects; a BOOKMARK may repeat the last one but not go below it) and unexpected (an event
// in the soak's namespaces that no acknowledged write in scope explains).
import { type ObjectRef, type Scope, describe, matches } from './scope.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/**
 * An acknowledged write. A create or update knows its resourceVersion from its answer; a delete
 * answers a Status without one, so it is known by the window it falls in: above the object's
 * last version (`after`) and below the version of the next create of the same name (`before`).
 */
export interface AckedWrite {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  ref: ObjectRef;
  /** ADDED, MODIFIED: the resourceVersion of the answer. */
  rv?: number;
  /** DELETED: the object's resourceVersion before the delete. */
  after?: number;
  /** DELETED: the resourceVersion of the next create of the name (none: unbounded). */
  before?: number;
}

export interface SeenEvent {
  type: EventType;
  /** namespace/name ('' for a BOOKMARK) */
  key: string;
  rv: number;
}

export interface WatcherLog {
  scope: Scope;
  /** The resourceVersion the watch started at (events above it are expected). */
  startRv: number;
  /** Everything the watcher received, in arrival order, across its reconnects. */
  events: SeenEvent[];
  /** Windows (from, to] skipped after a 410 Gone: nothing in them is expected. */
  gaps: [number, number][];
}

export interface WatcherCheck {
  scope: string;
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  reordered: number;
  unexpected: number;
  /** The first few problems in words. */
  problems: string[];
}

const MAX_PROBLEMS = 5;

/** Whether a resourceVersion in [lo, hi] may fall in a skipped window (from, to]. */
function inGap(gaps: [number, number][], lo: number, hi: number): boolean {
  return gaps.some(([from, to]) => Math.max(lo, from + 1) <= Math.min(hi, to));
}

/** Checks one watcher. `refOf` gives the object of a soak key (undefined: not a soak object, ignored). */
export function checkWatcher(
  log: WatcherLog,
  acked: readonly AckedWrite[],
  refOf: (key: string) => ObjectRef | undefined,
): WatcherCheck {
  const expected: AckedWrite[] = [];
  // a delete whose window meets a skipped one may or may not be delivered: neither lost nor unexpected
  const optional: boolean[] = [];
  for (const w of acked) {
    if (!matches(log.scope, w.ref)) continue;
    if (w.type === 'DELETED') {
      if (w.after! < log.startRv) continue;
      const lo = w.after! + 1;
      const hi = (w.before ?? Number.POSITIVE_INFINITY) - 1;
      if (inGap(log.gaps, lo, hi)) {
        if (!log.gaps.some(([from, to]) => lo > from && hi <= to)) {
          expected.push(w);
          optional.push(true);
        }
        continue;
      }
    } else {
      if (w.rv! <= log.startRv) continue;
      if (inGap(log.gaps, w.rv!, w.rv!)) continue;
    }
    expected.push(w);
    optional.push(false);
  }
  const byRv = new Map<number, number>();
  const deletes = new Map<string, number[]>();
  expected.forEach((w, i) => {
    if (w.type === 'DELETED') {
      const l = deletes.get(w.key);
      if (l) l.push(i);
      else deletes.set(w.key, [i]);
    } else byRv.set(w.rv!, i);
  });
  const matched = new Uint8Array(expected.length);
  const out: WatcherCheck = {
    scope: describe(log.scope),
    expected: optional.filter((o) => !o).length,
    delivered: 0,
    lost: 0,
    duplicated: 0,
    reordered: 0,
    unexpected: 0,
    problems: [],
  };
  const problem = (s: string) => {
    if (out.problems.length < MAX_PROBLEMS) out.problems.push(s);
  };
  let last = log.startRv;
  for (const e of log.events) {
    if (e.type === 'BOOKMARK') {
      if (e.rv < last) {
        out.reordered++;
        problem(`BOOKMARK ${e.rv} after ${last}`);
      }
      last = Math.max(last, e.rv);
      continue;
    }
    if (e.rv <= last) {
      out.reordered++;
      problem(`${e.type} ${e.key} ${e.rv} after ${last}`);
    }
    last = Math.max(last, e.rv);
    if (!refOf(e.key)) continue;
    let idx: number | undefined;
    if (e.type === 'DELETED') {
      idx = deletes
        .get(e.key)
        ?.find((i) => expected[i]!.after! < e.rv && e.rv < (expected[i]!.before ?? Infinity));
    } else {
      idx = byRv.get(e.rv);
      if (idx !== undefined && (expected[idx]!.type !== e.type || expected[idx]!.key !== e.key))
        idx = undefined;
    }
    if (idx === undefined) {
      out.unexpected++;
      problem(`unexpected ${e.type} ${e.key} ${e.rv}`);
    } else if (matched[idx]) {
      out.duplicated++;
      problem(`duplicated ${e.type} ${e.key} ${e.rv}`);
    } else {
      matched[idx] = 1;
      if (!optional[idx]) out.delivered++;
    }
  }
  for (let i = 0; i < expected.length; i++) {
    if (matched[i] || optional[i]) continue;
    out.lost++;
    const w = expected[i]!;
    problem(`lost ${w.type} ${w.key} ${w.type === 'DELETED' ? `after ${w.after}` : w.rv}`);
  }
  return out;
}

export interface EventTotals {
  watchers: number;
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  reordered: number;
  unexpected: number;
  /** Watchers with any problem, with their first problems. */
  failing: WatcherCheck[];
}

export function totals(checks: WatcherCheck[]): EventTotals {
  const t: EventTotals = {
    watchers: checks.length,
    expected: 0,
    delivered: 0,
    lost: 0,
    duplicated: 0,
    reordered: 0,
    unexpected: 0,
    failing: [],
  };
  for (const c of checks) {
    t.expected += c.expected;
    t.delivered += c.delivered;
    t.lost += c.lost;
    t.duplicated += c.duplicated;
    t.reordered += c.reordered;
    t.unexpected += c.unexpected;
    if (c.lost || c.duplicated || c.reordered || c.unexpected) t.failing.push(c);
  }
  return t;
}
