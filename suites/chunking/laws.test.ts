// doc1 § Chunked lists, property-based: for any collection (0-40 ConfigMaps with random
// labels) and any limit (1..n+2), the laws of chunked lists hold. fast-check prints the seed
// and path of a failure (replay with --seed); counterexamples found are kept in REGRESSIONS
// and always run first. The laws are laws over the run's own objects; objects another writer
// put into the namespace (a live cluster's root-CA ConfigMap) take their place in the chunks,
// so the bounds and counts that concern every item (limit, remainingItemCount) are checked
// over the items the chunks hold.
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkEqual, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { paths } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';
import {
  type Chunk,
  chunkBound,
  fullList,
  nameArb,
  type Obj,
  objectsArb,
  ownNames,
  readChunks,
  showChunks,
  withCollection,
} from './collection.ts';

const RUNS = 8;
const SECTION = 'Chunked lists';

interface Input {
  objs: Obj[];
  limit: number;
}

const inputArb: fc.Arbitrary<Input> = objectsArb(0, 40).chain((objs) =>
  fc.record({ objs: fc.constant(objs), limit: fc.integer({ min: 1, max: objs.length + 2 }) }),
);

/** Inputs worth running every time: the edges of the limit arithmetic. */
const REGRESSIONS: [Input][] = [
  [{ objs: [], limit: 1 }],
  [{ objs: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }], limit: 2 }], // last chunk exactly full
  [{ objs: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], limit: 1 }],
  [{ objs: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], limit: 3 }], // limit = n: one chunk, no token
  [{ objs: [{ name: 'a' }, { name: 'b' }], limit: 3 }],
];

function settings<T>(examples: T[]): fc.Parameters<T> {
  return { ...propertySettings(RUNS), examples };
}

/**
 * Creates the collection, reads it whole and in chunks, and hands both to the law with `mine`:
 * the run's own names among a chunk's (or the list's), in order.
 */
async function paged(
  client: Client,
  { objs, limit }: Input,
  law: (full: Chunk, chunks: Chunk[], mine: (c: Chunk) => string[]) => void,
): Promise<void> {
  await withCollection(client, objs, async (ns, own) => {
    const mine = (c: Chunk) => ownNames(own, c.names);
    const full = await fullList(client, ns);
    checkEqual(
      [...mine(full)].sort(),
      objs.map((o) => o.name).sort(),
      "setup: the complete list holds the objects created (and maybe others', left out)",
    );
    const others = full.names.length - mine(full).length;
    const chunks = await readChunks(client, ns, { limit }, chunkBound(objs.length, others, limit));
    law(full, chunks, mine);
  });
}

/** Each of the run's objects once across the chunks. */
function checkOnce(chunks: Chunk[], mine: (c: Chunk) => string[], objs: Obj[]): void {
  const joined = chunks.flatMap(mine);
  check(
    show([...joined].sort()) === show(objs.map((o) => o.name).sort()),
    `each of the objects created once across the chunks: ${show(objs.map((o) => o.name).sort())}`,
    `${show(joined)} from ${showChunks(chunks)}`,
  );
}

describe('chunking: laws of chunked lists (property-based)', () => {
  conformance(
    {
      id: 'chunking/law/concatenation',
      title:
        'Law: the chunks of a paged list concatenate to the complete list, same names in the same order, none larger than limit',
      doc: 1,
      section: SECTION,
      place:
        'With `limit=<n>` the server returns at most n items and sets `metadata.continue` when more remain. The client repeats the request with the same `limit` and `continue=<token>` until the returned `continue` is empty',
      specRules: [
        'doc1/chunked-lists/limit-n-server-returns-most-n',
        'doc1/query-parameters/continue-list-token-returned-previous-chunk',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(inputArb, (input) =>
          paged(client, input, (full, chunks, mine) => {
            for (const [i, c] of chunks.entries())
              check(
                c.names.length <= input.limit,
                `at most ${input.limit} items in chunk ${i + 1}`,
                `${c.names.length}: ${show(c.names)}`,
              );
            const joined = chunks.flatMap(mine);
            check(
              show(joined) === show(mine(full)),
              `the objects of the complete list, in its order: ${show(mine(full))}`,
              `${show(joined)} from ${showChunks(chunks)}`,
              'the chunks concatenate to the complete list',
            );
          }),
        ),
        settings(REGRESSIONS),
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'chunking/law/one-resource-version',
      title:
        'Law: every chunk of a paged list carries the same metadata.resourceVersion (one consistent snapshot)',
      doc: 1,
      section: SECTION,
      place: '`resourceVersion` stays constant across chunks (a consistent snapshot)',
      specRules: ['doc1/chunked-lists/resourceversion-stays-constant-across-chunks-consistent'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(inputArb, (input) =>
          paged(client, input, (_full, chunks) => {
            const rvs = chunks.map((c) => c.rv);
            check(
              typeof rvs[0] === 'string' && rvs[0] !== '',
              'a non-empty metadata.resourceVersion',
              show(rvs[0]),
            );
            check(
              rvs.every((rv) => rv === rvs[0]),
              `${show(rvs[0])} on every chunk`,
              show(rvs),
            );
          }),
        ),
        settings(REGRESSIONS),
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'chunking/law/continue-until-last',
      title:
        'Law: metadata.continue is set on every chunk while items remain and is empty on the last chunk only',
      doc: 1,
      section: SECTION,
      place: 'sets `metadata.continue` when more remain; `continue` (string, empty on the last chunk)',
      specRules: [
        'doc1/chunked-lists/limit-n-server-returns-most-n',
        'doc1/resources-their-fields/collection-response-kind-list-kind-resource',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(inputArb, (input) =>
          paged(client, input, (full, chunks, mine) => {
            const all = mine(full).length;
            let seen = 0;
            for (const [i, c] of chunks.entries()) {
              seen += mine(c).length;
              const last = i === chunks.length - 1;
              if (seen < all)
                check(
                  c.continue !== '',
                  `a continue token on chunk ${i + 1}: ${all - seen} of the objects created remain`,
                  showChunks(chunks),
                );
              if (last)
                check(
                  c.continue === '' && seen >= all,
                  'an empty continue on the last chunk, after every object created',
                  showChunks(chunks),
                );
            }
            check(full.continue === '', 'an empty continue on a complete list', show(full.metadata));
          }),
        ),
        settings(REGRESSIONS),
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'chunking/law/remaining-item-count',
      title:
        'Law: without selectors remainingItemCount counts the items after each chunk and is omitted on the last chunk and on a complete list',
      doc: 1,
      section: SECTION,
      place:
        '`remainingItemCount` counts items after the chunk; it is omitted [...] on a complete list or last chunk',
      specRules: ['doc1/chunked-lists/remainingitemcount-counts-items-after-chunk-omitted'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(inputArb, (input) =>
          paged(client, input, (full, chunks, mine) => {
            check(
              full.remaining === undefined,
              'no remainingItemCount on a complete list',
              show(full.metadata),
            );
            // the count is of every item, the run's or not: the items the chunks hold, which
            // are the whole list once each of the run's objects is in them
            checkOnce(chunks, mine, input.objs);
            const total = chunks.reduce((n, c) => n + c.names.length, 0);
            let seen = 0;
            for (const [i, c] of chunks.entries()) {
              seen += c.names.length;
              if (i === chunks.length - 1)
                check(
                  c.remaining === undefined,
                  'no remainingItemCount on the last chunk',
                  `${show(c.remaining)} in ${showChunks(chunks)}`,
                );
              else
                check(
                  c.remaining === total - seen,
                  `remainingItemCount ${total - seen} on chunk ${i + 1} (the items of the chunks after it)`,
                  `${show(c.remaining)} in ${showChunks(chunks)}`,
                );
            }
          }),
        ),
        settings(REGRESSIONS),
      );
    },
    { timeout: 120_000 },
  );

  const selectorArb = (objs: Obj[]) =>
    fc.oneof(
      fc.record({
        labelSelector: fc.constantFrom('tier=web', 'tier!=db', 'tier', '!tier', 'tier in (web,cache)'),
      }),
      fc.record({
        fieldSelector: (objs.length ? fc.constantFrom(...objs.map((o) => o.name)) : nameArb).chain((n) =>
          fc.constantFrom(`metadata.name!=${n}`, `metadata.name=${n}`),
        ),
      }),
    );
  type Selected = {
    objs: Obj[];
    limit: number;
    selector: { labelSelector: string } | { fieldSelector: string };
  };
  const web = (name: string): Obj => ({ name, tier: 'web' });
  const SELECTED_REGRESSIONS: [Selected][] = [
    // a selected list of several chunks, with objects left out between them
    [
      {
        objs: [web('a'), { name: 'b', tier: 'db' }, web('c'), web('d'), { name: 'e' }, web('f')],
        limit: 2,
        selector: { labelSelector: 'tier=web' },
      },
    ],
    [{ objs: [web('a'), web('b'), web('c')], limit: 1, selector: { fieldSelector: 'metadata.name!=b' } }],
  ];
  const selectedArb: fc.Arbitrary<Selected> = objectsArb(0, 40).chain((objs) =>
    fc.record({
      objs: fc.constant(objs),
      limit: fc.integer({ min: 1, max: objs.length + 2 }),
      selector: selectorArb(objs),
    }),
  );

  conformance(
    {
      id: 'chunking/law/selectors',
      title:
        'Law: with a label or field selector the chunks concatenate to the complete selected list and no chunk carries remainingItemCount',
      doc: 1,
      section: SECTION,
      place: '`remainingItemCount` [...] is omitted when label or field selectors are used',
      specRules: ['doc1/chunked-lists/remainingitemcount-counts-items-after-chunk-omitted'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(selectedArb, ({ objs, limit, selector }) =>
          withCollection(client, objs, async (ns, own) => {
            const mine = (c: Chunk) => ownNames(own, c.names);
            const full = await fullList(client, ns, selector);
            const others = full.names.length - mine(full).length;
            const chunks = await readChunks(
              client,
              ns,
              { limit, ...selector },
              chunkBound(objs.length, others, limit),
            );
            for (const [i, c] of chunks.entries()) {
              check(c.names.length <= limit, `at most ${limit} items in chunk ${i + 1}`, show(c.names));
              check(
                c.remaining === undefined,
                `no remainingItemCount with ${show(selector)}`,
                `${show(c.remaining)} on chunk ${i + 1} of ${showChunks(chunks)}`,
              );
            }
            const joined = chunks.flatMap(mine);
            check(
              show(joined) === show(mine(full)),
              `the objects of the complete selected list ${show(mine(full))}`,
              `${show(joined)} from ${showChunks(chunks)}`,
            );
          }),
        ),
        settings(SELECTED_REGRESSIONS),
      );
    },
    { timeout: 120_000 },
  );

  // ------------------------------------------------------------ snapshot under writes

  type Write =
    | { kind: 'create'; name: string }
    | { kind: 'delete'; pick: number }
    | { kind: 'update'; pick: number };
  const writeArb: fc.Arbitrary<Write> = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), name: nameArb }),
    fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('update' as const), pick: fc.nat() }),
  );
  const concurrentArb = objectsArb(2, 30).chain((objs) =>
    fc.record({
      objs: fc.constant(objs),
      limit: fc.integer({ min: 1, max: objs.length - 1 }),
      writes: fc.array(fc.array(writeArb, { minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: objs.length,
      }),
    }),
  );
  const CONCURRENT_REGRESSIONS: [{ objs: Obj[]; limit: number; writes: Write[][] }][] = [
    // delete the next item, change the one after, create one that sorts into the rest
    [
      {
        objs: [{ name: 'a' }, { name: 'c' }, { name: 'e' }],
        limit: 1,
        writes: [
          [
            { kind: 'delete', pick: 1 },
            { kind: 'update', pick: 1 },
            { kind: 'create', name: 'd' },
          ],
        ],
      },
    ],
  ];

  conformance(
    {
      id: 'chunking/law/snapshot-under-writes',
      title:
        'Law: objects created, deleted or changed between chunk requests do not appear, disappear or change in the later chunks',
      doc: 1,
      section: SECTION,
      place: '`resourceVersion` stays constant across chunks (a consistent snapshot)',
      specRules: ['doc1/chunked-lists/resourceversion-stays-constant-across-chunks-consistent'],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(concurrentArb, ({ objs, limit, writes }) =>
          withCollection(client, objs, async (ns, own) => {
            const before = await fullList(client, ns);
            const live = objs.map((o) => o.name).sort();
            const done: string[] = [];
            const between = async (i: number) => {
              for (const w of writes[i] ?? []) {
                if (w.kind === 'create') {
                  if (live.includes(w.name)) continue;
                  own.add(w.name);
                  const r = await client.post(paths.configmaps(ns), {
                    apiVersion: 'v1',
                    kind: 'ConfigMap',
                    metadata: { name: w.name },
                    data: { v: 'created-later' },
                  });
                  check(r.status === 201, '201', r.describe(), 'setup: a write between chunks');
                  live.push(w.name);
                  done.push(`after chunk ${i + 1}: create ${w.name}`);
                } else if (live.length) {
                  const name = live[w.pick % live.length]!;
                  if (w.kind === 'delete') {
                    const r = await client.delete(paths.configmap(ns, name));
                    check(
                      r.status === 200 || r.status === 202,
                      '200 or 202',
                      r.describe(),
                      'setup: a write between chunks',
                    );
                    live.splice(live.indexOf(name), 1);
                  } else {
                    const r = await client.patch(
                      paths.configmap(ns, name),
                      { data: { v: 'changed-later' } },
                      'application/merge-patch+json',
                    );
                    check(r.status === 200, '200', r.describe(), 'setup: a write between chunks');
                  }
                  done.push(`after chunk ${i + 1}: ${w.kind} ${name}`);
                }
              }
            };
            const others = before.names.filter((n) => !own.has(n)).length;
            const chunks = await readChunks(
              client,
              ns,
              { limit },
              chunkBound(objs.length, others, limit),
              between,
            );
            // the run's objects only (it made every name it writes between chunks its own)
            const state = (c: Chunk) =>
              c.names.flatMap((n, j) => (own.has(n) ? [`${n}=${c.data[j]?.v}`] : []));
            const got = chunks.flatMap(state);
            const want = state(before);
            check(
              show(got) === show(want),
              `the collection as it was when the first chunk was read: ${show(want)}`,
              `${show(got)} (writes: ${done.join('; ') || 'none'})`,
              'a consistent snapshot across chunks',
            );
            const rvs = chunks.map((c) => c.rv);
            check(
              rvs.every((rv) => rv === rvs[0]),
              `${show(rvs[0])} on every chunk`,
              show(rvs),
              '`resourceVersion` stays constant across chunks',
            );
          }),
        ),
        settings(CONCURRENT_REGRESSIONS),
      );
    },
    { timeout: 120_000 },
  );
});
