// doc1 § States and transitions, the deletion table: a delete request on an object with
// finalizers moves it from Live to Finalizing (deletionTimestamp set, still readable); it stays
// Finalizing while finalizers remain and is removed when the last one goes.
import { afterAll, describe } from 'vitest';
import {
  check,
  checkEqual,
  checkRfc3339,
  checkStatus,
  parseRfc3339,
  show,
} from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { session } from '../../harness/src/session.ts';
import { createHeld, fin, releaseAll, removeFinalizer } from './helpers.ts';

const SECTION = 'States and transitions';

describe('deletion: finalizers', () => {
  const ns = useNamespace('del-fin');
  afterAll(() => releaseAll(session(), ns.name));

  conformance(
    {
      id: 'deletion/finalizers/first-delete-marks',
      title:
        'A delete request on an object with a finalizer sets deletionTimestamp to about the current time and leaves the object readable with its finalizers',
      doc: 1,
      section: SECTION,
      place:
        'Live (deletionTimestamp unset) | delete request | first delete request | Finalizing (deletionTimestamp set to current time)',
      specRules: ['doc1/states-transitions/live-deletiontimestamp-unset-delete-request-first'],
      level: 'MUST',
    },
    async ({ client }) => {
      const f = [fin('a')];
      const o = await createHeld(client, ns.name, f);
      const path = paths.configmap(ns.name, o.metadata.name);
      checkEqual(o.metadata.deletionTimestamp, undefined, 'a new object is Live (deletionTimestamp unset)');
      const d = await client.delete(path);
      checkStatus(d, [200, 202], undefined, 'the delete request is accepted');
      const g = await client.get(path);
      checkStatus(g, 200, undefined, 'a Finalizing object is still readable');
      const ts = g.json.metadata.deletionTimestamp;
      checkRfc3339(
        ts,
        'deletionTimestamp',
        'deletionTimestamp: timestamp, set when a delete is first requested',
      );
      checkRfc3339(o.metadata.creationTimestamp, 'creationTimestamp');
      const at = parseRfc3339(ts)!;
      const created = parseRfc3339(o.metadata.creationTimestamp)!;
      // measured against creationTimestamp (the server's own clock): the case runs in well under a minute
      check(
        at >= created - 1_000 && at <= created + 60_000,
        `a deletionTimestamp at the time of the request (creationTimestamp ${o.metadata.creationTimestamp} .. +60 s)`,
        show(ts),
      );
      checkEqual(g.json.metadata.finalizers, f, 'the finalizers are untouched by the delete request');
      checkEqual(g.json.metadata.uid, o.metadata.uid, 'the same object');
    },
  );

  conformance(
    {
      id: 'deletion/finalizers/remove-one-keeps',
      title:
        'Removing one of two finalizers from a Finalizing object leaves it Finalizing with the same deletionTimestamp',
      doc: 1,
      section: SECTION,
      place: 'Finalizing | a finalizer is removed | finalizers remain | Finalizing',
      specRules: ['doc1/states-transitions/finalizing-finalizer-removed-finalizers-remain-finalizing'],
      level: 'MUST',
    },
    async ({ client }) => {
      const o = await createHeld(client, ns.name, [fin('a'), fin('b')]);
      const path = paths.configmap(ns.name, o.metadata.name);
      checkStatus(await client.delete(path), [200, 202]);
      const marked = await client.get(path);
      checkStatus(marked, 200);
      const r = await removeFinalizer(client, path, fin('a'));
      checkStatus(r, 200, undefined, 'removing a finalizer is an update');
      const g = await client.get(path);
      checkStatus(g, 200, undefined, 'the object remains while a finalizer remains');
      checkEqual(g.json.metadata.finalizers, [fin('b')], 'the remaining finalizer');
      checkEqual(
        g.json.metadata.deletionTimestamp,
        marked.json.metadata.deletionTimestamp,
        'deletionTimestamp is kept while Finalizing',
      );
    },
  );

  conformance(
    {
      id: 'deletion/finalizers/remove-last-removes',
      title: 'Removing the last finalizer of a Finalizing object removes it: a GET answers 404 afterwards',
      doc: 1,
      section: SECTION,
      place:
        'Finalizing | last finalizer removed | none remain | Removed | Object removed from the backing store',
      specRules: ['doc1/states-transitions/finalizing-last-finalizer-removed-none-remain'],
      level: 'MUST',
    },
    async ({ client }) => {
      const o = await createHeld(client, ns.name, [fin('only')]);
      const path = paths.configmap(ns.name, o.metadata.name);
      checkStatus(await client.delete(path), [200, 202]);
      checkStatus(await client.get(path), 200, undefined, 'Finalizing before the last finalizer goes');
      const r = await removeFinalizer(client, path, fin('only'));
      check(
        r.status >= 200 && r.status < 300,
        '2xx for the update that removes the last finalizer',
        r.describe(),
      );
      checkStatus(await client.get(path), 404, undefined, 'the object is removed');
      const l = await client.get(paths.configmaps(ns.name));
      const names = (l.json?.items ?? []).map((x: any) => x.metadata.name);
      check(!names.includes(o.metadata.name), `no ${o.metadata.name} in the list`, show(names));
    },
  );

  conformance(
    {
      id: 'deletion/finalizers/none-removed-at-once',
      title: 'A delete request on an object without finalizers removes it: a GET answers 404 right after',
      doc: 1,
      section: SECTION,
      place: 'Finalizing | last finalizer removed | none remain | Removed',
      specRules: ['doc1/states-transitions/finalizing-last-finalizer-removed-none-remain'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      checkStatus(await client.post(paths.configmaps(ns.name), configMap(name)), 201);
      checkStatus(await client.delete(paths.configmap(ns.name, name)), [200, 202]);
      checkStatus(
        await client.get(paths.configmap(ns.name, name)),
        404,
        undefined,
        'nothing holds the object',
      );
    },
  );

  conformance(
    {
      id: 'deletion/finalizers/live-object-not-held',
      title: 'Finalizers on an object no one asked to delete neither delete it nor block its updates',
      doc: 1,
      section: SECTION,
      place: 'Live (deletionTimestamp unset) | delete request | first delete request | Finalizing',
      specRules: ['doc1/states-transitions/live-deletiontimestamp-unset-delete-request-first'],
      level: 'MUST',
    },
    async ({ client }) => {
      const o = await createHeld(client, ns.name, [fin('a')]);
      const path = paths.configmap(ns.name, o.metadata.name);
      const u = await client.put(path, { ...o, data: { changed: 'yes' } });
      checkStatus(u, 200, undefined, 'a Live object with finalizers can be updated');
      const r = await removeFinalizer(client, path, fin('a'));
      checkStatus(r, 200);
      const g = await client.get(path);
      checkStatus(g, 200, undefined, 'removing the last finalizer of a Live object does not remove it');
      checkEqual(g.json.metadata.deletionTimestamp, undefined, 'still Live');
      checkEqual(g.json.data, { changed: 'yes' });
    },
  );
});
