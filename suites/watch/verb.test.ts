// doc1 § Operations (the watch verb) and § Events (the stream): a GET with watch=1 on a
// collection, on a resource path, across all namespaces and narrowed to one name.
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { paths } from '../../harness/src/fixtures.ts';
import { checkEvents, type Expected, lines, readUntilObject, readUntilWrite, withRoom } from './support.ts';

const header = (h: Record<string, string | string[] | undefined>, n: string) => {
  const v = h[n.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
};

describe('watch: the verb and its stream', () => {
  conformance(
    {
      id: 'watch/verb/collection-stream',
      title:
        'A GET with watch=1 on a collection path answers HTTP 200 with a chunked application/json stream that stays open and carries the changes',
      doc: 1,
      section: 'Events',
      place:
        'an HTTP 200 response with `Transfer-Encoding: chunked` and `Content-Type: application/json`, containing a series of JSON event documents (`type`, `object`)',
      specRules: ['doc1/events/service-emits-change-notifications-watch-stream'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      await withRoom(client, async (room) => {
        const s = await step('open a watch on the empty collection', () => room.watch({ watch: 1 }));
        check(s.status === 200, 'HTTP 200', `HTTP ${s.status} ${show(s.events[0])}`, 'a watch answers 200');
        const ct = header(s.headers, 'content-type') ?? '';
        check(
          ct.split(';')[0]!.trim().toLowerCase() === 'application/json',
          'Content-Type: application/json',
          `Content-Type: ${ct || '(none)'}`,
        );
        const te = header(s.headers, 'transfer-encoding') ?? '';
        check(/\bchunked\b/i.test(te), 'Transfer-Encoding: chunked', `Transfer-Encoding: ${te || '(none)'}`);
        const a = await step('create an object', () => room.create('a', { k: '1' }));
        const end = await room.sentinel();
        const events = room.mine(await readUntilObject(s, end.name));
        checkEvents(events, [a, end], 'the stream carries one event per change');
      });
    },
  );

  conformance(
    {
      id: 'watch/verb/event-documents',
      title:
        'Each watch event is a JSON document with a string type and the object, a serialized object with kind, apiVersion and metadata',
      doc: 1,
      section: 'Resources and their fields',
      place: 'Watch event: a JSON document with `type` (string) and `object`',
      specRules: ['doc1/resources-their-fields/watch-event-json-document-type-string'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const s = await room.watchOk({ watch: 1 });
        await room.create('a', { k: '1' });
        await room.update('a', { k: '2' });
        await room.remove('a');
        const end = await room.sentinel();
        const events = await readUntilObject(s, end.name);
        for (const e of events) {
          check(
            typeof e.type === 'string' && e.type.length > 0,
            'a non-empty string `type`',
            JSON.stringify(e).slice(0, 300),
          );
          check(
            !!e.object && typeof e.object === 'object' && !Array.isArray(e.object),
            'an `object` that is a JSON object',
            JSON.stringify(e).slice(0, 300),
          );
          if (e.type === 'BOOKMARK') continue;
          check(
            e.object.kind === 'ConfigMap' &&
              e.object.apiVersion === 'v1' &&
              typeof e.object.metadata === 'object',
            'the envelope fields of every serialized object: kind "ConfigMap", apiVersion "v1", metadata',
            JSON.stringify(e.object).slice(0, 300),
            'envelope fields on every serialized object: kind, apiVersion, metadata',
          );
        }
        check(events.length >= 4, 'at least one event per change (4 changes)', lines(events));
      });
    },
  );

  conformance(
    {
      id: 'watch/verb/resource-path',
      title:
        'A GET with watch=1 on a resource path streams the state and the changes of that one object, none of its siblings',
      doc: 1,
      section: 'Operations',
      place:
        'watch | GET with `watch=1` | collection or resource path | none | chunked stream of JSON event documents',
      specRules: ['doc1/operations/watch-get-watch-1-collection-resource'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      await withRoom(client, async (room) => {
        const a0 = await room.create('a', { v: '0' });
        await room.create('b', { v: '0' });
        const s = await step('watch the resource path of a', () => room.watchOk({ watch: 1 }, room.one('a')));
        const want: Expected[] = [a0];
        await room.update('b', { v: '1' });
        want.push(await room.update('a', { v: '1' }));
        await room.remove('b');
        want.push(await room.remove('a'));
        await room.create('b', { v: '2' });
        const last = await room.create('a', { v: '3' });
        want.push(last);
        const events = await readUntilWrite(s, last);
        checkEvents(
          events,
          want,
          'the synthetic ADDED of the object (rv unset: Get State), then its own changes only',
          { lenientDelete: true },
        );
      });
    },
  );

  conformance(
    {
      id: 'watch/verb/field-selector-name',
      title:
        'A collection watch with fieldSelector metadata.name=<name> streams the events of that object only',
      doc: 1,
      section: 'Operations',
      place:
        'watch | GET with `watch=1` | collection path (narrowed to one object by fieldSelector metadata.name: not shown; Kubernetes clients watch one object this way)',
      specRules: ['doc1/operations/watch-get-watch-1-collection-resource'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('b', { v: '0' });
        const s = await room.watchOk({ watch: 1, fieldSelector: 'metadata.name=a' });
        const want: Expected[] = [];
        want.push(await room.create('a', { v: '0' }));
        await room.update('b', { v: '1' });
        want.push(await room.patch('a', { v: '1' }));
        await room.remove('b');
        want.push(await room.remove('a'));
        await room.create('b', { v: '2' });
        const last = await room.create('a', { v: '3' });
        want.push(last);
        checkEvents(await readUntilWrite(s, last), want, 'only the events of the selected name');
      });
    },
  );

  conformance(
    {
      id: 'watch/verb/all-namespaces',
      title:
        'A watch on the collection across all namespaces carries the changes made in one namespace, in order',
      doc: 1,
      section: 'Path shapes',
      place: 'A namespaced type also has a collection across all namespaces',
      specRules: ['doc1/path-shapes/namespaced-type-also-has-collection-across'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        const a0 = await room.create('a', { v: '0' });
        // Start at Exact from the create, so the stream does not begin with every object of the target
        const s = await room.watchOk({ watch: 1, resourceVersion: a0.rv }, paths.allConfigmaps());
        const want = [await room.update('a', { v: '1' }), await room.remove('a'), await room.sentinel()];
        // this namespace's events of the case's own objects (a cluster's root-CA publisher writes
        // into a new namespace too, a moment after it appears)
        const mine = room.mine(
          (await readUntilObject(s, want[2]!.name)).filter((e) => e.object?.metadata?.namespace === room.ns),
        );
        checkEvents(mine, want, 'the changes of this namespace, in write order', { lenientDelete: true });
      });
    },
  );
});
