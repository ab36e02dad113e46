// doc1 § Operations (list) and § Resources and their fields (the `<Kind>List` collection
// response): the envelope, and items that follow creates, updates and deletes.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';

describe('crud: list', () => {
  const ns = useNamespace('crud-list');

  conformance(
    {
      id: 'crud/list/envelope',
      title:
        'GET on a collection path returns a ConfigMapList with apiVersion v1, a string metadata.resourceVersion and the objects as items',
      doc: 1,
      section: 'Resources and their fields',
      place:
        'Collection response (`<Kind>List`): `kind` is the resource kind followed by `List`; `apiVersion`; `metadata` with `resourceVersion` (string); `items` (array of objects of the kind)',
      specRules: ['doc1/resources-their-fields/collection-response-kind-list-kind-resource'],
      level: 'MUST',
    },
    async ({ client }) => {
      const names = [uniqueName('cm'), uniqueName('cm')];
      for (const n of names)
        checkStatus(await client.post(paths.configmaps(ns.name), configMap(n, { n })), 201);
      const r = await client.get(paths.configmaps(ns.name));
      checkStatus(r, 200);
      checkEqual(r.json.kind, 'ConfigMapList', 'kind is the resource kind followed by List (never "List")');
      checkEqual(r.json.apiVersion, 'v1', 'apiVersion of the core group');
      const rv = r.json.metadata?.resourceVersion;
      check(typeof rv === 'string' && rv !== '', 'a non-empty string metadata.resourceVersion', show(rv));
      check(Array.isArray(r.json.items), 'items is an array', show(r.json.items));
      for (const n of names) {
        const it = r.json.items.find((o: any) => o?.metadata?.name === n);
        check(!!it, `an item named ${n}`, show(r.json.items.map((o: any) => o?.metadata?.name)));
        checkEqual(it.data, { n }, `item ${n} carries the object's data`);
        checkEqual(it.metadata.namespace, ns.name, `item ${n} is in the listed namespace`);
      }
    },
  );

  conformance(
    {
      id: 'crud/list/follows-writes',
      title:
        'A list after a create, an update and a delete shows the created object, the updated data and not the deleted one',
      doc: 1,
      section: 'Operations',
      place: 'list | GET | collection path | none | `<Kind>List`',
      specRules: ['doc1/operations/list-get-collection-path-none-kind'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      const kept = uniqueName('kept');
      const gone = uniqueName('gone');
      await step('create two ConfigMaps, update one, delete the other', async () => {
        checkStatus(await client.post(paths.configmaps(ns.name), configMap(kept, { v: '1' })), 201);
        checkStatus(await client.post(paths.configmaps(ns.name), configMap(gone)), 201);
        const g = await client.get(paths.configmap(ns.name, kept));
        checkStatus(g, 200);
        checkStatus(await client.put(paths.configmap(ns.name, kept), { ...g.json, data: { v: '2' } }), 200);
        checkStatus(await client.delete(paths.configmap(ns.name, gone)), [200, 202]);
      });
      const r = await client.get(paths.configmaps(ns.name));
      checkStatus(r, 200);
      const items: any[] = r.json.items ?? [];
      const names = items.map((o) => o?.metadata?.name);
      check(!names.includes(gone), `no item named ${gone} (deleted)`, show(names));
      const it = items.find((o) => o?.metadata?.name === kept);
      check(!!it, `an item named ${kept}`, show(names));
      checkEqual(it.data, { v: '2' }, 'the item shows the data of the update');
    },
  );
});
