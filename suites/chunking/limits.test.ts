// doc1 § Limits: the chunk size a client sets, and the continue token's lifetime (5 minutes
// by default; a target may declare a shorter one with ORCH_CONTINUE_TTL_SECONDS).
import { describe } from 'vitest';
import { check, checkEqual, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { waitInsideWindow } from '../../harness/src/retention.ts';
import { runEnv } from '../../harness/src/run-env.ts';
import { fullList, listOnce, ownNames, withCollection } from './collection.ts';

const SECTION = 'Limits';
const TEN = Array.from({ length: 10 }, (_, i) => ({ name: `o${i}` }));

describe('chunking: limits', () => {
  conformance(
    {
      id: 'chunking/limits/chunk-size',
      title:
        'For every limit from 1 to past the collection size, each chunk holds at most limit items and a full one exactly limit',
      doc: 1,
      section: SECTION,
      place: 'Chunk size | set by the client with `limit`; the server returns up to that many items',
      specRules: ['doc1/limits/chunk-size-set-client-limit-server'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      await withCollection(client, TEN, async (ns, own) => {
        const full = await fullList(client, ns);
        const mine = (names: string[]) => ownNames(own, names);
        for (let limit = 1; limit <= TEN.length + 2; limit++) {
          const first = await step(`list with limit=${limit}`, () => listOnce(client, ns, { limit }));
          check(first.status === 200, `200 for limit=${limit}`, `${first.status} ${show(first.metadata)}`);
          check(
            first.names.length <= limit,
            `at most ${limit} items`,
            `${first.names.length}: ${show(first.names)}`,
          );
          // the items it returns are the first ones of the complete list (of the objects created:
          // another writer's objects, a live cluster's root-CA ConfigMap, may sit among them)
          const firstMine = mine(first.names);
          checkEqual(
            firstMine,
            mine(full.names).slice(0, firstMine.length),
            `the first items of the list for limit=${limit}`,
          );
        }
      });
    },
  );

  conformance(
    {
      id: 'chunking/limits/continue-usable-within-lifetime',
      title:
        'A continue token used a few seconds after it was issued (well within its lifetime) still continues the list',
      doc: 1,
      section: SECTION,
      place: '`continue` token lifetime | 5 minutes by default',
      specRules: ['doc1/limits/continue-token-lifetime-5-minutes-default'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      await withCollection(client, TEN, async (ns, own) => {
        const full = await fullList(client, ns);
        const mine = (names: string[]) => ownNames(own, names);
        const first = await listOnce(client, ns, { limit: 4 });
        check(
          first.status === 200 && first.continue !== '',
          'a first chunk with a continue token',
          show(first.metadata),
          'setup',
        );
        const wait = waitInsideWindow(runEnv().ORCH_CONTINUE_TTL_SECONDS);
        await step(`wait ${wait} s`, () => new Promise((r) => setTimeout(r, wait * 1000)));
        const next = await step('continue the list', () =>
          listOnce(client, ns, { limit: 4, continue: first.continue }),
        );
        check(
          next.status === 200,
          `200: the token is within its lifetime ${wait} s after it was issued`,
          `${next.status} ${show(next.metadata)}`,
        );
        // the next four items; of the objects created, the ones after the first chunk's (another
        // writer's objects, a live cluster's root-CA ConfigMap, may sit among them)
        check(next.names.length === 4, 'the next four items of the list', show(next.names));
        const seen = mine(first.names).length;
        const nextMine = mine(next.names);
        checkEqual(
          nextMine,
          mine(full.names).slice(seen, seen + nextMine.length),
          'the next items of the list, after the first chunk',
        );
      });
    },
    { timeout: 30_000 },
  );
});
