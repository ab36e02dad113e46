// doc1 § Operations (PATCH content types: JSON Patch) and § Update mechanisms (a test operation
// gives conditional updates). Expected objects come from the suite's RFC 6902 model.
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';
import { type Json, keyArb, type Op, pointer, tryJsonPatch } from './model.ts';
import {
  checkUnchanged,
  MEDIA,
  makeConfigMap,
  ROW,
  readBack,
  SECTION_OPS,
  SECTION_UPDATES,
  sameJson,
  showSorted,
  strMap,
} from './support.ts';

const RUNS = 25;
const TEST_ROW =
  'PATCH (JSON Patch) sends differences and may depend on existing values; a test operation gives conditional updates';

type Data = Record<string, string>;

/** Sends a JSON Patch and compares the answer and the stored object with the model's result. */
async function patchMatchesModel(client: Client, ns: string, init: Data, ops: Op[]): Promise<void> {
  const cm = await makeConfigMap(client, ns, { data: init });
  const model = tryJsonPatch({ data: init }, ops);
  const r = await client.patch(cm.path, ops, MEDIA.json);
  if (!model.ok) {
    check(
      r.status >= 400 && r.status < 500,
      `a 4xx refusal (RFC 6902 § 5: ${model.error}; the whole patch fails)`,
      r.describe(),
      `ops ${show(ops)} on data ${show(init)}`,
    );
    await checkUnchanged(
      client,
      cm.path,
      { data: init, rv: cm.rv },
      `a failed JSON Patch leaves the object unchanged (ops ${show(ops)})`,
    );
    return;
  }
  const want = strMap((model.doc as { data?: Json }).data);
  checkStatus(r, 200, undefined, `ops ${show(ops)} on data ${show(init)} apply`);
  check(
    sameJson(strMap(r.json?.data), want),
    showSorted(want),
    showSorted(r.json?.data ?? {}),
    `the answer is the patched object (ops ${show(ops)} on ${show(init)})`,
  );
  const now = await readBack(client, cm.path);
  check(
    sameJson(strMap(now.data), want),
    showSorted(want),
    showSorted(now.data ?? {}),
    `the patched object is stored (ops ${show(ops)})`,
  );
}

const path = (k: string) => pointer('data', k);
const valArb = fc.constantFrom('1', '2', '3');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), path: keyArb.map(path), value: valArb }),
  fc.record({ op: fc.constant('remove' as const), path: keyArb.map(path) }),
  fc.record({ op: fc.constant('replace' as const), path: keyArb.map(path), value: valArb }),
  fc.record({ op: fc.constant('move' as const), from: keyArb.map(path), path: keyArb.map(path) }),
  fc.record({ op: fc.constant('copy' as const), from: keyArb.map(path), path: keyArb.map(path) }),
  fc.record({ op: fc.constant('test' as const), path: keyArb.map(path), value: valArb }),
);
const initArb = fc.dictionary(keyArb, valArb, { minKeys: 1, maxKeys: 4 });

/** Inputs always run: a failure after a successful op, a test at the end, a move onto itself, a missing target. */
const REGRESSIONS: [Data, Op[]][] = [
  [
    { a: '1' },
    [
      { op: 'replace', path: '/data/a', value: '2' },
      { op: 'remove', path: '/data/b' },
    ],
  ],
  [
    { a: '1', b: '2' },
    [
      { op: 'copy', from: '/data/a', path: '/data/c' },
      { op: 'test', path: '/data/c', value: '1' },
    ],
  ],
  [{ a: '1' }, [{ op: 'move', from: '/data/a', path: '/data/a' }]],
  [
    { a: '1' },
    [
      { op: 'add', path: '/data/b', value: '3' },
      { op: 'test', path: '/data/a', value: '2' },
    ],
  ],
  // RFC 6902 4.3 and 4.5: the target of `replace` and the `from` of `copy` must exist
  [{ a: '1' }, [{ op: 'replace', path: '/data/b', value: '2' }]],
  [{ a: '1' }, [{ op: 'copy', from: '/data/b', path: '/data/c' }]],
];

describe('patch: JSON Patch (RFC 6902)', () => {
  const ns = useNamespace('patch-json');

  conformance(
    {
      id: 'patch/json-patch/operations',
      title:
        'A JSON Patch applies its add, replace and remove operations in order and returns the patched object',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.json,
      specRules: ['doc1/operations/application-json-patch-json-json-patch'],
      level: 'MUST',
    },
    async ({ client }) => {
      await patchMatchesModel(client, ns.name, { a: '1', b: '2', c: '3' }, [
        { op: 'add', path: '/data/d', value: '4' },
        { op: 'replace', path: '/data/a', value: 'one' },
        { op: 'remove', path: '/data/b' },
        { op: 'add', path: '/data/d', value: 'four' },
      ]);
    },
  );

  conformance(
    {
      id: 'patch/json-patch/move-copy',
      title: 'A JSON Patch move takes the value away from its source and copy leaves it in place',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.json,
      specRules: ['doc1/operations/application-json-patch-json-json-patch'],
      level: 'MUST',
    },
    async ({ client }) => {
      await patchMatchesModel(client, ns.name, { a: 'x', b: 'y' }, [
        { op: 'move', from: '/data/a', path: '/data/c' },
        { op: 'copy', from: '/data/b', path: '/data/d' },
      ]);
    },
  );

  conformance(
    {
      id: 'patch/json-patch/pointer-escapes',
      title: 'A JSON Patch path unescapes ~1 as "/" (RFC 6901), so a prefixed annotation key can be patched',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.json,
      specRules: ['doc1/operations/application-json-patch-json-json-patch'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { annotations: { 'example.com/note': 'old' } });
      const r = await client.patch(
        cm.path,
        [
          { op: 'test', path: pointer('metadata', 'annotations', 'example.com/note'), value: 'old' },
          { op: 'replace', path: pointer('metadata', 'annotations', 'example.com/note'), value: 'new' },
          { op: 'add', path: pointer('metadata', 'annotations', 'example.com/other'), value: 'o' },
        ],
        MEDIA.json,
      );
      checkStatus(r, 200);
      const want = { 'example.com/note': 'new', 'example.com/other': 'o' };
      const got = (await readBack(client, cm.path)).metadata?.annotations ?? {};
      check(
        sameJson(got, want),
        showSorted(want),
        showSorted(got),
        '"/metadata/annotations/example.com~1note" names the key "example.com/note"',
      );
    },
  );

  conformance(
    {
      id: 'patch/json-patch/test-passes',
      title: 'A JSON Patch whose test operation holds is applied (a conditional update that succeeds)',
      doc: 1,
      section: SECTION_UPDATES,
      place: TEST_ROW,
      specRules: ['doc1/update-mechanisms/patch-json-patch-sends-differences-may'],
      level: 'MUST',
    },
    async ({ client }) => {
      await patchMatchesModel(client, ns.name, { state: 'ready', n: '1' }, [
        { op: 'test', path: '/data/state', value: 'ready' },
        { op: 'replace', path: '/data/n', value: '2' },
      ]);
    },
  );

  conformance(
    {
      id: 'patch/json-patch/test-fails-unchanged',
      title:
        'A JSON Patch whose test operation fails is refused and leaves the object unchanged, operations before the test included',
      doc: 1,
      section: SECTION_UPDATES,
      place: TEST_ROW,
      specRules: ['doc1/update-mechanisms/patch-json-patch-sends-differences-may'],
      level: 'MUST',
    },
    async ({ client }) => {
      const data = { state: 'ready', n: '1' };
      const cm = await makeConfigMap(client, ns.name, { data });
      const r = await client.patch(
        cm.path,
        [
          { op: 'replace', path: '/data/n', value: '2' },
          { op: 'test', path: '/data/state', value: 'busy' },
          { op: 'add', path: '/data/extra', value: 'x' },
        ],
        MEDIA.json,
      );
      check(r.status >= 400 && r.status < 500, 'a 4xx refusal (the test operation fails)', r.describe());
      await checkUnchanged(
        client,
        cm.path,
        { data, rv: cm.rv },
        'a failing test leaves the object unchanged',
      );
    },
  );

  conformance(
    {
      id: 'patch/json-patch/test-fails-422',
      title: 'A JSON Patch whose test operation fails is answered 422 (as Kubernetes does)',
      doc: 1,
      section: 'Errors',
      place: 'The status code of a failed JSON Patch test operation: not shown (Kubernetes answers 422)',
      level: 'BEYOND',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { state: 'ready' } });
      const r = await client.patch(cm.path, [{ op: 'test', path: '/data/state', value: 'busy' }], MEDIA.json);
      checkStatus(r, 422);
    },
  );

  conformance(
    {
      id: 'patch/json-patch/lost-update',
      title:
        'Two writers that test the value they read: the second JSON Patch fails, so its lost update is detected',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.json,
      specRules: ['doc1/operations/application-json-patch-json-json-patch'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { count: '1' } });
      const seen = strMap((await readBack(client, cm.path)).data).count!;
      const inc = (to: string) => [
        { op: 'test', path: '/data/count', value: seen },
        { op: 'replace', path: '/data/count', value: to },
      ];
      const first = await step('the first writer patches from the value it read', () =>
        client.patch(cm.path, inc('2'), MEDIA.json),
      );
      checkStatus(first, 200, undefined, 'the first conditional update applies');
      const second = await step('the second writer patches from the same, now stale, value', () =>
        client.patch(cm.path, inc('5'), MEDIA.json),
      );
      check(
        second.status >= 400 && second.status < 500,
        'a 4xx refusal of the second update',
        second.describe(),
      );
      const now = strMap((await readBack(client, cm.path)).data);
      check(
        now.count === '2',
        'count "2" (the first update only)',
        show(now),
        'the lost update is not applied',
      );
    },
  );

  conformance(
    {
      id: 'patch/json-patch/law-atomic',
      title:
        'Law: for any initial data and any sequence of operations, a JSON Patch gives the RFC 6902 model result, or, when any operation fails, a 4xx and no change at all',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.json,
      specRules: ['doc1/operations/application-json-patch-json-json-patch'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(initArb, fc.array(opArb, { minLength: 1, maxLength: 5 }), (init, ops) =>
          patchMatchesModel(client, ns.name, init, ops),
        ),
        { ...propertySettings(RUNS), examples: REGRESSIONS },
      );
    },
    { timeout: 120_000 },
  );
});
