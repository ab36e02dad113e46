// doc1 § Events and § Watch recovery, property-based: for any sequence of writes (create,
// update, patch, delete on a few names, in a fresh namespace per run) the watch stream is the
// writes, one event each, in order; a watch restarted from the last version received loses
// nothing and repeats nothing; a client that relists (after a 410 or not) and watches from the
// list's version reaches the same state. Versions are compared for equality only. fast-check
// prints the seed and path of a failure (replay with --seed); inputs worth running every time
// (edges, and counterexamples once found) are in EDGES and run first.
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { expiredVersion } from '../../harness/src/retention.ts';
import { propertySettings } from '../../harness/src/session.ts';
import type { WatchEvent, WatchStream } from '../../harness/src/watch.ts';
import {
  checkEvents,
  type Data,
  type Expected,
  isBookmark,
  isDeletionType,
  lines,
  nameOf,
  type Room,
  readGone,
  readUntil,
  readUntilObject,
  rvOf,
  withRoom,
} from './support.ts';

const RUNS = 12;

type How = 'put' | 'merge' | 'json' | 'strategic';
interface Op {
  name: 'a' | 'b' | 'c';
  /** write: create when absent, else update (PUT) or patch; delete: when present. */
  kind: 'write' | 'delete';
  how: How;
  data: Data;
}

const dataArb: fc.Arbitrary<Data> = fc.dictionary(
  fc.constantFrom('v', 'w'),
  fc.stringMatching(/^[a-z0-9]{1,4}$/),
  {
    maxKeys: 2,
  },
);
const opArb: fc.Arbitrary<Op> = fc.record({
  name: fc.constantFrom('a' as const, 'b' as const, 'c' as const),
  kind: fc.constantFrom('write' as const, 'write' as const, 'delete' as const),
  how: fc.constantFrom('put' as const, 'merge' as const, 'json' as const, 'strategic' as const),
  data: dataArb,
});
const opsArb = fc.array(opArb, { minLength: 1, maxLength: 12 });

/** Rounds of writes issued at once, each round on distinct names (so none conflicts). */
type Round = { name: string; kind: 'write' | 'delete'; data: Data }[];
const roundsArb: fc.Arbitrary<Round[]> = fc.array(
  fc.uniqueArray(
    fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      kind: fc.constantFrom('write' as const, 'write' as const, 'delete' as const),
      data: dataArb,
    }),
    { selector: (x) => x.name, minLength: 1, maxLength: 5 },
  ),
  { minLength: 1, maxLength: 4 },
);

const w = (name: Op['name'], data: Data, how: How = 'put'): Op => ({ name, kind: 'write', how, data });
const del = (name: Op['name']): Op => ({ name, kind: 'delete', how: 'put', data: {} });

/** Sequences worth running every time: the edges of the model. */
const EDGES: Op[][] = [
  [w('a', { v: '1' })], // one create
  [w('a', { v: '1' }), del('a'), w('a', { v: '2' })], // a name reused after deletion
  [w('a', { v: '1' }), w('a', { v: '1' }), w('a', { v: '1' }, 'merge')], // updates that change nothing
  [w('a', {}), w('a', { v: '1', w: '2' }, 'json'), w('a', { w: '3' }, 'merge'), w('a', {}, 'strategic')], // keys added and removed
  [w('a', { v: '1' }), w('b', { v: '1' }), w('c', { v: '1' }), del('b'), del('a'), del('c')], // back to empty
  [del('a'), del('b')], // deletes of absent names: no write at all
];

/** Applies one op to the room; a delete of an absent name writes nothing. */
async function apply(room: Room, op: Op): Promise<void> {
  const present = room.objects.has(op.name);
  if (op.kind === 'delete') {
    if (present) await room.remove(op.name);
    return;
  }
  if (!present) await room.create(op.name, op.data);
  else if (op.how === 'put') await room.update(op.name, op.data);
  else await room.patch(op.name, op.data, op.how);
}

/** Reads until `n` change events of the room's objects have come (BOOKMARKs and other objects' events left out). */
async function readChanges(room: Room, s: WatchStream, n: number): Promise<WatchEvent[]> {
  if (n === 0) return [];
  let seen = 0;
  const mine = (e: WatchEvent) => !isBookmark(e) && room.mine([e]).length > 0;
  const read = await readUntil(s, (e) => mine(e) && ++seen === n, `${n} change events`);
  return read.filter(mine);
}

/** A client's cache fed by events; an event that does not fit the cache is a gap or a repeat. */
function feed(cache: Map<string, Data>, events: WatchEvent[], all: WatchEvent[]): void {
  for (const e of events) {
    const n = String(nameOf(e));
    const known = cache.has(n);
    if (e.type === 'ADDED')
      check(!known, `no ADDED event for ${n}, already in the cache (a repeat)`, lines(all));
    else if (e.type === 'MODIFIED')
      check(known, `no MODIFIED event for ${n}, absent from the cache (a gap)`, lines(all));
    else if (isDeletionType(e.type))
      check(known, `no deletion of ${n}, absent from the cache (a gap)`, lines(all));
    else check(false, 'only change events', lines(all));
    if (isDeletionType(e.type)) cache.delete(n);
    else cache.set(n, { ...(e.object?.data ?? {}) });
  }
}

function sameState(cache: Map<string, Data>, room: Room, why: string, events: WatchEvent[]): void {
  const want = Object.fromEntries([...room.state()].sort());
  const got = Object.fromEntries([...cache].sort());
  check(
    JSON.stringify(got) === JSON.stringify(want),
    `the state ${show(want)}`,
    `${show(got)} after ${lines(events)}`,
    why,
  );
}

/** A relist: the list's version, and a cache of the room's own objects in it. */
async function listState(room: Room): Promise<{ rv: string; cache: Map<string, Data> }> {
  const l = await room.client.get(room.path);
  checkStatus(l, 200, undefined, 'relist: list the collection');
  const rv = l.json?.metadata?.resourceVersion;
  check(typeof rv === 'string' && rv !== '', 'a list with a resourceVersion', l.describe());
  const cache = new Map<string, Data>();
  for (const o of room.own.items(l.json.items)) cache.set(o.metadata.name, { ...(o.data ?? {}) });
  return { rv, cache };
}

describe('watch: laws of the stream and of recovery (property-based)', () => {
  conformance(
    {
      id: 'watch/law/exactly-once-in-order',
      title:
        'Law (Events): for any sequence of writes, a watch opened before them streams exactly one event per write, in write order, each holding the object at the version the write returned',
      doc: 1,
      section: 'Events',
      place:
        'The service emits change notifications as the watch stream ... ADDED: an object was created after the start version; MODIFIED: an object was updated or patched',
      specRules: [
        'doc1/events/service-emits-change-notifications-watch-stream',
        'doc1/events/added-object-was-created-after-start',
        'doc1/events/modified-object-was-updated-patched',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(opsArb, (ops) =>
          withRoom(
            client,
            async (room) => {
              const s = await room.watchOk({ watch: 1 });
              for (const op of ops) await apply(room, op);
              const end = await room.sentinel();
              checkEvents(
                room.mine(await readUntilObject(s, end.name)),
                room.log,
                'one event per write, in order, no gap, no repeat',
                {
                  lenientDelete: true,
                },
              );
            },
            'wlaw',
          ),
        ),
        { ...propertySettings(RUNS), examples: EDGES.map((e) => [e]) },
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'watch/law/restart-at-any-cut',
      title:
        'Law (Watch recovery): a watch cut at any point and restarted from the last resourceVersion received, while writes go on, loses no change and repeats none; so does a restart from any version received',
      doc: 1,
      section: 'Watch recovery',
      place: 'A client that loses a watch restarts from the last `resourceVersion` it received',
      specRules: ['doc1/watch-recovery/client-loses-watch-restarts-last-resourceversion'],
      level: 'MUST',
    },
    async ({ client }) => {
      const input = opsArb.chain((ops) =>
        fc.tuple(fc.constant(ops), fc.integer({ min: 0, max: ops.length })),
      );
      await fc.assert(
        fc.asyncProperty(input, ([ops, cut]) =>
          withRoom(
            client,
            async (room) => {
              const start = (await listState(room)).rv;
              const first = await room.watchOk({ watch: 1, resourceVersion: start });
              for (const op of ops.slice(0, cut)) await apply(room, op);
              const before = await readChanges(room, first, room.log.length);
              first.close();
              const last = before.length ? rvOf(before[before.length - 1]!)! : start;
              for (const op of ops.slice(cut)) await apply(room, op);
              const end = await room.sentinel();
              const second = await room.watchOk(
                { watch: 1, resourceVersion: last },
                room.path,
                `a restart from ${last}`,
              );
              const after = room.mine(await readUntilObject(second, end.name)).filter((e) => !isBookmark(e));
              const received = [...before, ...after];
              checkEvents(
                received,
                room.log,
                `the events before the cut (${before.length}) and after the restart from ${last}: every write once, in order`,
                { lenientDelete: true },
              );
              // and from every other version received (the last one, the sentinel's, has nothing after it)
              for (let k = 0; k < received.length - 1; k++) {
                const rv = rvOf(received[k]!)!;
                const r = await room.watchOk(
                  { watch: 1, resourceVersion: rv },
                  room.path,
                  `a restart from ${rv}`,
                );
                checkEvents(
                  room.mine(await readUntilObject(r, end.name)),
                  room.log.slice(k + 1),
                  `a restart from the version of event ${k + 1} (${rv}) streams exactly the writes after it`,
                  { lenientDelete: true },
                );
                r.close();
              }
            },
            'wcut',
          ),
        ),
        {
          ...propertySettings(RUNS),
          examples: EDGES.map((e) => [[e, Math.floor(e.length / 2)] as [Op[], number]]),
        },
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'watch/law/relist-reaches-state',
      title:
        "Law (Watch recovery): a client that redoes the list and watches from the list's resourceVersion, whatever was written before and after, ends with the server's state, with no gap and no repeat",
      doc: 1,
      section: 'Watch recovery',
      place:
        'A client that loses a watch restarts from the last `resourceVersion` it received, or redoes get/list',
      specRules: ['doc1/watch-recovery/client-loses-watch-restarts-last-resourceversion'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(opsArb, opsArb, (before, after) =>
          withRoom(
            client,
            async (room) => {
              for (const op of before) await apply(room, op);
              const { rv, cache } = await listState(room);
              sameState(cache, room, 'the list shows the state after the writes made before it', []);
              const written = room.log.length;
              const s = await room.watchOk({ watch: 1, resourceVersion: rv });
              for (const op of after) await apply(room, op);
              const end = await room.sentinel();
              const events = room.mine(await readUntilObject(s, end.name)).filter((e) => !isBookmark(e));
              checkEvents(
                events,
                room.log.slice(written),
                `the watch from the list's version ${rv} streams the writes after the list`,
                {
                  lenientDelete: true,
                },
              );
              feed(cache, events, events);
              sameState(cache, room, 'list + watch reach the current state', events);
            },
            'wrel',
          ),
        ),
        { ...propertySettings(RUNS), examples: EDGES.map((e) => [e, [...e].reverse()] as [Op[], Op[]]) },
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'watch/law/relist-after-gone',
      title:
        "Law (Watch recovery): after a 410 on a watch from an expired version, a client that clears its cache, lists again and watches from the list's resourceVersion reaches the server's state",
      doc: 1,
      section: 'Watch recovery',
      place: 'On 410 it clears its cache, lists again and watches from the newly returned version',
      specRules: ['doc1/watch-recovery/410-clears-cache-lists-again-watches'],
      level: 'MUST',
    },
    async (t) => {
      const { client } = t;
      const expired = await t.step('a version the target no longer retains', () =>
        expiredVersion(t, 'watch'),
      );
      await fc.assert(
        fc.asyncProperty(opsArb, opsArb, (before, after) =>
          withRoom(
            client,
            async (room) => {
              for (const op of before) await apply(room, op);
              // the client's stale cache: whatever it held is cleared on the 410
              const gone = await readGone(await room.watch({ watch: 1, resourceVersion: expired }));
              check(gone.before.length === 0, 'no change event before the 410', lines(gone.before));
              check(gone.status?.code === 410, 'a 410 (Gone) for the expired version', show(gone.status));
              const { rv, cache } = await listState(room);
              sameState(cache, room, 'the relist shows the current state', []);
              const s = await room.watchOk({ watch: 1, resourceVersion: rv });
              for (const op of after) await apply(room, op);
              const end = await room.sentinel();
              const events = room.mine(await readUntilObject(s, end.name)).filter((e) => !isBookmark(e));
              feed(cache, events, events);
              sameState(cache, room, 'relist + watch from its version reach the current state', events);
            },
            'wgone',
          ),
        ),
        { ...propertySettings(RUNS), examples: EDGES.map((e) => [e, e] as [Op[], Op[]]) },
      );
    },
    { timeout: 120_000, needs: { expiredVersions: true } },
  );
  conformance(
    {
      id: 'watch/law/concurrent-writes',
      title:
        "Law (Events, Watch recovery): for writes issued concurrently, a watch streams each write once, each object's changes in order, and a watch restarted from any version received continues exactly that stream",
      doc: 1,
      section: 'Watch recovery',
      place: 'A client that loses a watch restarts from the last `resourceVersion` it received',
      specRules: ['doc1/watch-recovery/client-loses-watch-restarts-last-resourceversion'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(roundsArb, (rounds) =>
          withRoom(
            client,
            async (room) => {
              // A law about restarts starts from a list's version: a watch without one begins
              // with the current state, whose events need not come in version order.
              const listed = await room.client.get(room.path);
              checkStatus(listed, 200, undefined, 'setup: list the room to start the watch from its version');
              const s = await room.watchOk({
                watch: 1,
                resourceVersion: listed.json.metadata.resourceVersion,
              });
              const perName = new Map<string, Expected[]>();
              for (const round of rounds) {
                const done = await Promise.all(
                  round.map((x) => {
                    const present = room.objects.has(x.name);
                    if (x.kind === 'delete') return present ? room.remove(x.name) : undefined;
                    return present ? room.patch(x.name, x.data, 'merge') : room.create(x.name, x.data);
                  }),
                );
                for (const e of done)
                  if (e && !e.noop) perName.set(e.name, [...(perName.get(e.name) ?? []), e]);
              }
              const end = await room.sentinel();
              const stream = room.mine(await readUntilObject(s, end.name)).filter((e) => !isBookmark(e));
              // per object: its writes, in order (the order across objects of one round is the server's)
              for (const [name, want] of perName)
                checkEvents(
                  stream.filter((e) => nameOf(e) === name),
                  want,
                  `the events of ${name}: each of its writes once, in order`,
                  { lenientDelete: true },
                );
              const writes = [...perName.values()].reduce((n, l) => n + l.length, 0);
              check(
                stream.length === writes + 1,
                `${writes} events and the sentinel's`,
                lines(stream),
                'no event but the writes',
              );
              for (let k = 0; k < stream.length - 1; k++) {
                const rv = rvOf(stream[k]!)!;
                const r = await room.watchOk(
                  { watch: 1, resourceVersion: rv },
                  room.path,
                  `a restart from ${rv}`,
                );
                const rest = room.mine(await readUntilObject(r, end.name)).filter((e) => !isBookmark(e));
                r.close();
                const key = (e: WatchEvent) => `${e.type} ${nameOf(e)} @${rvOf(e)}`;
                check(
                  JSON.stringify(rest.map(key)) === JSON.stringify(stream.slice(k + 1).map(key)),
                  `the stream after event ${k + 1} (${rv}): ${lines(stream.slice(k + 1))}`,
                  lines(rest),
                );
              }
            },
            'wcon',
          ),
        ),
        {
          ...propertySettings(RUNS),
          examples: [
            [
              [
                [
                  { name: 'a', kind: 'write', data: {} },
                  { name: 'b', kind: 'write', data: { v: '1' } },
                ],
              ],
            ],
            [
              [
                [
                  { name: 'a', kind: 'write', data: { v: '1' } },
                  { name: 'b', kind: 'write', data: {} },
                ],
                [
                  { name: 'a', kind: 'delete', data: {} },
                  { name: 'b', kind: 'write', data: { v: '2' } },
                  { name: 'c', kind: 'write', data: {} },
                ],
              ],
            ],
          ] as [Round[]][],
        },
      );
    },
    { timeout: 120_000 },
  );
});
