// doc1 § Streaming initial state: with sendInitialEvents=true, allowWatchBookmarks=true and
// resourceVersionMatch=NotOlderThan the stream is the synthetic ADDED events of the state, one
// BOOKMARK at the version synced to, then the regular stream. The feature needs the WatchList
// gate: the cases that use it run against a target with the gate on, and one checks the
// refusal against a target with it off (harness/src/targets.ts routes them).
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { WatchEvent, WatchStream } from '../../harness/src/watch.ts';
import {
  checkBookmarkShape,
  checkEvents,
  type Data,
  INITIAL_EVENTS_BOOKMARK_MS,
  isBookmark,
  lines,
  nameOf,
  type Room,
  readUntil,
  readUntilObject,
  rvOf,
  withRoom,
} from './support.ts';

const SECTION = 'Streaming initial state';
const END_ANNOTATION = 'orch.io/initial-events-end';

const WATCH_LIST = {
  watch: 1,
  sendInitialEvents: 'true',
  allowWatchBookmarks: 'true',
  resourceVersionMatch: 'NotOlderThan',
};

/** The cases of the feature run against a target with the gate on; one against a target with it off. */
const GATE_ON = { needs: { featureGates: { WatchList: true } } };
const GATE_OFF = { needs: { featureGates: { WatchList: false } } };

/** Reads the initial part of a watch-list stream: the events up to the first BOOKMARK (of the room's objects). */
async function initialPart(
  room: Room,
  s: WatchStream,
): Promise<{ added: WatchEvent[]; bookmark: WatchEvent }> {
  const read = await readUntil(
    s,
    isBookmark,
    'the synthetic ADDED events, then a BOOKMARK',
    INITIAL_EVENTS_BOOKMARK_MS,
  );
  return { added: room.mine(read.slice(0, -1)), bookmark: read[read.length - 1]! };
}

function stateOf(events: WatchEvent[]): Record<string, Data> {
  return Object.fromEntries(events.map((e) => [String(nameOf(e)), { ...(e.object?.data ?? {}) }]).sort());
}

function modelState(room: Room): Record<string, Data> {
  return Object.fromEntries([...room.state()].sort());
}

/** Three objects, one of them changed and one deleted: the state {a, b}. */
async function history(room: Room): Promise<void> {
  await room.create('a', { v: '0' });
  await room.create('b', { v: '0' });
  await room.create('c', { v: '0' });
  await room.update('a', { v: '1' });
  await room.remove('c');
}

describe('watch: streaming initial state (sendInitialEvents)', () => {
  conformance(
    {
      id: 'watch/initial-events/stream-order',
      title:
        'With sendInitialEvents=true the stream is one synthetic ADDED event per existing object, then a BOOKMARK, then the regular watch stream',
      doc: 1,
      section: SECTION,
      place:
        'the stream is: synthetic ADDED events for every existing object, then a BOOKMARK whose resourceVersion is the version synced to, then the regular watch stream',
      specRules: [
        'doc1/streaming-initial-state/sendinitialevents-true-allowwatchbookmarks-true-resourceversionmatch-notolderthan',
        'doc1/query-parameters/sendinitialevents-watch-true-stream-starts-synthetic',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await history(room);
        const s = await room.watchOk(WATCH_LIST);
        const { added, bookmark } = await initialPart(room, s);
        check(
          added.every((e) => e.type === 'ADDED'),
          'only ADDED events before the BOOKMARK',
          lines([...added, bookmark]),
        );
        check(
          JSON.stringify(stateOf(added)) === JSON.stringify(modelState(room)) &&
            added.length === room.objects.size,
          `one ADDED event per existing object: ${show(modelState(room))}`,
          lines(added),
          'synthetic ADDED events for every existing object',
        );
        check(
          typeof rvOf(bookmark) === 'string' && rvOf(bookmark) !== '',
          'a BOOKMARK with a resourceVersion',
          show(bookmark),
        );
        const live = [await room.update('b', { v: '1' }), await room.remove('a'), await room.sentinel()];
        checkEvents(
          room.mine(await readUntilObject(s, live[2]!.name)),
          live,
          'then the regular watch stream',
          {
            lenientDelete: true,
          },
        );
      });
    },
    GATE_ON,
  );

  conformance(
    {
      id: 'watch/initial-events/end-annotation',
      title:
        'The BOOKMARK that ends the initial events is annotated orch.io/initial-events-end: "true" and otherwise has the bookmark shape',
      doc: 1,
      section: SECTION,
      place:
        'then a BOOKMARK whose resourceVersion is the version synced to (its mark, the annotation orch.io/initial-events-end: not shown)',
      specRules: [
        'doc1/streaming-initial-state/sendinitialevents-true-allowwatchbookmarks-true-resourceversionmatch-notolderthan',
      ],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { v: '0' });
        const s = await room.watchOk(WATCH_LIST);
        const { bookmark } = await initialPart(room, s);
        check(
          bookmark.object?.metadata?.annotations?.[END_ANNOTATION] === 'true',
          `metadata.annotations["${END_ANNOTATION}"] = "true"`,
          show(bookmark.object),
          'Kubernetes marks the end of the initial events this way (k8s.io/initial-events-end)',
        );
        checkBookmarkShape(bookmark, 'ConfigMap', 'v1', ['annotations']);
        const other = Object.keys(bookmark.object.metadata.annotations).filter((k) => k !== END_ANNOTATION);
        check(other.length === 0, `no annotation but ${END_ANNOTATION}`, show(bookmark.object));
      });
    },
    GATE_ON,
  );

  conformance(
    {
      id: 'watch/initial-events/bookmark-version-synced',
      title:
        "The initial-events BOOKMARK's resourceVersion is the version of the state streamed: an Exact list at it returns that state, and a watch from it repeats none of it",
      doc: 1,
      section: SECTION,
      place: 'then a BOOKMARK whose resourceVersion is the version synced to',
      specRules: [
        'doc1/streaming-initial-state/sendinitialevents-true-allowwatchbookmarks-true-resourceversionmatch-notolderthan',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await history(room);
        const s = await room.watchOk(WATCH_LIST);
        const { added, bookmark } = await initialPart(room, s);
        const rv = rvOf(bookmark)!;
        const l = await client.get(room.path, {
          query: { resourceVersion: rv, resourceVersionMatch: 'Exact' },
        });
        checkStatus(
          l,
          200,
          undefined,
          `an Exact list at the bookmark's version ${rv} (within the retained history)`,
        );
        const listed = stateOf(room.own.items(l.json?.items).map((o: any) => ({ type: 'ADDED', object: o })));
        check(
          JSON.stringify(listed) === JSON.stringify(stateOf(added)),
          `the state at ${rv} is the one streamed: ${show(stateOf(added))}`,
          show(listed),
        );
        const next = [await room.patch('b', { v: '2' }), await room.sentinel()];
        const r = await room.watchOk({ watch: 1, resourceVersion: rv });
        checkEvents(
          room.mine(await readUntilObject(r, next[1]!.name)),
          next,
          `a watch from ${rv} streams the changes after the synced state only`,
        );
      });
    },
    GATE_ON,
  );

  conformance(
    {
      id: 'watch/initial-events/not-older-than',
      title:
        "With resourceVersion set to the latest write's version, the initial events show a state at least that new: the write is in it",
      doc: 1,
      section: SECTION,
      place: 'if set, the bookmark is sent once state is at least that version',
      specRules: ['doc1/streaming-initial-state/if-resourceversion-empty-absent-consistent-read'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await history(room);
        const last = await room.update('b', { v: '9' });
        const s = await room.watchOk({ ...WATCH_LIST, resourceVersion: last.rv });
        const { added } = await initialPart(room, s);
        check(
          JSON.stringify(stateOf(added)) === JSON.stringify(modelState(room)),
          `the state after the write at ${last.rv}: ${show(modelState(room))}`,
          lines(added),
        );
      });
    },
    GATE_ON,
  );

  conformance(
    {
      id: 'watch/initial-events/consistent-read',
      title:
        'Without resourceVersion the initial events are a consistent read: every write answered before the watch opened is in them',
      doc: 1,
      section: SECTION,
      place:
        'If `resourceVersion` is empty or absent this is a consistent read (the bookmark is sent once state is at least as new as the read started)',
      specRules: ['doc1/streaming-initial-state/if-resourceversion-empty-absent-consistent-read'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        for (let round = 0; round < 3; round++) {
          await room.create(`n${round}`, { v: '0' });
          await room.update('n0', { v: String(round + 1) });
          const s = await room.watchOk(WATCH_LIST);
          const { added } = await initialPart(room, s);
          s.close();
          check(
            JSON.stringify(stateOf(added)) === JSON.stringify(modelState(room)),
            `round ${round}: the current state ${show(modelState(room))}`,
            lines(added),
          );
        }
      });
    },
    GATE_ON,
  );

  conformance(
    {
      id: 'watch/initial-events/requires-not-older-than',
      title:
        'A watch with sendInitialEvents=true but without resourceVersionMatch=NotOlderThan is refused with 422 Invalid',
      doc: 1,
      section: 'Query parameters',
      place:
        'sendInitialEvents | watch | ... requires `resourceVersionMatch=NotOlderThan` (the refusal: not shown)',
      specRules: ['doc1/query-parameters/sendinitialevents-watch-true-stream-starts-synthetic'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const r = await client.get(room.path, {
          query: { watch: 1, sendInitialEvents: 'true', allowWatchBookmarks: 'true', timeoutSeconds: 1 },
        });
        checkStatus(r, 422, 'Invalid', 'Kubernetes validates the list options before streaming');
      });
    },
    GATE_ON,
  );

  conformance(
    {
      id: 'watch/initial-events/gate-off-refused',
      title: 'Without the WatchList gate a watch with sendInitialEvents=true is refused with 422 Invalid',
      doc: 1,
      section: SECTION,
      place: 'The feature is alpha and needs the `WatchList` gate (the answer without it: not shown)',
      specRules: ['doc1/streaming-initial-state/feature-alpha-needs-watchlist-gate'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const r = await client.get(room.path, { query: { ...WATCH_LIST, timeoutSeconds: 1 } });
        checkStatus(
          r,
          422,
          'Invalid',
          'Kubernetes: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"',
        );
        check(
          /sendInitialEvents/.test(r.statusObj?.message ?? ''),
          'a Status message naming sendInitialEvents',
          show(r.statusObj?.message),
        );
      });
    },
    GATE_OFF,
  );
});
