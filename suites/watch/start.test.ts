// doc1 § Resource version semantics, the watch row: where a watch starts. unset = Get State and
// Start at Most Recent, 0 = Get State and Start at Any, other = Start at Exact; and doc1 § Errors:
// a start version older than the retained history is answered with 410 Gone.
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { expiredVersion } from '../../harness/src/retention.ts';
import {
  checkEvents,
  type Data,
  isBookmark,
  isDeletionType,
  lines,
  nameOf,
  readGone,
  readUntilObject,
  readUntilOrEnd,
  rvOf,
  withRoom,
} from './support.ts';

const SECTION = 'Resource version semantics';

describe('watch: start version', () => {
  conformance(
    {
      id: 'watch/start/unset-current-state',
      title:
        'A watch without resourceVersion begins with one synthetic ADDED event per existing object, at its current version, then streams the later changes',
      doc: 1,
      section: SECTION,
      place:
        'watch: unset = Get State and Start at Most Recent; Get State and Start at Most Recent: Watch begins with synthetic ADDED events for all existing instances, then later changes',
      specRules: [
        'doc1/resource-version-semantics/get-state-start-any-most-recent',
        'doc1/resource-version-semantics/watch-unset-get-state-start-most',
      ],
      level: 'MUST',
    },
    async ({ client, step }) => {
      await withRoom(client, async (room) => {
        await step('create a, b, c; update b; delete c', async () => {
          await room.create('a', { v: '0' });
          await room.create('b', { v: '0' });
          await room.create('c', { v: '0' });
          await room.update('b', { v: '1' });
          await room.remove('c');
        });
        const s = await room.watchOk({ watch: 1 });
        // the later writes wait for the first event of the room's objects: a server may read the
        // state after it has answered the request (kube-apiserver 1.28 serves such a watch from
        // etcd and reads the state once the headers are out), and the synthetic ADDED events
        // come from one read; a stream that sends none is judged below as it is
        const first = await readUntilOrEnd(s, (read) => room.mine(read).some((x) => !isBookmark(x)), 8_000);
        const later = [await room.patch('a', { v: '1' }), await room.remove('b'), await room.sentinel()];
        const rest = await readUntilObject(s, later[2]!.name);
        const events = room.mine([...first, ...rest]).filter((e) => !isBookmark(e));
        const initial = events.slice(0, 2);
        const want = ['a', 'b'].map((n) => ({
          type: 'ADDED',
          name: n,
          data: n === 'b' ? { v: '1' } : { v: '0' },
        }));
        const got = initial
          .map((e) => ({ type: e.type, name: nameOf(e), data: e.object?.data ?? {} }))
          .sort((x, y) => String(x.name).localeCompare(String(y.name)));
        check(
          JSON.stringify(got) === JSON.stringify(want),
          `first, ADDED events for exactly the existing objects (any order): ${show(want)}`,
          lines(events),
          'Get State: synthetic ADDED events for all existing instances',
        );
        const rvs = Object.fromEntries(initial.map((e) => [nameOf(e), rvOf(e)]));
        check(
          rvs.a === room.log[0]!.rv && rvs.b === room.log[3]!.rv,
          `the objects at their current versions (a @${room.log[0]!.rv}, b @${room.log[3]!.rv})`,
          lines(initial),
          'Start at Most Recent: the state is the current one',
        );
        checkEvents(events.slice(2), later, 'then the later changes, in order', { lenientDelete: true });
      });
    },
  );

  conformance(
    {
      id: 'watch/start/zero-any-state',
      title:
        'A watch with resourceVersion=0 begins with synthetic ADDED events for the objects of some state, then its later changes, so a cache built from the stream reaches the current state',
      doc: 1,
      section: SECTION,
      place:
        'watch: `0` = Get State and Start at Any; Get State and Start at Any: Watch begins with synthetic ADDED events for all existing instances, then later changes',
      specRules: ['doc1/resource-version-semantics/get-state-start-any-most-recent'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { v: '0' });
        await room.create('b', { v: '0' });
        await room.create('c', { v: '0' });
        await room.update('a', { v: '1' });
        await room.remove('b');
        const s = await room.watchOk({ watch: 1, resourceVersion: '0' });
        await room.update('c', { v: '1' });
        await room.create('d', { v: '0' });
        const end = await room.sentinel();
        const events = room.mine(await readUntilObject(s, end.name)).filter((e) => !isBookmark(e));
        // Replay the stream into an empty cache: an unknown object may only be ADDED, a known one
        // only changed or deleted.
        const cache = new Map<string, Data>();
        for (const e of events) {
          const n = String(nameOf(e));
          const known = cache.has(n);
          if (e.type === 'ADDED') {
            check(!known, `no ADDED event for ${n}, already in the state streamed`, lines(events));
            cache.set(n, { ...(e.object?.data ?? {}) });
          } else if (e.type === 'MODIFIED') {
            check(known, `an ADDED event for ${n} before any change to it (Get State)`, lines(events));
            cache.set(n, { ...(e.object?.data ?? {}) });
          } else if (isDeletionType(e.type)) {
            check(known, `an ADDED event for ${n} before its deletion (Get State)`, lines(events));
            cache.delete(n);
          } else check(false, 'only change events', lines(events));
        }
        const want = Object.fromEntries([...room.state()].sort());
        const got = Object.fromEntries([...cache].sort());
        check(
          JSON.stringify(got) === JSON.stringify(want),
          `a cache built from the stream equals the current state ${show(want)}`,
          `${show(got)} from ${lines(events)}`,
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/start/exact-after-write',
      title:
        "A watch from a write's resourceVersion streams exactly the changes after it, in order, and no synthetic events",
      doc: 1,
      section: SECTION,
      place:
        'watch: other value = Start at Exact; Start at Exact: Changes after the given version only; no synthetic events',
      specRules: [
        'doc1/resource-version-semantics/start-exact-changes-after-given-version',
        'doc1/resource-version-semantics/watch-unset-get-state-start-most',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { v: '0' });
        const from = await room.create('b', { v: '0' });
        const after = [
          await room.update('a', { v: '1' }),
          await room.remove('b'),
          await room.create('c', { v: '0' }),
          await room.patch('c', { v: '1' }),
        ];
        // opened after the writes: the changes come from the retained history
        const s = await room.watchOk({ watch: 1, resourceVersion: from.rv });
        const live = [await room.update('a', { v: '2' }), await room.sentinel()];
        checkEvents(
          room.mine(await readUntilObject(s, live[1]!.name)),
          [...after, ...live],
          'the changes after the start version',
          {
            lenientDelete: true,
          },
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/start/exact-from-list-version',
      title:
        "A watch from a list's resourceVersion streams exactly the changes made after the list, none of its items",
      doc: 1,
      section: SECTION,
      place:
        'watch: other value = Start at Exact; Start at Exact: Changes after the given version only; no synthetic events',
      specRules: [
        'doc1/resource-version-semantics/start-exact-changes-after-given-version',
        'doc1/resource-version-semantics/watch-unset-get-state-start-most',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { v: '0' });
        await room.create('b', { v: '0' });
        const l = await client.get(room.path);
        check(
          l.status === 200 && typeof l.json?.metadata?.resourceVersion === 'string',
          'a list with a resourceVersion',
          l.describe(),
        );
        const after = [await room.remove('a'), await room.update('b', { v: '1' })];
        const s = await room.watchOk({ watch: 1, resourceVersion: l.json.metadata.resourceVersion });
        const end = await room.sentinel();
        checkEvents(
          room.mine(await readUntilObject(s, end.name)),
          [...after, end],
          'the changes after the list only',
          {
            lenientDelete: true,
          },
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/start/expired-gone',
      title:
        'A watch from a version older than the retained history is answered with 410 Gone and delivers no change',
      doc: 1,
      section: 'Errors',
      place: '410 Gone | Watch or Exact list at a version no longer retained',
      specRules: ['doc1/errors/410-gone-watch-exact-list-version'],
      level: 'MUST',
    },
    async (t) => {
      const expired = await t.step('a version the target no longer retains', () =>
        expiredVersion(t, 'watch'),
      );
      await withRoom(t.client, async (room) => {
        // changes made since that version: a watch that served it would stream them
        for (let i = 0; i < 5; i++) await room.create(`o${i}`, { v: String(i) });
        const s = await room.watch({ watch: 1, resourceVersion: expired });
        const g = await readGone(s);
        check(
          g.before.length === 0,
          'no change event before the 410 (the changes since that version are gone)',
          lines(g.before),
        );
        check(
          g.status?.code === 410 || (g.form === 'http' && s.status === 410),
          'a 410: the HTTP status, or a Status with code 410 in the stream',
          `HTTP ${s.status}, ${show(g.status)}`,
        );
      });
    },
    { needs: { expiredVersions: true } },
  );

  conformance(
    {
      id: 'watch/start/expired-error-event',
      title:
        'A watch from a version older than the retained history answers 200, then one ERROR event holding a Status with code 410 and reason Expired, then ends',
      doc: 1,
      section: 'Errors',
      place:
        '410 Gone | Watch or Exact list at a version no longer retained (the form of the 410 on a watch: not shown)',
      specRules: ['doc1/errors/410-gone-watch-exact-list-version'],
      level: 'BEYOND',
    },
    async (t) => {
      const expired = await t.step('a version the target no longer retains', () =>
        expiredVersion(t, 'watch'),
      );
      await withRoom(t.client, async (room) => {
        // changes made since that version: a watch that served it would stream them
        for (let i = 0; i < 5; i++) await room.create(`o${i}`, { v: String(i) });
        const s = await room.watch({ watch: 1, resourceVersion: expired });
        check(s.status === 200, 'HTTP 200 (Kubernetes reports the expiry in the stream)', `HTTP ${s.status}`);
        const g = await readGone(s);
        check(g.before.length === 0, 'no event before the ERROR', lines(g.before));
        const st = g.status ?? {};
        check(
          g.event?.type === 'ERROR' &&
            st.kind === 'Status' &&
            st.code === 410 &&
            st.reason === 'Expired' &&
            st.status === 'Failure',
          'an ERROR event whose object is a Status {status: Failure, code: 410, reason: Expired}',
          show(g.event),
        );
        try {
          await s.waitEnd(5_000);
        } catch {
          check(false, 'the stream ends after the ERROR event', 'the stream stayed open for 5 s');
        }
      });
    },
    { needs: { expiredVersions: true } },
  );
});
