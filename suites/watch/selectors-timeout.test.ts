// Watch options doc1 does not spell out for watches, where the cases follow Kubernetes: a label
// selector narrows the stream (an object entering the selection is ADDED, one leaving it is
// DELETED), and timeoutSeconds ends the stream.
import { describe } from 'vitest';
import { check } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Expected } from './support.ts';
import { checkEvents, lines, readFor, readUntilObject, withRoom } from './support.ts';

const IN = { sel: 'yes' };
const OUT = { sel: 'no' };

describe('watch: selectors and timeout', () => {
  conformance(
    {
      id: 'watch/selectors/label-filter',
      title: 'A watch with a label selector streams the changes of matching objects only',
      doc: 1,
      section: 'Chunked lists',
      place: 'label or field selectors (a watch narrowed by a label selector: not shown)',
      specRules: ['doc1/chunked-lists/remainingitemcount-counts-items-after-chunk-omitted'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('out0', { v: '0' }, OUT);
        const s = await room.watchOk({ watch: 1, labelSelector: 'sel=yes' });
        const want: Expected[] = [];
        want.push(await room.create('a', { v: '0' }, IN));
        await room.create('b', { v: '0' }, OUT);
        await room.update('out0', { v: '1' }, OUT);
        want.push(await room.update('a', { v: '1' }, IN));
        await room.remove('b');
        want.push(await room.remove('a'));
        want.push(await room.sentinel(IN));
        checkEvents(
          await readUntilObject(s, want[3]!.name),
          want,
          'the events of objects labelled sel=yes only',
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/selectors/enter-and-leave',
      title:
        'On a label-selected watch an object whose change makes it match is ADDED, and one whose change makes it stop matching is DELETED with its last matching state',
      doc: 1,
      section: 'Events',
      place:
        'ADDED | An object was created after the start version (an object entering or leaving a selection: not shown)',
      specRules: ['doc1/events/added-object-was-created-after-start'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('x', { v: '0' }, IN);
        await room.create('y', { v: '0' }, OUT);
        const s = await room.watchOk({
          watch: 1,
          labelSelector: 'sel=yes',
          resourceVersion: room.live('y').rv,
        });
        // x leaves the selection: DELETED with the state it had while it matched
        await room.update('x', { v: '1' }, OUT);
        const want: Expected[] = [{ type: 'DELETED', name: 'x', data: { v: '0' } }];
        // y enters it: ADDED, then changes while in it: MODIFIED
        want.push({ ...(await room.update('y', { v: '1' }, IN)), type: 'ADDED' });
        want.push(await room.update('y', { v: '2' }, IN));
        await room.update('x', { v: '2' }, OUT); // outside before and after: nothing
        want.push({ ...(await room.update('x', { v: '3' }, IN)), type: 'ADDED' });
        want.push(await room.sentinel(IN));
        const events = await readUntilObject(s, want[4]!.name);
        checkEvents(
          events,
          want,
          'ADDED on entering the selection, DELETED on leaving it (Kubernetes cacheWatcher)',
        );
        const del = events.find((e) => e.type === 'DELETED')!;
        check(
          del.object?.metadata?.labels?.sel === 'yes',
          'the DELETED object as it was while it matched (label sel=yes)',
          lines([del]),
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/timeout/ends-stream',
      title: 'A watch with timeoutSeconds=1 is ended by the server after about a second, cleanly',
      doc: 1,
      section: 'Query parameters',
      place:
        'watch | GET | `1` turns the request into a watch (timeoutSeconds, which bounds a watch: not shown)',
      specRules: ['doc1/query-parameters/watch-get-1-turns-request-into'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const s = await room.watchOk({ watch: 1, timeoutSeconds: 1 });
        const a = await room.create('a', { v: '0' });
        const events = await readFor(s, 6_000, true);
        check(
          s.ended,
          'the stream ended by the server within 6 s of a 1 s timeout',
          `still open after ${lines(events)}`,
        );
        check(!s.error, 'a clean end (no partial document)', String(s.error?.message));
        checkEvents(room.mine(events), [a], 'the change made before the timeout');
      });
    },
  );
});
