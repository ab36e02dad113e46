// The checks of the crash measurement, on records only (no server): what the writers were
// told, what the watchers saw and what the server holds after the crash. Pure functions, so
// that a test can feed them a lost write or a version that goes back and see them fail.
//
// Resource versions are opaque to clients (doc1, "Resource version semantics"); the
// reference hands out integers (the write-ahead log's counter, etcd's revisions), and the
// measurement compares them as integers to see that they never go back.

export type OpKind = 'create' | 'update' | 'delete';
/**
 * acked: a 2xx answer. rejected: certainly not applied (the connection was refused, or a 404 /
 * 409 answer). uncertain: may or may not have been applied (the connection broke, a timeout,
 * a 5xx answer).
 */
export type Outcome = 'acked' | 'rejected' | 'uncertain';

export interface WriteOp {
  writer: number;
  /** The writer's sequence number of this write (each writer counts on its own). */
  seq: number;
  name: string;
  kind: OpKind;
  /** The ConfigMap data sent (create/update). */
  data?: Record<string, string>;
  /** Milliseconds (any monotonic clock) when the request left and when its answer came. */
  start: number;
  end: number;
  outcome: Outcome;
  /** The resourceVersion of the answer (acked create/update). */
  rv?: string;
  /** Which side of the fault the write started on: 0 before it, 1 after the recovery. */
  epoch: number;
  status?: number;
  message?: string;
}

export interface ObjectState {
  name: string;
  rv: string;
  data: Record<string, string>;
}

export type FindingKind =
  | 'lost'
  | 'corrupt'
  | 'resurrected'
  | 'phantom'
  | 'rv-regression'
  | 'bad-rv'
  | 'watch-gap'
  | 'watch-duplicate'
  | 'watch-order'
  | 'watch-stalled'
  | 'hung'
  | 'unclear-error'
  | 'not-recovered'
  | 'survivor-failed'
  | 'peer-diverged';

export interface Finding {
  kind: FindingKind;
  name?: string;
  detail: string;
}

/** A watch event of one of the measured objects, as a watcher received it. */
export interface SeenEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  rv: string;
  seq?: string;
}

/** One watch request of a watcher and what came of it. */
export interface WatchSegment {
  /** The resourceVersion it asked to start from. */
  from: string;
  /** The list the watcher made before this request (after a 410): its items and version. */
  relist?: { rv: string; objects: ObjectState[] };
  /** HTTP status of the answer; undefined when no answer came (refused, reset). */
  status?: number;
  /** 'gone': a 410 (status or ERROR event); 'error': another failure; 'ended': the stream closed. */
  outcome: 'ended' | 'gone' | 'error';
  message?: string;
  events: SeenEvent[];
}

export interface WatcherLog {
  id: number;
  segments: WatchSegment[];
}

/** Compares two resourceVersions as integers; undefined when one is not an integer. */
export function rvCompare(a: string, b: string): number | undefined {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const sameData = (a: Record<string, string> | undefined, b: Record<string, string> | undefined) =>
  JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());

/**
 * (a) Every acknowledged create/update is there with its resourceVersion, or with a later
 * write of the same writer that was in flight (unacknowledged writes may or may not have been
 * applied; when applied they must be intact); acknowledged deletes are gone.
 * `baseline`: the objects when the writes began (verified before); `ops`: every write since.
 */
export function verifyObjects(
  baseline: Map<string, ObjectState>,
  ops: WriteOp[],
  observed: ObjectState[],
): Finding[] {
  const findings: Finding[] = [];
  const byName = new Map<string, WriteOp[]>();
  for (const op of ops) {
    const list = byName.get(op.name) ?? [];
    list.push(op);
    byName.set(op.name, list);
  }
  const seen = new Map(observed.map((o) => [o.name, o]));
  const names = new Set([...baseline.keys(), ...byName.keys(), ...seen.keys()]);
  for (const name of names) {
    const mine = (byName.get(name) ?? []).slice().sort((a, b) => a.seq - b.seq);
    let last = -1;
    for (let i = 0; i < mine.length; i++) if (mine[i]!.outcome === 'acked') last = i;
    const lastAcked = last >= 0 ? mine[last]! : undefined;
    // what the last acknowledged write (or the baseline) left
    const expected: ObjectState | undefined = lastAcked
      ? lastAcked.kind === 'delete'
        ? undefined
        : { name, rv: lastAcked.rv ?? '', data: lastAcked.data ?? {} }
      : baseline.get(name);
    const inFlight = mine.slice(last + 1).filter((op) => op.outcome === 'uncertain');
    const got = seen.get(name);
    const what = lastAcked
      ? `acknowledged ${lastAcked.kind} (writer ${lastAcked.writer} seq ${lastAcked.seq}${lastAcked.rv ? ` rv ${lastAcked.rv}` : ''})`
      : 'the state before the writes';
    if (!got) {
      if (expected && !inFlight.some((op) => op.kind === 'delete'))
        findings.push({ kind: 'lost', name, detail: `${what} is missing: the object is gone` });
      continue;
    }
    if (expected && got.rv === expected.rv) {
      if (!sameData(got.data, expected.data))
        findings.push({
          kind: 'corrupt',
          name,
          detail: `rv ${got.rv} holds ${JSON.stringify(got.data)}, ${what} wrote ${JSON.stringify(expected.data)}`,
        });
      continue;
    }
    const flight = inFlight.find((op) => op.kind !== 'delete' && String(op.seq) === got.data.seq);
    if (flight) {
      if (!sameData(got.data, flight.data))
        findings.push({
          kind: 'corrupt',
          name,
          detail: `unacknowledged write seq ${flight.seq} applied but holds ${JSON.stringify(got.data)}`,
        });
      if (expected && rvCompare(got.rv, expected.rv) !== 1)
        findings.push({
          kind: 'rv-regression',
          name,
          detail: `unacknowledged write seq ${flight.seq} applied at rv ${got.rv}, not after ${what}`,
        });
      continue;
    }
    if (expected)
      findings.push({
        kind: 'lost',
        name,
        detail: `${what} is missing: found rv ${got.rv} seq ${got.data.seq ?? '?'}`,
      });
    else
      findings.push({
        kind: mine.length || baseline.has(name) ? 'resurrected' : 'phantom',
        name,
        detail: `${what} left no object, found rv ${got.rv} seq ${got.data.seq ?? '?'}`,
      });
  }
  return findings;
}

/**
 * (b) Resource versions never go back: every acknowledged write that started after the fault
 * (epoch 1) has a larger version than every one acknowledged before it (epoch 0); any write
 * that started after another was acknowledged has a larger version; the list after the fault
 * is not older than any acknowledged write, and none of its items is newer than the list.
 */
export function verifyVersions(ops: WriteOp[], list: { rv: string; objects: ObjectState[] }): Finding[] {
  const findings: Finding[] = [];
  const acked = ops.filter((op) => op.outcome === 'acked' && op.rv !== undefined);
  for (const op of acked)
    if (rvCompare(op.rv!, op.rv!) === undefined)
      findings.push({
        kind: 'bad-rv',
        name: op.name,
        detail: `acknowledged rv "${op.rv}" is not an integer`,
      });
  const ok = acked.filter((op) => rvCompare(op.rv!, op.rv!) !== undefined);
  const maxOf = (xs: WriteOp[]) =>
    xs.reduce<WriteOp | undefined>((m, op) => (!m || rvCompare(op.rv!, m.rv!)! > 0 ? op : m), undefined);
  const before = maxOf(ok.filter((op) => op.epoch === 0));
  if (before) {
    const after = ok.filter((op) => op.epoch > 0).sort((a, b) => a.start - b.start);
    for (const op of after)
      if (rvCompare(op.rv!, before.rv!)! <= 0)
        findings.push({
          kind: 'rv-regression',
          name: op.name,
          detail: `${after[0] === op ? 'first ' : ''}write after the fault got rv ${op.rv}, not above ${before.rv} acknowledged before it`,
        });
  }
  // real-time order: a write that began after another's answer must get a larger version
  const byEnd = ok.slice().sort((a, b) => a.end - b.end);
  const byStart = ok.slice().sort((a, b) => a.start - b.start);
  let i = 0;
  let maxDone: WriteOp | undefined;
  for (const op of byStart) {
    while (i < byEnd.length && byEnd[i]!.end < op.start) {
      const d = byEnd[i++]!;
      if (!maxDone || rvCompare(d.rv!, maxDone.rv!)! > 0) maxDone = d;
    }
    if (maxDone && rvCompare(op.rv!, maxDone.rv!)! <= 0 && !(op.epoch > 0 && maxDone.epoch === 0))
      findings.push({
        kind: 'rv-regression',
        name: op.name,
        detail: `write seq ${op.seq} of writer ${op.writer} got rv ${op.rv} though rv ${maxDone.rv} was acknowledged before it began`,
      });
  }
  const top = maxOf(ok);
  if (rvCompare(list.rv, list.rv) === undefined)
    findings.push({ kind: 'bad-rv', detail: `list rv "${list.rv}" is not an integer` });
  else {
    if (top && rvCompare(list.rv, top.rv!)! < 0)
      findings.push({
        kind: 'rv-regression',
        detail: `list rv ${list.rv} is older than the acknowledged rv ${top.rv}`,
      });
    for (const o of list.objects)
      if (rvCompare(o.rv, list.rv) === undefined || rvCompare(o.rv, list.rv)! > 0)
        findings.push({
          kind: 'rv-regression',
          name: o.name,
          detail: `item rv ${o.rv} is not within the list rv ${list.rv}`,
        });
  }
  return findings;
}

export interface WatchCheck {
  findings: Finding[];
  /** Reconnections that went on from the last version seen. */
  resumed: number;
  /** Watch requests answered 410 Gone (status or ERROR event). */
  gone: number;
}

/**
 * (c) A watcher's events, replayed on the list it started from (or the list it made after a
 * 410), come in increasing version order without duplicates or gaps and end in the final
 * state; a watcher that never met a 410 saw every acknowledged change of the run.
 */
export function verifyWatcher(
  log: WatcherLog,
  start: { rv: string; objects: ObjectState[] },
  final: ObjectState[],
  ops: WriteOp[],
): WatchCheck {
  const findings: Finding[] = [];
  const tag = `watcher ${log.id}`;
  const view = new Map(start.objects.map((o) => [o.name, o.rv]));
  let last = start.rv;
  let resumed = 0;
  let gone = 0;
  const seen = new Set<string>();
  const deletes = new Map<string, number>();
  log.segments.forEach((seg, i) => {
    if (seg.relist) {
      view.clear();
      for (const o of seg.relist.objects) view.set(o.name, o.rv);
      last = seg.relist.rv;
    }
    if (seg.from !== last)
      findings.push({
        kind: 'watch-order',
        detail: `${tag} asked from rv ${seg.from}, last seen was ${last}`,
      });
    if (seg.outcome === 'gone') gone++;
    else if (i > 0 && !seg.relist && seg.status === 200) resumed++;
    for (const ev of seg.events) {
      const c = rvCompare(ev.rv, last);
      if (c === undefined || c <= 0) {
        findings.push({
          kind: c === 0 ? 'watch-duplicate' : 'watch-order',
          name: ev.name,
          detail: `${tag}: ${ev.type} at rv ${ev.rv} after rv ${last}`,
        });
        continue;
      }
      last = ev.rv;
      const present = view.has(ev.name);
      if (ev.type === 'ADDED' && present)
        findings.push({
          kind: 'watch-duplicate',
          name: ev.name,
          detail: `${tag}: ADDED at rv ${ev.rv} of an object it had`,
        });
      if (ev.type !== 'ADDED' && !present)
        findings.push({
          kind: 'watch-gap',
          name: ev.name,
          detail: `${tag}: ${ev.type} at rv ${ev.rv} of an object it never saw added`,
        });
      if (ev.type === 'DELETED') {
        view.delete(ev.name);
        deletes.set(ev.name, (deletes.get(ev.name) ?? 0) + 1);
      } else view.set(ev.name, ev.rv);
      seen.add(`${ev.name}@${ev.rv}`);
    }
  });
  const want = new Map(final.map((o) => [o.name, o.rv]));
  for (const [name, rv] of want)
    if (view.get(name) !== rv)
      findings.push({
        kind: 'watch-gap',
        name,
        detail: `${tag} ends with ${view.has(name) ? `rv ${view.get(name)}` : 'no object'}, the list has rv ${rv}`,
      });
  for (const [name, rv] of view)
    if (!want.has(name))
      findings.push({ kind: 'watch-gap', name, detail: `${tag} ends with rv ${rv}, the list has no object` });
  if (gone === 0) {
    const ackedDeletes = new Map<string, number>();
    for (const op of ops) {
      if (op.outcome !== 'acked') continue;
      if (op.kind === 'delete') ackedDeletes.set(op.name, (ackedDeletes.get(op.name) ?? 0) + 1);
      else if (op.rv && rvCompare(op.rv, start.rv) === 1 && !seen.has(`${op.name}@${op.rv}`))
        findings.push({
          kind: 'watch-gap',
          name: op.name,
          detail: `${tag} never saw the acknowledged ${op.kind} at rv ${op.rv}`,
        });
    }
    for (const [name, n] of ackedDeletes)
      if ((deletes.get(name) ?? 0) < n)
        findings.push({
          kind: 'watch-gap',
          name,
          detail: `${tag} saw ${deletes.get(name) ?? 0} of ${n} acknowledged deletes`,
        });
  }
  return { findings, resumed, gone };
}
