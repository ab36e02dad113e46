// doc1 § What the service does (patch is distinct from update) and § Operations (the PATCH
// content types): a patch needs no resourceVersion, the apply media type exists (its semantics
// belong to doc2), and what Kubernetes does with media types outside the table.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import {
  checkUnchanged,
  MEDIA,
  makeConfigMap,
  ROW,
  readBack,
  SECTION_OPS,
  sameJson,
  showSorted,
  strMap,
} from './support.ts';

describe('patch: media types and the patch verb', () => {
  const ns = useNamespace('patch-media');

  conformance(
    {
      id: 'patch/verb/no-resource-version',
      title:
        'A PATCH needs no resourceVersion: sent after another writer changed the object, it applies to the current object instead of failing',
      doc: 1,
      section: 'What the service does',
      place: 'patch | HTTP PATCH; distinct from update',
      specRules: ['doc1/what-service-does/patch-http-patch-distinct-update'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const put = await step('another writer updates the object', () =>
        client.put(cm.path, {
          ...configMap(cm.name, { a: '1', b: '2' }),
          metadata: { name: cm.name, resourceVersion: cm.rv },
        }),
      );
      checkStatus(put, 200, undefined, 'setup: the update applies');
      const r = await step('a merge patch without resourceVersion', () =>
        client.patch(cm.path, { data: { c: '3' } }, MEDIA.merge),
      );
      checkStatus(r, 200, undefined, 'a patch carries no resourceVersion and is not refused as stale');
      const want = { a: '1', b: '2', c: '3' };
      const now = strMap((await readBack(client, cm.path)).data);
      check(
        sameJson(now, want),
        showSorted(want),
        showSorted(now),
        "the patch applies to the current object (the other writer's b stays)",
      );
    },
  );

  conformance(
    {
      id: 'patch/verb/stale-resource-version-409',
      title:
        'A merge patch that carries a stale metadata.resourceVersion is refused with 409 Conflict (as Kubernetes does)',
      doc: 1,
      section: 'Errors',
      place:
        'A patch that names a resourceVersion: not shown (Kubernetes checks it like an update: 409 when stale)',
      level: 'BEYOND',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const p1 = await client.patch(cm.path, { data: { a: '2' } }, MEDIA.merge);
      checkStatus(p1, 200, undefined, 'setup: a first patch changes the version');
      const r = await client.patch(
        cm.path,
        { metadata: { resourceVersion: cm.rv }, data: { a: '3' } },
        MEDIA.merge,
      );
      checkStatus(r, 409);
      const now = strMap((await readBack(client, cm.path)).data);
      check(now.a === '2', 'data.a "2" (the stale patch is not applied)', show(now));
    },
  );

  conformance(
    {
      id: 'patch/verb/absent-object-404',
      title: 'A merge patch of an absent object answers 404 and creates nothing (only apply creates)',
      doc: 1,
      section: SECTION_OPS,
      place:
        'Any PATCH other than apply is logically a patch operation (Kubernetes: 404 NotFound for an absent object)',
      specRules: ['doc1/operations/any-patch-other-than-apply-logically'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const name = uniqueName('absent');
      const path = paths.configmap(ns.name, name);
      const r = await client.patch(path, { data: { a: '1' } }, MEDIA.merge);
      checkStatus(r, 404, 'NotFound');
      const g = await client.get(path);
      checkStatus(g, 404, undefined, 'nothing was created');
    },
  );

  for (const ct of ['application/json', 'text/plain']) {
    conformance(
      {
        id: `patch/verb/unsupported-type-415-${ct.replace('/', '-')}`,
        title: `A PATCH whose Content-Type is ${ct} (not in the table) is refused with 415 and changes nothing`,
        doc: 1,
        section: SECTION_OPS,
        place:
          'PATCH content types (set by `Content-Type`): a media type outside the table: not shown (Kubernetes answers 415)',
        level: 'BEYOND',
      },
      async ({ client }) => {
        const data = { a: '1' };
        const cm = await makeConfigMap(client, ns.name, { data });
        const r = await client.patch(cm.path, JSON.stringify({ data: { a: '2' } }), ct);
        checkStatus(r, 415);
        await checkUnchanged(client, cm.path, { data, rv: cm.rv }, 'the refused patch changes nothing');
      },
    );
  }

  conformance(
    {
      id: 'patch/verb/apply-type-served',
      title:
        'A PATCH with Content-Type application/apply-patch+yaml (and a fieldManager) is not refused as an unsupported media type (its semantics are in document 2)',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.apply,
      specRules: ['doc1/operations/application-apply-patch-yaml-server-side'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('applied');
      const r = await client.patch(
        paths.configmap(ns.name, name),
        JSON.stringify(configMap(name, { a: '1' })),
        MEDIA.apply,
        {
          query: { fieldManager: 'conformance' },
        },
      );
      check(
        r.status !== 415 && r.status < 500,
        'the media type is supported (not 415, no server error)',
        r.describe(),
      );
    },
  );
});
