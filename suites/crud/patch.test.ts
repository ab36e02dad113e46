// doc1 § Operations and § Update mechanisms: PATCH is distinct from update; it sends
// differences merged into the current object instead of replacing it.
import { describe } from 'vitest';
import { checkEqual, checkStatus } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';

describe('crud: patch is not update', () => {
  const ns = useNamespace('crud-patch');

  conformance(
    {
      id: 'crud/patch/merge-keeps-other-fields',
      title:
        'A merge patch naming one key changes that key and keeps the others, where a PUT with the same data would drop them',
      doc: 1,
      section: 'Operations',
      place:
        'patch: HTTP PATCH; distinct from update. `application/merge-patch+json`: a partial representation merged into the current object',
      specRules: ['doc1/operations/application-merge-patch-json-json-merge'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      checkStatus(await client.post(paths.configmaps(ns.name), configMap(name, { a: '1', b: '2' })), 201);
      const r = await client.patch(
        paths.configmap(ns.name, name),
        { data: { b: '3' } },
        'application/merge-patch+json',
      );
      checkStatus(r, 200);
      checkEqual(
        r.json.data,
        { a: '1', b: '3' },
        'the patched object keeps the keys the patch does not name',
      );
      const g = await client.get(paths.configmap(ns.name, name));
      checkEqual(g.json.data, { a: '1', b: '3' }, 'stored object after the patch');
    },
  );

  conformance(
    {
      id: 'crud/patch/json-patch-differences',
      title:
        'A JSON Patch adding one key needs no resourceVersion and leaves the rest of the object as it was',
      doc: 1,
      section: 'Update mechanisms',
      place: 'PATCH (JSON Patch) sends differences and may depend on existing values',
      specRules: ['doc1/update-mechanisms/patch-json-patch-sends-differences-may'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      const c = await client.post(paths.configmaps(ns.name), configMap(name, { a: '1' }, { keep: 'me' }));
      checkStatus(c, 201);
      const r = await client.patch(
        paths.configmap(ns.name, name),
        [{ op: 'add', path: '/data/c', value: '9' }],
        'application/json-patch+json',
      );
      checkStatus(r, 200);
      checkEqual(r.json.data, { a: '1', c: '9' }, 'data after the patch');
      checkEqual(r.json.metadata.labels, { keep: 'me' }, 'labels untouched by the patch');
      checkEqual(r.json.metadata.uid, c.json.metadata.uid, 'the same object');
    },
  );
});
