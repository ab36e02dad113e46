// doc1 § Events: which event each kind of write produces (ADDED for a create, MODIFIED for an
// update or a patch, and for a deletion the type Kubernetes names DELETED), carrying the object
// at the version the write made.
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { checkEvents, lines, nameOf, readUntilObject, rvOf, withRoom } from './support.ts';

const SECTION = 'Events';

describe('watch: event types', () => {
  conformance(
    {
      id: 'watch/events/added-on-create',
      title:
        'A create is streamed as an ADDED event holding the created object: same uid, data and resourceVersion as the create returned',
      doc: 1,
      section: SECTION,
      place: 'ADDED | An object was created after the start version',
      specRules: [
        'doc1/events/added-object-was-created-after-start',
        'doc1/resources-their-fields/named-types-added-modified-bookmark',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const s = await room.watchOk({ watch: 1 });
        const a = await room.create('a', { k: 'v' }, { team: 'x' });
        const end = await room.sentinel();
        const events = room.mine(await readUntilObject(s, end.name));
        checkEvents(events, [a, end], 'one ADDED event per create, in order');
        const e = events.find((x) => nameOf(x) === 'a')!;
        const m = e.object.metadata;
        check(
          m.uid === room.live('a').uid && m.namespace === room.ns && m.labels?.team === 'x',
          `the created object (uid ${room.live('a').uid}, namespace ${room.ns}, labels {team: x})`,
          show(e.object),
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/events/modified-on-update',
      title:
        'An update (PUT) is streamed as a MODIFIED event holding the object at the version the update returned',
      doc: 1,
      section: SECTION,
      place: 'MODIFIED | An object was updated or patched',
      specRules: [
        'doc1/events/modified-object-was-updated-patched',
        'doc1/resources-their-fields/named-types-added-modified-bookmark',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { k: '1' });
        const s = await room.watchOk({ watch: 1, resourceVersion: room.live('a').rv });
        const want = [await room.update('a', { k: '2' }), await room.update('a', { k: '3', extra: 'x' })];
        want.push(await room.sentinel());
        checkEvents(
          room.mine(await readUntilObject(s, want[2]!.name)),
          want,
          'one MODIFIED event per update',
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/events/modified-on-patch',
      title:
        'A patch (merge patch, JSON Patch, strategic merge patch) is streamed as a MODIFIED event holding the patched object',
      doc: 1,
      section: SECTION,
      place: 'MODIFIED | An object was updated or patched',
      specRules: ['doc1/events/modified-object-was-updated-patched'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { k: '1' });
        const s = await room.watchOk({ watch: 1, resourceVersion: room.live('a').rv });
        const want = [
          await room.patch('a', { k: '2' }, 'merge'),
          await room.patch('a', { k: '3' }, 'json'),
          await room.patch('a', { k: '4', j: 'x' }, 'strategic'),
        ];
        want.push(await room.sentinel());
        checkEvents(room.mine(await readUntilObject(s, want[3]!.name)), want, 'one MODIFIED event per patch');
      });
    },
  );

  conformance(
    {
      id: 'watch/events/deleted-on-delete',
      title:
        'A deletion is streamed as a DELETED event holding the last state of the object at a new resourceVersion (the deletion version)',
      doc: 1,
      section: SECTION,
      place: 'Event type name used for deletions: not shown',
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { k: '1' });
        const last = await room.update('a', { k: '2' });
        const s = await room.watchOk({ watch: 1, resourceVersion: last.rv });
        const del = await room.remove('a');
        const end = await room.sentinel();
        const events = room.mine(await readUntilObject(s, end.name));
        checkEvents(
          events,
          [del, end],
          'a DELETED event carrying the last state (Kubernetes: watch.Deleted)',
        );
        const e = events.find((x) => nameOf(x) === 'a')!;
        // Kubernetes stamps the deleted object with the deletion's revision, so a watch restarted
        // from that event's version does not see the deletion again.
        check(
          typeof rvOf(e) === 'string' && rvOf(e) !== '' && rvOf(e) !== last.rv,
          `a resourceVersion other than the last write's (${last.rv})`,
          `${lines([e])}`,
          'the DELETED event carries the version of the deletion',
        );
      });
    },
  );
  conformance(
    {
      id: 'watch/events/refused-write-silent',
      title: 'An update refused with 409 for a stale resourceVersion changes nothing and streams no event',
      doc: 1,
      section: 'Update mechanisms',
      place: 'A stale value yields 409 so lost updates are detected',
      specRules: ['doc1/update-mechanisms/stale-value-yields-409-so-lost'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const a = await room.create('a', { k: '1' });
        const b = await room.update('a', { k: '2' });
        const s = await room.watchOk({ watch: 1, resourceVersion: b.rv });
        const r = await client.put(room.one('a'), {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', resourceVersion: a.rv },
          data: { k: 'stale' },
        });
        check(r.status === 409, '409 for the stale resourceVersion', r.describe(), 'setup');
        const end = await room.sentinel();
        checkEvents(
          room.mine(await readUntilObject(s, end.name)),
          [end],
          'no event for a refused write, only the sentinel',
        );
      });
    },
  );
});
