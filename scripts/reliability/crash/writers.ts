// The writers of the crash measurement: each one creates, updates and deletes ConfigMaps of its
// own names, one request at a time, and records every write with what came of it. The data of
// each write names its writer and sequence number, so that an object found after a crash tells
// which write left it.
import { call, describe, NoAnswer, type Target } from './client.ts';
import type { ObjectState, OpKind, Outcome, WriteOp } from './verify.ts';

export const PREFIX = 'crash-w';
/** Names each writer owns. */
export const NAMES_PER_WRITER = 3;

export const nameOf = (writer: number, k: number) => `${PREFIX}${writer}-${k}`;

/** The data of a write: deterministic from writer and sequence number (checked whole after a crash). */
export function payload(writer: number, seq: number, name: string): Record<string, string> {
  const body = `${name}/${writer}/${seq}/`;
  return { writer: String(writer), seq: String(seq), body: body.repeat(Math.ceil(256 / body.length)) };
}

export type Presence = 'present' | 'absent' | 'unknown';

export interface WriterOptions {
  count: number;
  namespace: string;
  /** Where the writes go (read before each write: it may change while they run). */
  target: () => Target;
  /** Which side of the fault a write starts on (read before each write). */
  epoch: () => number;
  /** Sequence numbers go on from here (they stay unique across rounds). */
  seqFrom: number;
  /** What each name is now (from the verified list). */
  state: Map<string, Presence>;
  random: () => number;
  /** Deadline of one request (a write that takes longer counts as hung). */
  timeoutMs: number;
  /** Pause after a write that was not acknowledged. */
  backoffMs?: number;
}

export interface Writers {
  ops: WriteOp[];
  /** Acknowledged writes so far, per epoch. */
  acked(epoch?: number): number;
  /** Not-acknowledged answers and errors, "<description>" -> count. */
  failures: Map<string, number>;
  /** The longest time a write waited for its answer, in ms. */
  maxLatencyMs(outcome?: Outcome): number;
  /** Stops starting writes; resolves when every writer's last write has its answer. */
  stop(): Promise<void>;
  nextSeq(): number;
}

export function startWriters(o: WriterOptions): Writers {
  const ops: WriteOp[] = [];
  const failures = new Map<string, number>();
  let stopped = false;
  let seq = o.seqFrom;
  // counted without the object's name, so that the same answer counts as one kind
  const fail = (what: string) => {
    const kind = what.replace(/"crash-[^"]*"/g, '"<name>"');
    failures.set(kind, (failures.get(kind) ?? 0) + 1);
  };
  const base = `/api/v1/namespaces/${o.namespace}/configmaps`;
  const one = async (writer: number) => {
    const name = nameOf(writer, Math.floor(o.random() * NAMES_PER_WRITER));
    const now = o.state.get(name) ?? 'absent';
    const r = o.random();
    const kind: OpKind =
      now === 'absent'
        ? 'create'
        : now === 'present'
          ? r < 0.75
            ? 'update'
            : 'delete'
          : r < 0.5
            ? 'create'
            : 'update';
    const s = ++seq;
    const data = kind === 'delete' ? undefined : payload(writer, s, name);
    const body = data && { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
    const op: WriteOp = {
      writer,
      seq: s,
      name,
      kind,
      data,
      start: performance.now(),
      end: 0,
      outcome: 'uncertain',
      epoch: o.epoch(),
    };
    const t = o.target();
    try {
      const a =
        kind === 'create'
          ? await call(t, 'POST', base, body, o.timeoutMs)
          : kind === 'update'
            ? await call(t, 'PUT', `${base}/${name}`, body, o.timeoutMs)
            : await call(t, 'DELETE', `${base}/${name}`, undefined, o.timeoutMs);
      op.status = a.status;
      if (a.status >= 200 && a.status < 300) {
        op.outcome = 'acked';
        if (kind !== 'delete') op.rv = a.json?.metadata?.resourceVersion;
        o.state.set(name, kind === 'delete' ? 'absent' : 'present');
      } else {
        op.message = describe(a);
        fail(op.message);
        if (a.status === 409 && kind === 'create') {
          op.outcome = 'rejected';
          o.state.set(name, 'present');
        } else if (a.status === 404 && kind !== 'create') {
          op.outcome = 'rejected';
          o.state.set(name, 'absent');
        } else o.state.set(name, 'unknown');
      }
    } catch (e) {
      const refused = e instanceof NoAnswer && e.refused;
      op.outcome = refused ? 'rejected' : 'uncertain';
      op.message = refused ? 'connection refused' : `no answer: ${(e as Error).message.slice(0, 160)}`;
      fail(refused ? 'connection refused' : 'no answer (connection broken or timed out)');
      if (!refused) o.state.set(name, 'unknown');
    }
    op.end = performance.now();
    ops.push(op);
    if (op.outcome !== 'acked') await new Promise((res) => setTimeout(res, o.backoffMs ?? 50));
  };
  const loops = Array.from({ length: o.count }, async (_, writer) => {
    while (!stopped) await one(writer);
  });
  return {
    ops,
    failures,
    acked: (epoch) =>
      ops.filter((op) => op.outcome === 'acked' && (epoch === undefined || op.epoch === epoch)).length,
    maxLatencyMs: (outcome) =>
      ops.reduce((m, op) => (outcome && op.outcome !== outcome ? m : Math.max(m, op.end - op.start)), 0),
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
    nextSeq: () => seq + 1,
  };
}

/** The presence of every writer's names in a list of measured objects. */
export function presenceOf(objects: ObjectState[], writers: number): Map<string, Presence> {
  const m = new Map<string, Presence>();
  for (let w = 0; w < writers; w++) for (let k = 0; k < NAMES_PER_WRITER; k++) m.set(nameOf(w, k), 'absent');
  for (const o of objects) m.set(o.name, 'present');
  return m;
}
