// deletecollection: doc1 § Operations says its HTTP method and path are not shown; Kubernetes
// serves it as DELETE on the collection path, narrowed by a label selector. The cases check
// that exactly the selected objects of that namespace go.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';

const PLACE =
  'HTTP method and path of deletecollection and proxy: not shown (Kubernetes: DELETE on the collection path)';

describe('paths: deletecollection', () => {
  const ns = useNamespace('paths-dc');
  const other = useNamespace('paths-dc-b');

  conformance(
    {
      id: 'paths/deletecollection/label-selector',
      title: 'DELETE on a collection path with a label selector deletes the selected objects and no others',
      doc: 1,
      section: 'Operations',
      place: PLACE,
      level: 'BEYOND',
    },
    async ({ client, step }) => {
      const run = uniqueName('dc');
      const selected = [uniqueName('sel'), uniqueName('sel'), uniqueName('sel')];
      const kept = [uniqueName('keep'), uniqueName('keep')];
      const unlabelled = uniqueName('none');
      await step('create 3 selected, 2 other-labelled and 1 unlabelled ConfigMaps', async () => {
        for (const n of selected)
          checkStatus(
            await client.post(paths.configmaps(ns.name), configMap(n, {}, { run, pick: 'yes' })),
            201,
          );
        for (const n of kept)
          checkStatus(
            await client.post(paths.configmaps(ns.name), configMap(n, {}, { run, pick: 'no' })),
            201,
          );
        checkStatus(await client.post(paths.configmaps(ns.name), configMap(unlabelled)), 201);
      });
      const r = await client.delete(paths.configmaps(ns.name), {
        query: { labelSelector: `run=${run},pick=yes` },
      });
      check(r.status >= 200 && r.status < 300, '2xx (Kubernetes: 200)', r.describe());
      for (const n of selected)
        checkStatus(
          await client.get(paths.configmap(ns.name, n)),
          404,
          undefined,
          `selected ${n} is deleted`,
        );
      for (const n of [...kept, unlabelled])
        checkStatus(await client.get(paths.configmap(ns.name, n)), 200, undefined, `unselected ${n} remains`);
    },
  );

  conformance(
    {
      id: 'paths/deletecollection/namespace-bound',
      title: "DELETE on one namespace's collection leaves matching objects of other namespaces alone",
      doc: 1,
      section: 'Operations',
      place: PLACE,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const run = uniqueName('dc');
      const name = uniqueName('cm');
      checkStatus(await client.post(paths.configmaps(ns.name), configMap(name, {}, { run })), 201);
      checkStatus(await client.post(paths.configmaps(other.name), configMap(name, {}, { run })), 201);
      const r = await client.delete(paths.configmaps(ns.name), { query: { labelSelector: `run=${run}` } });
      check(r.status >= 200 && r.status < 300, '2xx', r.describe());
      checkStatus(
        await client.get(paths.configmap(ns.name, name)),
        404,
        undefined,
        `${name} of ${ns.name} is deleted`,
      );
      const g = await client.get(paths.configmap(other.name, name));
      checkStatus(g, 200, undefined, `${name} of ${other.name} remains`);
      check(!g.json?.metadata?.deletionTimestamp, 'not being deleted', show(g.json?.metadata));
    },
  );
});
