// doc1 § Resources and their fields: deletionTimestamp is "set when a delete is first
// requested"; a later delete request on a Finalizing object does not move it. (Its own file:
// the case waits over a second, since timestamps have one-second resolution, and files run
// in parallel.)
import { afterAll, describe } from 'vitest';
import { checkEqual, checkRfc3339, checkStatus } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { paths, useNamespace } from '../../harness/src/fixtures.ts';
import { session } from '../../harness/src/session.ts';
import { createHeld, fin, releaseAll, removeFinalizer } from './helpers.ts';

describe('deletion: repeated delete requests', () => {
  const ns = useNamespace('del-again');
  afterAll(() => releaseAll(session(), ns.name));

  conformance(
    {
      id: 'deletion/finalizers/second-delete-keeps-timestamp',
      title:
        'A second delete request on a Finalizing object leaves its deletionTimestamp and finalizers as the first set them',
      doc: 1,
      section: 'Resources and their fields',
      place: 'deletionTimestamp | timestamp or null | Set when a delete is first requested',
      specRules: ['doc1/resources-their-fields/deletiontimestamp-timestamp-null-set-when-delete'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      const o = await createHeld(client, ns.name, [fin('a')]);
      const path = paths.configmap(ns.name, o.metadata.name);
      checkStatus(await client.delete(path), [200, 202]);
      const first = await client.get(path);
      checkStatus(first, 200);
      const ts = first.json.metadata.deletionTimestamp;
      checkRfc3339(ts, 'deletionTimestamp after the first delete request');
      await step('wait past the next second', () => new Promise((r) => setTimeout(r, 1_100)));
      const again = await client.delete(path);
      checkStatus(again, [200, 202], undefined, 'a delete request on a Finalizing object is accepted');
      if (again.json?.kind === 'ConfigMap')
        checkEqual(
          again.json.metadata?.deletionTimestamp,
          ts,
          'deletionTimestamp in the answer to the second request',
        );
      const g = await client.get(path);
      checkStatus(g, 200, undefined, 'still Finalizing: the finalizer remains');
      checkEqual(g.json.metadata.deletionTimestamp, ts, 'deletionTimestamp after the second request');
      checkEqual(g.json.metadata.finalizers, [fin('a')], 'finalizers after the second request');
      await removeFinalizer(client, path, fin('a'));
    },
  );
});
