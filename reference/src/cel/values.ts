// JSON values of a custom resource as expressions see them, by declared type: integers as
// bigint, message nodes as their declared class (escaped field names, unreachable fields left
// out), maps as Map, byte strings decoded, date-times as timestamps, durations as durations.
// A value that does not fit its format stays as it is (schema validation reports it).
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { parseDuration } from '../util/duration.ts';
import { markList } from './list-types.ts';
import type { DeclType } from './types.ts';

export function toCel(v: unknown, t: DeclType | undefined): unknown {
  if (v === null || v === undefined) return v;
  if (!t) return generic(v);
  switch (t.kind) {
    case 'message': {
      if (typeof v !== 'object' || Array.isArray(v)) return generic(v);
      const m = new t.ctor!();
      for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
        const f = t.fields!.get(k);
        // a null of a typed field reads as absent (has() is false), not as a value of another type
        if (!f || val === undefined || (val === null && f.type.kind !== 'dyn')) continue;
        m.set(f.cel, toCel(val, f.type));
      }
      return m;
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return generic(v);
      const m = new Map<string, unknown>();
      for (const [k, val] of Object.entries(v as Record<string, unknown>)) m.set(k, toCel(val, t.elem));
      return m;
    }
    case 'list': {
      if (!Array.isArray(v)) return generic(v);
      const list = v.map((x) => toCel(x, t.elem));
      return t.listType ? markList(list, t.listType) : list;
    }
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
    case 'double':
      return v;
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    case 'timestamp': {
      if (typeof v !== 'string') return v;
      const d = new Date(v);
      return Number.isNaN(d.getTime()) ? v : d;
    }
    case 'duration':
      return typeof v === 'string' ? (celDuration(v) ?? v) : v;
    case 'dyn':
      return generic(v);
    default:
      return v;
  }
}

/** A value without a declared structure: integral numbers as int, objects as maps. */
function generic(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(generic);
  if (v !== null && typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) m.set(k, generic(val));
    return m;
  }
  return v;
}

/** A Go duration string (`1h30m`, `-1.5s`, `0`), as Go's time.ParseDuration reads it (util/duration.ts). */
export function celDuration(s: string): Duration | undefined {
  const nanos = parseDuration(s);
  if (nanos === undefined) return undefined;
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}
