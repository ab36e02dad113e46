// Property-based, doc1 § States and transitions: for any set of 1-4 finalizers, any order of
// removal and any update mechanism, a Finalizing object stays (same deletionTimestamp, the
// remaining finalizers) until its last finalizer goes, and is removed then. No order is
// enforced. fast-check prints seed and path of a failure; kept counterexamples and edges are
// in EXAMPLES and run every time.
import fc from 'fast-check';
import { afterAll, describe } from 'vitest';
import { checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { paths, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings, session } from '../../harness/src/session.ts';
import { createHeld, fin, releaseAll, type Removal, removeFinalizer } from './helpers.ts';

interface Input {
  finalizers: string[];
  order: string[];
  how: Removal;
}

const POOL = ['a', 'b', 'c', 'd', 'e', 'f'].map(fin);

const inputArb: fc.Arbitrary<Input> = fc
  .uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 4 })
  .chain((finalizers) =>
    fc.record({
      finalizers: fc.constant(finalizers),
      order: fc.shuffledSubarray(finalizers, { minLength: finalizers.length, maxLength: finalizers.length }),
      how: fc.constantFrom<Removal>('put', 'merge-patch', 'json-patch'),
    }),
  );

const EXAMPLES: [Input][] = [
  // the last-listed finalizer first: a server enforcing list order would refuse or stall
  [{ finalizers: [fin('a'), fin('b')], order: [fin('b'), fin('a')], how: 'put' }],
  [
    {
      finalizers: [fin('a'), fin('b'), fin('c'), fin('d')],
      order: [fin('d'), fin('c'), fin('b'), fin('a')],
      how: 'merge-patch',
    },
  ],
  [{ finalizers: [fin('a'), fin('b'), fin('c')], order: [fin('b'), fin('a'), fin('c')], how: 'json-patch' }],
  [{ finalizers: [fin('a')], order: [fin('a')], how: 'json-patch' }],
];

describe('deletion: finalizers in any order (property-based)', () => {
  const ns = useNamespace('del-order');
  afterAll(() => releaseAll(session(), ns.name));

  conformance(
    {
      id: 'deletion/law/any-removal-order',
      title:
        'Law: for any 1-4 finalizers removed in any order by PUT or patch, the object stays Finalizing with its deletionTimestamp until the last one goes, and is removed then',
      doc: 1,
      section: 'States and transitions',
      place:
        'Finalizing | a finalizer is removed | finalizers remain | Finalizing | No order is enforced among finalizers; Finalizing | last finalizer removed | none remain | Removed',
      specRules: [
        'doc1/states-transitions/finalizing-finalizer-removed-finalizers-remain-finalizing',
        'doc1/states-transitions/finalizing-last-finalizer-removed-none-remain',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(inputArb, async ({ finalizers, order, how }) => {
          const at = `finalizers ${show(finalizers)}, removed in order ${show(order)} by ${how}`;
          const o = await createHeld(client, ns.name, finalizers);
          const path = paths.configmap(ns.name, o.metadata.name);
          checkStatus(await client.delete(path), [200, 202], undefined, `${at}: delete request`);
          const marked = await client.get(path);
          checkStatus(marked, 200, undefined, `${at}: Finalizing after the delete request`);
          const ts = marked.json.metadata.deletionTimestamp;
          const remaining = [...finalizers];
          for (const [i, f] of order.entries()) {
            const r = await removeFinalizer(client, path, f, how);
            remaining.splice(remaining.indexOf(f), 1);
            const step = `${at}: after removing ${f} (step ${i + 1})`;
            if (remaining.length > 0) {
              checkStatus(r, 200, undefined, `${step}: the removal is accepted in any order`);
              const g = await client.get(path);
              checkStatus(g, 200, undefined, `${step}: finalizers remain, so the object remains`);
              checkEqual(
                [...(g.json.metadata.finalizers ?? [])].sort(),
                [...remaining].sort(),
                `${step}: finalizers`,
              );
              checkEqual(g.json.metadata.deletionTimestamp, ts, `${step}: deletionTimestamp`);
            } else {
              checkStatus(
                await client.get(path),
                404,
                undefined,
                `${step}: none remain, so the object is removed`,
              );
            }
          }
        }),
        { ...propertySettings(10), examples: EXAMPLES },
      );
    },
  );
});
