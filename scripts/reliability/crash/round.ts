// One round of the crash measurement: watchers and writers start, a fault strikes after a
// random delay, the backend recovers, the writers go on, and the records are checked.
//   server-kill  kill -9 of the (only or first) server, then a restart on the same data
//   etcd-kill    kill -9 of etcd under load; the writes go on against the server meanwhile
//                (what they are answered is recorded), then etcd restarts
//   peer-kill    two servers on one etcd: writes go to the first, kill -9 of the second (the
//                watchers' endpoint, which then move to the first); the first must keep serving
import type { Backend } from '../server.ts';
import { call, describe, NoAnswer, type Target } from './client.ts';
import {
  type Finding,
  verifyObjects,
  verifyVersions,
  verifyWatcher,
  type ObjectState,
  type WriteOp,
} from './verify.ts';
import { measuredObjects, startWatchers } from './watchers.ts';
import { payload, presenceOf, startWriters, type Writers } from './writers.ts';

export type Phase = 'server-kill' | 'etcd-kill' | 'peer-kill';

export const NAMESPACE = 'crash';
export const SENTINEL = 'crash-sentinel';
export const measured = (name: unknown) => typeof name === 'string' && name.startsWith('crash-');

export interface CrashContext {
  backend: Backend;
  writers: number;
  watchers: number;
  random: () => number;
  /** The last sequence number used (they stay unique across rounds). */
  seq: number;
  /** Deadline of one write: a write without an answer by then counts as hung. */
  timeoutMs: number;
  /** How long the backend may take to answer /readyz 200 again after the fault. */
  recoverWithinMs: number;
  /** How long the writes go on while etcd is down (etcd-kill). */
  etcdDownMs: number;
}

export interface RoundResult {
  phase: Phase;
  round: number;
  delayMs: number;
  acked: number;
  uncertain: number;
  rejected: number;
  resumed: number;
  gone: number;
  /**
   * To /readyz 200 and a write acknowledged again: from the kill (server-kill), from etcd's
   * restart (etcd-kill), from the killed server's restart (peer-kill).
   */
  recoveryMs: number;
  findings: Finding[];
  /** What the writes that were not acknowledged were answered: "<code> <reason>: <message>" -> count. */
  failures: Record<string, number>;
  /** Writes not acknowledged (uncertain) whose data is in the final list (allowed either way). */
  unackedApplied: number;
  /** What those were answered, "<answer>" -> count. */
  unackedAppliedAnswers: Record<string, number>;
  /** etcd-kill: the /readyz answers while etcd was down, "<code>" -> count. */
  readyzWhileDown?: Record<string, number>;
  /** etcd-kill: the longest a write took to be answered while etcd was down (ms). */
  maxFailedWriteMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const target = (s: Target): Target => ({ url: s.url, token: s.token });

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

/** The measured objects and the list's version; retried until the server answers 200. */
export async function listMeasured(
  t: Target,
  query = '',
  ms = 30_000,
): Promise<{ rv: string; objects: ObjectState[] }> {
  const end = Date.now() + ms;
  let last = '';
  for (;;) {
    try {
      const a = await call(t, 'GET', `/api/v1/namespaces/${NAMESPACE}/configmaps${query}`, undefined, 10_000);
      if (a.status === 200)
        return { rv: a.json.metadata.resourceVersion, objects: measuredObjects(a.json, measured) };
      last = describe(a);
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > end) throw new Error(`no list from ${t.url} within ${ms} ms: ${last}`);
    await sleep(100);
  }
}

/** Answers once /readyz says 200 (true), or false after `ms`. */
export async function readyAgain(t: Target, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if ((await call(t, 'GET', '/readyz', undefined, 2_000)).status === 200) return true;
    } catch {
      // not up yet
    }
    if (Date.now() > end) return false;
    await sleep(50);
  }
}

/** Creates the namespace the measurement writes in (once per backend). */
export async function ensureNamespace(t: Target): Promise<void> {
  const a = await call(t, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  if (a.status !== 201 && a.status !== 409)
    throw new Error(`cannot create namespace ${NAMESPACE}: ${describe(a)}`);
}

/** Writes the sentinel (a measured object) until acknowledged; every attempt is a recorded write. */
async function writeSentinel(
  t: Target,
  exists: boolean,
  ctx: CrashContext,
  epoch: number,
): Promise<WriteOp[]> {
  const ops: WriteOp[] = [];
  const end = Date.now() + 30_000;
  const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  while (Date.now() < end) {
    const seq = ++ctx.seq;
    const data = payload(-1, seq, SENTINEL);
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: SENTINEL }, data };
    const kind = exists ? 'update' : 'create';
    const op: WriteOp = {
      writer: -1,
      seq,
      name: SENTINEL,
      kind,
      data,
      start: performance.now(),
      end: 0,
      outcome: 'uncertain',
      epoch,
    };
    try {
      const a = exists
        ? await call(t, 'PUT', `${base}/${SENTINEL}`, body, ctx.timeoutMs)
        : await call(t, 'POST', base, body, ctx.timeoutMs);
      op.status = a.status;
      if (a.status === 200 || a.status === 201) {
        op.outcome = 'acked';
        op.rv = a.json?.metadata?.resourceVersion;
      } else {
        op.message = describe(a);
        if (a.status === 409 && !exists) {
          op.outcome = 'rejected';
          exists = true;
        } else if (a.status === 404 && exists) {
          op.outcome = 'rejected';
          exists = false;
        }
      }
    } catch (e) {
      op.message = (e as Error).message;
      if (e instanceof NoAnswer && e.refused) op.outcome = 'rejected';
    }
    op.end = performance.now();
    ops.push(op);
    if (op.outcome === 'acked') break;
    await sleep(100);
  }
  return ops;
}

export async function runRound(ctx: CrashContext, phase: Phase, round: number): Promise<RoundResult> {
  const [first, second] = ctx.backend.servers;
  const writeTo = target(first!);
  const victim = phase === 'peer-kill' ? second! : first!;
  const findings: Finding[] = [];
  const start = await listMeasured(writeTo);
  const baseline = new Map(start.objects.map((o) => [o.name, o]));
  const state = presenceOf(start.objects, ctx.writers);
  const watchOn = phase === 'peer-kill' ? [target(second!), writeTo] : [writeTo];
  const watchers = startWatchers({
    count: ctx.watchers,
    namespace: NAMESPACE,
    targets: () => watchOn,
    start: start.rv,
    measured,
  });
  if (!(await watchers.connected(15_000)))
    findings.push({ kind: 'watch-stalled', detail: 'not every watcher had its watch answered within 15 s' });
  let epoch = 0;
  const writers = (seqFrom: number): Writers =>
    startWriters({
      count: ctx.writers,
      namespace: NAMESPACE,
      target: () => writeTo,
      epoch: () => epoch,
      seqFrom,
      state,
      random: ctx.random,
      timeoutMs: ctx.timeoutMs,
    });
  const before = writers(ctx.seq);
  const delayMs = 100 + Math.floor(ctx.random() * 1400);
  await sleep(delayMs);
  const t0 = performance.now();
  let recoveredAt = t0;
  let readyzWhileDown: Record<string, number> | undefined;
  let recovered = true;
  if (phase === 'server-kill') {
    await victim.kill9();
    await before.stop();
    epoch = 1;
    await victim.restart();
    recovered = await readyAgain(writeTo, ctx.recoverWithinMs);
  } else if (phase === 'etcd-kill') {
    const etcd = ctx.backend.etcd!;
    await etcd.kill();
    readyzWhileDown = {};
    const downUntil = performance.now() + ctx.etcdDownMs;
    while (performance.now() < downUntil) {
      let code: string;
      try {
        code = String((await call(writeTo, 'GET', '/readyz', undefined, 5_000)).status);
      } catch (e) {
        code = `no answer (${(e as Error).message.slice(0, 60)})`;
      }
      readyzWhileDown[code] = (readyzWhileDown[code] ?? 0) + 1;
      await sleep(250);
    }
    await before.stop();
    epoch = 1;
    await etcd.restart();
    recoveredAt = performance.now();
    recovered = await readyAgain(writeTo, ctx.recoverWithinMs);
  } else {
    await victim.kill9();
    // the survivor goes on serving the writers for a while
    await sleep(1000);
    await before.stop();
    for (const op of before.ops)
      if (op.start > t0 && op.outcome !== 'acked')
        findings.push({
          kind: 'survivor-failed',
          name: op.name,
          detail: `write to the surviving server failed: ${op.message ?? op.status}`,
        });
    epoch = 1;
    recoveredAt = performance.now();
    await victim.restart();
    recovered = await readyAgain(target(victim), ctx.recoverWithinMs);
  }
  const after = writers(before.nextSeq() - 1);
  const wrote = await until(() => after.acked() > 0, ctx.recoverWithinMs);
  const recoveryMs = performance.now() - recoveredAt;
  if (!recovered || !wrote)
    findings.push({
      kind: 'not-recovered',
      detail: `${recovered ? '' : `/readyz was not 200 within ${ctx.recoverWithinMs} ms; `}${wrote ? '' : 'no write was acknowledged after the recovery'}`,
    });
  // every writer gets a write acknowledged after the fault (or the time is up)
  await until(
    () =>
      new Set(after.ops.filter((op) => op.outcome === 'acked').map((op) => op.writer)).size >= ctx.writers,
    10_000,
  );
  await after.stop();
  ctx.seq = after.nextSeq() - 1;
  const sentinel = await writeSentinel(writeTo, baseline.has(SENTINEL), ctx, 1);
  const mark = sentinel.at(-1);
  if (mark?.outcome === 'acked' && mark.rv) {
    if (!(await watchers.caughtUp(mark.rv, 15_000)))
      findings.push({ kind: 'watch-stalled', detail: `not every watcher saw rv ${mark.rv} within 15 s` });
  } else
    findings.push({
      kind: 'not-recovered',
      detail: `the sentinel write was not acknowledged: ${mark?.message}`,
    });
  await watchers.stop();
  const final = await listMeasured(writeTo);
  const ops = [...before.ops, ...after.ops, ...sentinel];
  findings.push(...verifyObjects(baseline, ops, final.objects), ...verifyVersions(ops, final));
  let resumed = 0;
  let gone = 0;
  for (const log of watchers.logs) {
    const w = verifyWatcher(log, start, final.objects, ops);
    findings.push(...w.findings);
    resumed += w.resumed;
    gone += w.gone;
  }
  for (const op of ops) {
    if (op.outcome !== 'acked' && op.status === undefined && op.end - op.start >= ctx.timeoutMs - 100)
      findings.push({
        kind: 'hung',
        name: op.name,
        detail: `no answer within ${ctx.timeoutMs} ms (${op.kind} seq ${op.seq})`,
      });
    if (op.message?.includes('(not a Status)'))
      findings.push({ kind: 'unclear-error', name: op.name, detail: op.message });
  }
  if (phase === 'peer-kill') {
    // the restarted server serves the same objects
    const other = await listMeasured(
      target(victim),
      `?resourceVersion=${final.rv}&resourceVersionMatch=NotOlderThan`,
    );
    const a = JSON.stringify(final.objects.map((o) => [o.name, o.rv]));
    const b = JSON.stringify(other.objects.map((o) => [o.name, o.rv]));
    if (a !== b)
      findings.push({ kind: 'peer-diverged', detail: `restarted server lists ${b}, the survivor ${a}` });
  }
  const failures: Record<string, number> = {};
  for (const w of [before, after]) for (const [k, n] of w.failures) failures[k] = (failures[k] ?? 0) + n;
  for (const op of sentinel) if (op.message) failures[op.message] = (failures[op.message] ?? 0) + 1;
  const count = (o: WriteOp['outcome']) => ops.filter((op) => op.outcome === o).length;
  const finalSeq = new Map(final.objects.map((o) => [o.name, o.data.seq]));
  const applied = ops.filter(
    (op) => op.outcome === 'uncertain' && op.kind !== 'delete' && finalSeq.get(op.name) === String(op.seq),
  );
  const unackedApplied = applied.length;
  const unackedAppliedAnswers: Record<string, number> = {};
  for (const op of applied) {
    const k = (op.message ?? String(op.status)).replace(/"crash-[^"]*"/g, '"<name>"');
    unackedAppliedAnswers[k] = (unackedAppliedAnswers[k] ?? 0) + 1;
  }
  const result: RoundResult = {
    phase,
    round,
    delayMs,
    acked: count('acked'),
    uncertain: count('uncertain'),
    rejected: count('rejected'),
    unackedApplied,
    unackedAppliedAnswers,
    resumed,
    gone,
    recoveryMs: Math.round(recoveryMs),
    findings,
    failures,
  };
  if (phase === 'etcd-kill') {
    result.readyzWhileDown = readyzWhileDown;
    result.maxFailedWriteMs = Math.round(
      before.ops
        .filter((op) => op.start >= t0 && op.outcome !== 'acked')
        .reduce((m, op) => Math.max(m, op.end - op.start), 0),
    );
  }
  return result;
}
