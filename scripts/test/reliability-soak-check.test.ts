// The soak's checks can fail: synthetic watch logs with a lost, a duplicated, a reordered and an
// unexplained event, a DELETED outside its window, and a growing memory series.
import { describe, expect, it } from 'vitest';
import { type AckedWrite, checkWatcher, type SeenEvent, type WatcherLog } from '../reliability/soak/check.ts';
import { flatness } from '../reliability/soak/memory.ts';
import { labelsOf, matches, type ObjectRef, type Scope, watchPath } from '../reliability/soak/scope.ts';

const ref = (ns: string, i: number): ObjectRef => ({ namespace: ns, name: `cm-${i}`, labels: labelsOf(i) });
const refs = new Map<string, ObjectRef>();
for (const ns of ['n0', 'n1']) for (let i = 0; i < 4; i++) refs.set(`${ns}/cm-${i}`, ref(ns, i));
const refOf = (k: string) => refs.get(k);

// n0/cm-0: created at 11, updated at 12, deleted (after 12) at 14, created again at 15
// n1/cm-1: created at 13
const acked: AckedWrite[] = [
  { type: 'ADDED', key: 'n0/cm-0', ref: ref('n0', 0), rv: 11 },
  { type: 'MODIFIED', key: 'n0/cm-0', ref: ref('n0', 0), rv: 12 },
  { type: 'ADDED', key: 'n1/cm-1', ref: ref('n1', 1), rv: 13 },
  { type: 'DELETED', key: 'n0/cm-0', ref: ref('n0', 0), after: 12, before: 15 },
  { type: 'ADDED', key: 'n0/cm-0', ref: ref('n0', 0), rv: 15 },
];
const all: SeenEvent[] = [
  { type: 'ADDED', key: 'n0/cm-0', rv: 11 },
  { type: 'MODIFIED', key: 'n0/cm-0', rv: 12 },
  { type: 'ADDED', key: 'n1/cm-1', rv: 13 },
  { type: 'DELETED', key: 'n0/cm-0', rv: 14 },
  { type: 'ADDED', key: 'n0/cm-0', rv: 15 },
];
const log = (
  events: SeenEvent[],
  scope: Scope = { kind: 'all' },
  gaps: [number, number][] = [],
): WatcherLog => ({
  scope,
  startRv: 10,
  events,
  gaps,
});

describe('soak event check', () => {
  it('passes the exact acknowledged history, bookmarks and objects outside the soak included', () => {
    const events: SeenEvent[] = [
      ...all.slice(0, 2),
      { type: 'BOOKMARK', key: '', rv: 12 },
      { type: 'ADDED', key: 'other/x', rv: 12.5 },
      ...all.slice(2),
    ];
    const c = checkWatcher(log(events), acked, refOf);
    expect(c).toMatchObject({
      expected: 5,
      delivered: 5,
      lost: 0,
      duplicated: 0,
      reordered: 0,
      unexpected: 0,
    });
  });

  it('flags a lost event', () => {
    const c = checkWatcher(log(all.filter((e) => e.rv !== 13)), acked, refOf);
    expect(c.lost).toBe(1);
    expect(c.problems).toContain('lost ADDED n1/cm-1 13');
  });

  it('flags a lost DELETED (one outside the window of its delete does not count)', () => {
    const events = all.map((e) => (e.type === 'DELETED' ? { ...e, rv: 16 } : e));
    const c = checkWatcher(log(events), acked, refOf);
    expect(c.lost).toBe(1);
    expect(c.unexpected).toBe(1);
  });

  it('flags a duplicated event', () => {
    const c = checkWatcher(log([...all.slice(0, 3), all[2]!, ...all.slice(3)]), acked, refOf);
    expect(c.duplicated).toBe(1);
    expect(c.lost).toBe(0);
  });

  it('flags reordered events, and a BOOKMARK that goes back', () => {
    const swapped = [all[0]!, all[2]!, all[1]!, all[3]!, all[4]!];
    const c = checkWatcher(log(swapped), acked, refOf);
    expect(c.reordered).toBe(1);
    expect(c.lost).toBe(0);
    const back = checkWatcher(
      log([...all.slice(0, 3), { type: 'BOOKMARK', key: '', rv: 11 }, ...all.slice(3)]),
      acked,
      refOf,
    );
    expect(back.reordered).toBe(1);
  });

  it('flags an event no acknowledged write in scope explains (wrong type, or outside the scope)', () => {
    const wrongType = all.map((e) => (e.rv === 12 ? { ...e, type: 'ADDED' as const } : e));
    expect(checkWatcher(log(wrongType), acked, refOf)).toMatchObject({ unexpected: 1, lost: 1 });
    const scope: Scope = { kind: 'namespace', namespace: 'n1' };
    expect(checkWatcher(log(all, scope), acked, refOf)).toMatchObject({
      expected: 1,
      delivered: 1,
      unexpected: 4,
    });
  });

  it('expects nothing inside a window skipped after a 410', () => {
    const c = checkWatcher(
      log(
        all.filter((e) => e.rv !== 12 && e.rv !== 13),
        { kind: 'all' },
        [[11, 13]],
      ),
      acked,
      refOf,
    );
    // 12 and 13 are skipped; the delete (13 or 14) may or may not come
    expect(c).toMatchObject({ expected: 2, delivered: 2, lost: 0, unexpected: 0 });
  });

  it('scopes: the predicate and the query say the same selector', () => {
    const s: Scope = {
      kind: 'labels',
      namespace: 'n0',
      labels: [
        { key: 'soak-shard', op: 'in', values: ['a', 'b'] },
        { key: 'soak-tier', op: '!=', values: ['gold'] },
      ],
    };
    expect(decodeURIComponent(watchPath(s).replace(/\+/g, ' '))).toBe(
      '/api/v1/namespaces/n0/configmaps?labelSelector=soak-shard in (a,b),soak-tier!=gold',
    );
    // cm-0: shard a, gold; cm-1: shard b, silver; cm-2: shard c, silver
    expect([0, 1, 2].map((i) => matches(s, ref('n0', i)))).toEqual([false, true, false]);
    expect(matches(s, ref('n1', 1))).toBe(false);
  });
});

describe('soak memory check', () => {
  const MB = 1024 * 1024;
  const limits = { maxPct: 25, maxBytes: 50 * MB };
  it('passes a flat series after a warm-up climb', () => {
    const s = [100, 140, 150, 152, 150, 151, 153, 150, 152, 151, 150, 152].map((x) => x * MB);
    expect(flatness(s, limits).flat).toBe(true);
  });
  it('flags a series that keeps growing', () => {
    const s = Array.from({ length: 40 }, (_, i) => (150 + i * 5) * MB);
    const f = flatness(s, limits);
    expect(f.flat).toBe(false);
    expect(f.growthBytes / MB).toBe(100);
    expect(f.growthPct).toBeGreaterThan(25);
    expect(f.slopePerSample / MB).toBeCloseTo(5);
  });
  it('needs both limits crossed, and enough samples', () => {
    // +60 MB on 1000 MB is 6 %: flat; +20 % of 100 MB is 20 MB: flat
    expect(
      flatness(
        [...Array(4).fill(1000), ...Array(4).fill(1000), ...Array(8).fill(1060)].map((x) => x * MB),
        limits,
      ).flat,
    ).toBe(true);
    expect(
      flatness(
        [...Array(8).fill(100), ...Array(8).fill(140)].map((x) => x * MB),
        limits,
      ).flat,
    ).toBe(true);
    expect(
      flatness(
        [1, 2, 3].map((x) => x * 1000 * MB),
        limits,
      ).flat,
    ).toBeUndefined();
  });
});
