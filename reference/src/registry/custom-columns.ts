// The printer columns of custom resources (the Table form): cells of the types a definition
// names, found with the simple JSONPath forms Kubernetes accepts, and ages as it prints them.
import type { PrinterColumn } from './custom-types.ts';
import type { TableColumn } from './types.ts';

export function printerColumn(c: PrinterColumn): TableColumn {
  const type = (
    ['integer', 'number', 'boolean', 'date', 'string'].includes(c.type) ? c.type : 'string'
  ) as TableColumn['type'];
  const column: TableColumn = {
    name: c.name,
    type,
    description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
    priority: c.priority ?? 0,
    cell: (o) => cellFor(type, evalJsonPath(o, c.jsonPath)),
  };
  if (c.format) column.format = c.format;
  return column;
}

function cellFor(type: string, found: { value: unknown } | undefined): unknown {
  if (!found) return null;
  const v = found.value;
  if (v === null || v === undefined) return type === 'string' ? printText(v) : null;
  switch (type) {
    case 'string':
      return printText(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const t = Date.parse(v);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || !Number.isFinite(t)) return '<invalid>';
      return humanDuration(Date.now() - t);
    }
  }
  return null;
}

function printText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A duration as Kubernetes prints ages (`45s`, `3m20s`, `5h`, `3d4h`, `2y10d`). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${Math.trunc(days / 365)}y` : `${Math.trunc(days / 365)}y${days % 365}d`;
  return `${Math.trunc(days / 365)}y`;
}

type Segment =
  | { key: string }
  | { index: number }
  | { all: true }
  | { filter: { path: string[]; value: unknown } };

/** Parses the simple JSONPath forms printer columns use: `.a.b`, `.a[0]`, `.a['k.x']`, `.a[*]`, `.a[?(@.k=="v")]`. */
export function parseJsonPath(path: string): Segment[] | undefined {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const segs: Segment[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      i++;
      let key = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') {
        if (p[i] === '\\' && i + 1 < p.length) {
          key += p[i + 1];
          i += 2;
        } else key += p[i++];
      }
      if (key) segs.push({ key });
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) return undefined;
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') segs.push({ all: true });
      else if (/^-?\d+$/.test(inner)) segs.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) segs.push({ key: inner.slice(1, -1) });
      else {
        const m = /^\?\(@((?:\.[\w-]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?|true|false))\)$/.exec(
          inner,
        );
        if (!m) return undefined;
        const value = m[2] ?? m[3] ?? JSON.parse(m[4]!);
        segs.push({ filter: { path: m[1]!.slice(1).split('.'), value } });
      }
    } else return undefined;
  }
  return segs;
}

/** The first value a simple JSONPath finds in an object (undefined when nothing matches). */
export function evalJsonPath(o: unknown, path: string): { value: unknown } | undefined {
  const segs = parseJsonPath(path);
  if (!segs) return undefined;
  let cur: unknown[] = [o];
  for (const s of segs) {
    const next: unknown[] = [];
    for (const x of cur) {
      if ('key' in s) {
        if (x !== null && typeof x === 'object' && !Array.isArray(x) && s.key in (x as object))
          next.push((x as Record<string, unknown>)[s.key]);
      } else if ('index' in s) {
        if (Array.isArray(x)) {
          const i = s.index < 0 ? x.length + s.index : s.index;
          if (i >= 0 && i < x.length) next.push(x[i]);
        }
      } else if ('all' in s) {
        if (Array.isArray(x)) next.push(...x);
        else if (x !== null && typeof x === 'object') next.push(...Object.values(x));
      } else {
        if (!Array.isArray(x)) continue;
        for (const it of x) {
          let v: unknown = it;
          for (const k of s.filter.path)
            v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
          if (v === s.filter.value) next.push(it);
        }
      }
    }
    cur = next;
  }
  return cur.length ? { value: cur[0] } : undefined;
}
