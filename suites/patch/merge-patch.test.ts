// doc1 § Operations (PATCH content types: JSON Merge Patch, RFC 7386). Expected objects come from
// the suite's model of RFC 7386 § 2 (model.ts): on a ConfigMap's string maps (data, labels,
// annotations), and on nested JSON under a custom resource whose spec keeps unknown fields.
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { useNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';
import { useCustomResource } from './custom-resource.ts';
import { type Json, type JsonObject, mergePatch, mergePatchArb, objectArb, stringPatchArb } from './model.ts';
import {
  type CmInit,
  MEDIA,
  makeConfigMap,
  ROW,
  readBack,
  SECTION_OPS,
  sameJson,
  showSorted,
  strMap,
} from './support.ts';

const RUNS = 25;

interface CmPatch {
  data?: Record<string, string | null> | null;
  metadata?: {
    labels?: Record<string, string | null> | null;
    annotations?: Record<string, string | null> | null;
  };
}

/** The model's view of a ConfigMap: its three string maps. */
function cmDoc(init: CmInit): JsonObject {
  return {
    data: init.data ?? {},
    metadata: { labels: init.labels ?? {}, annotations: init.annotations ?? {} },
  };
}

function cmMaps(o: any): Record<string, Record<string, string>> {
  return {
    data: strMap(o?.data),
    labels: strMap(o?.metadata?.labels),
    annotations: strMap(o?.metadata?.annotations),
  };
}

/** Patches a fresh ConfigMap and compares answer and stored object with MergePatch(target, patch). */
async function cmPatchMatchesModel(client: Client, ns: string, init: CmInit, patch: CmPatch): Promise<void> {
  const cm = await makeConfigMap(client, ns, init);
  const want = cmMaps(mergePatch(cmDoc(init), patch as Json));
  const r = await client.patch(cm.path, patch, MEDIA.merge);
  checkStatus(r, 200, undefined, `merge patch ${show(patch)} on ${show(init)}`);
  const why = `RFC 7386 MergePatch(${show(init)}, ${show(patch)})`;
  check(sameJson(cmMaps(r.json), want), showSorted(want), showSorted(cmMaps(r.json)), `the answer is ${why}`);
  const now = cmMaps(await readBack(client, cm.path));
  check(sameJson(now, want), showSorted(want), showSorted(now), `the stored object is ${why}`);
}

const dataKey = fc.constantFrom('a', 'b', 'c', 'd');
const labelKey = fc.constantFrom('app', 'tier', 'example.com/team', 'k');
const labelValue = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,4}[a-z0-9])?$/);
const text = fc.string({ maxLength: 6 });

const cmInitArb: fc.Arbitrary<CmInit> = fc.record({
  data: fc.dictionary(dataKey, text, { maxKeys: 4 }),
  labels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
  annotations: fc.dictionary(labelKey, text, { maxKeys: 3 }),
});
const orNull = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 8 });
const cmPatchArb: fc.Arbitrary<CmPatch> = fc.record(
  {
    data: orNull(stringPatchArb(dataKey, text)),
    metadata: fc.record(
      {
        labels: orNull(stringPatchArb(labelKey, labelValue)),
        annotations: orNull(stringPatchArb(labelKey, text)),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const CM_REGRESSIONS: [CmInit, CmPatch][] = [
  [{ data: { a: '1', b: '2' } }, { data: { a: null, c: '3' } }],
  [
    { data: { a: '1' }, labels: { app: 'x' } },
    { data: null, metadata: { labels: { app: null, tier: 'db' } } },
  ],
  [{}, { data: { a: null } }], // deleting what is absent is no error
];

/** RFC 7386 Appendix A examples whose target and patch are objects, placed under spec. */
const CR_REGRESSIONS: [JsonObject, JsonObject][] = [
  [{ a: 'b' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }],
  [{ a: 'b' }, { a: null }],
  [{ a: 'b', b: 'c' }, { a: null }],
  [{ a: ['b'] }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }],
  [{ a: [1, 2] }, { a: { a: 'b', c: null } }],
  [{}, { a: { bb: { ccc: null } } }],
];

describe('patch: JSON Merge Patch (RFC 7386)', () => {
  const ns = useNamespace('patch-merge');
  const cr = useCustomResource('merge', { spec: 'preserve' });

  conformance(
    {
      id: 'patch/merge/set-replace-delete',
      title:
        'A merge patch adds and replaces the keys it names, deletes those it sets to null, and keeps the others',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.merge,
      specRules: ['doc1/operations/application-merge-patch-json-json-merge'],
      level: 'MUST',
    },
    async ({ client }) => {
      await cmPatchMatchesModel(
        client,
        ns.name,
        { data: { keep: 'k', change: 'old', drop: 'd' }, labels: { app: 'web', tier: 'front' } },
        { data: { change: 'new', drop: null, add: 'a' }, metadata: { labels: { tier: null } } },
      );
    },
  );

  conformance(
    {
      id: 'patch/merge/law-string-maps',
      title:
        "Law: for any ConfigMap data, labels and annotations and any merge patch of them, the result is RFC 7386's MergePatch(target, patch)",
      doc: 1,
      section: SECTION_OPS,
      place: ROW.merge,
      specRules: ['doc1/operations/application-merge-patch-json-json-merge'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(cmInitArb, cmPatchArb, (init, patch) =>
          cmPatchMatchesModel(client, ns.name, init, patch),
        ),
        { ...propertySettings(RUNS), examples: CM_REGRESSIONS },
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'patch/merge/law-nested-json',
      title:
        "Law: for any nested JSON object under a custom resource's free-form spec and any merge patch, the result is RFC 7386's MergePatch(target, patch): objects merge recursively, null deletes, arrays and scalars replace",
      doc: 1,
      section: SECTION_OPS,
      place: ROW.merge,
      specRules: ['doc1/operations/application-merge-patch-json-json-merge'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (cr.reason) skip(cr.reason);
      const one = async (spec: JsonObject, patch: JsonObject) => {
        const name = uniqueName('w');
        const c = await client.post(cr.collection(ns.name), cr.object(name, spec));
        checkStatus(c, 201, undefined, `setup: create a ${cr.kind} with spec ${show(spec)}`);
        const want = mergePatch(spec, patch);
        const why = `RFC 7386 MergePatch(${show(spec)}, ${show(patch)})`;
        const r = await client.patch(cr.one(ns.name, name), { spec: patch }, MEDIA.merge);
        checkStatus(r, 200, undefined, `merge patch {spec: ${show(patch)}}`);
        check(
          sameJson(r.json?.spec ?? {}, want),
          showSorted(want),
          showSorted(r.json?.spec ?? {}),
          `the answer's spec is ${why}`,
        );
        const now = await readBack(client, cr.one(ns.name, name));
        check(
          sameJson(now.spec ?? {}, want),
          showSorted(want),
          showSorted(now.spec ?? {}),
          `the stored spec is ${why}`,
        );
        await client.delete(cr.one(ns.name, name));
      };
      await fc.assert(fc.asyncProperty(objectArb, mergePatchArb, one), {
        ...propertySettings(RUNS),
        examples: CR_REGRESSIONS,
      });
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'patch/merge/array-replaced',
      title: 'A merge patch replaces an array as a whole (no element-wise merge)',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.merge,
      specRules: ['doc1/operations/application-merge-patch-json-json-merge'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (cr.reason) skip(cr.reason);
      const name = uniqueName('w');
      const c = await client.post(
        cr.collection(ns.name),
        cr.object(name, { tags: ['a', 'b'], items: [{ k: 1 }, { k: 2 }] }),
      );
      checkStatus(c, 201, undefined, 'setup: create the custom resource');
      const r = await client.patch(
        cr.one(ns.name, name),
        { spec: { tags: ['c'], items: [{ v: 3 }] } },
        MEDIA.merge,
      );
      checkStatus(r, 200);
      const want = { tags: ['c'], items: [{ v: 3 }] };
      const now = (await readBack(client, cr.one(ns.name, name))).spec;
      check(
        sameJson(now, want),
        showSorted(want),
        showSorted(now),
        'RFC 7386: a patch value that is not an object replaces the target value',
      );
    },
  );
});
