// doc2 § Deprecation policy, rule 2: objects round-trip between the versions of a release
// without loss. Property-based (fast-check): an object is written, read at a version A, then
// for every other served version B read at B and written back at B, and read at A again: what
// it holds (spec and the rest of its content, labels, annotations) is what A first showed.
// Over the suite's multi-version custom definition (any `spec`), and over every built-in
// resource discovery shows at more than one version of its group (sample objects of
// objects.yaml, with any labels and annotations).
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, deepEqual, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { retryOnConflict } from '../../harness/src/conflict-retry.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';
import { CRD_COLLECTION, KIND, useDefinition, VERSIONS } from './definition.ts';
import { gvOf, loadSamples, sampleKey } from './row-files.ts';
import { collectionPath, discovered, ROUND_TRIP, SECTION_POLICY, sampleObject } from './support.ts';

const RUNS = 15;

const word = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
const labels = fc.dictionary(word, fc.oneof(fc.constant(''), word), { maxKeys: 3 });
const annotations = fc.dictionary(word, fc.string({ maxLength: 30 }), { maxKeys: 3 });
const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
const specArb = fc.dictionary(
  fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/),
  fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.dictionary(word, leaf, { maxKeys: 3 })),
  { maxKeys: 5 },
);

/** What an object holds, as a version shows it: everything but its version, status and server bookkeeping. */
function content(o: any): unknown {
  const { apiVersion: _v, status: _s, metadata = {}, ...rest } = o ?? {};
  return {
    ...rest,
    labels: metadata.labels ?? {},
    annotations: metadata.annotations ?? {},
    name: metadata.name,
    uid: metadata.uid,
  };
}

interface Resource {
  /** The object's path at a version. */
  at(version: string): string;
  versions: string[];
  what: string;
}

/** From A to every other version and back: each read at A after a write at B shows what A first showed. */
async function roundTrip(c: Client, res: Resource, a: string): Promise<void> {
  const first = await c.get(res.at(a));
  checkStatus(first, 200, undefined, `${res.what} read at ${a}`);
  for (const b of res.versions.filter((v) => v !== a)) {
    // read again and written back again when a controller wrote in between (409): API Priority
    // and Fairness writes a FlowSchema's status, the autoscaler an autoscaler's
    const put = await retryOnConflict(async () => {
      const atB = await c.get(res.at(b));
      checkStatus(atB, 200, undefined, `${res.what} read at ${b}`);
      return c.put(res.at(b), atB.json);
    });
    checkStatus(put, 200, undefined, `${res.what} written back at ${b} as ${b} showed it`);
    const again = await c.get(res.at(a));
    checkStatus(again, 200, undefined, `${res.what} read at ${a} again`);
    check(
      deepEqual(content(again.json), content(first.json)),
      `${res.what} at ${a} after a write at ${b}: ${show(content(first.json))}`,
      show(content(again.json)),
      ROUND_TRIP,
    );
  }
}

describe('deprecation: round trip between served versions', () => {
  const ns = useNamespace('deprecation-rt');
  const definition = useDefinition();

  conformance(
    {
      id: 'deprecation/round-trip/custom',
      title:
        'any object of a multi-version custom definition, written at one version and written back at every other, reads the same at the first',
      doc: 2,
      section: SECTION_POLICY,
      place: ROUND_TRIP,
      specRules: ['doc2/deprecation-policy/2-objects-round-trip-between-versions'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      const def = definition();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...VERSIONS),
          specArb,
          labels,
          annotations,
          async (a, spec, l, an) => {
            const name = uniqueName('rt');
            const made = await c.post(def.collection(a, ns.name), {
              apiVersion: `${def.group}/${a}`,
              kind: KIND,
              metadata: { name, labels: l, annotations: an },
              spec,
            });
            checkStatus(made, 201, undefined, `written at ${a}`);
            const res: Resource = {
              at: (v) => `${def.collection(v, ns.name)}/${name}`,
              versions: [...VERSIONS],
              what: `${KIND} ${name}`,
            };
            try {
              checkEqual(made.json?.spec, spec, `the spec written at ${a} is kept`);
              await roundTrip(c, res, a);
            } finally {
              await c.delete(res.at('v1')).catch(() => undefined);
            }
          },
        ),
        propertySettings(RUNS),
      );
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'deprecation/round-trip/built-in',
      title:
        'every built-in resource served at more than one version of its group round-trips: written back at each version, it reads the same at the others',
      doc: 2,
      section: SECTION_POLICY,
      place: `${ROUND_TRIP} (the versions: every resource discovery lists at more than one version; Kubernetes 1.28 serves HorizontalPodAutoscaler at autoscaling/v2 and v1, FlowSchema and PriorityLevelConfiguration at v1beta3 and v1beta2)`,
      specRules: ['doc2/deprecation-policy/2-objects-round-trip-between-versions'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      const custom = new Set<string>();
      const crds = await c.get(CRD_COLLECTION);
      for (const x of crds.json?.items ?? []) custom.add(x.spec?.group);
      const byResource = new Map<
        string,
        { group: string; resource: string; namespaced: boolean; versions: string[] }
      >();
      for (const { group, version, r } of await discovered(c)) {
        if (custom.has(group) || !['create', 'get', 'update'].every((v) => r.verbs.includes(v))) continue;
        const key = sampleKey(group, r.name);
        const e = byResource.get(key) ?? { group, resource: r.name, namespaced: r.namespaced, versions: [] };
        e.versions.push(version);
        byResource.set(key, e);
      }
      const multi = [...byResource.entries()].filter(([, e]) => e.versions.length > 1);
      check(
        multi.length > 0,
        'a built-in resource served at more than one version (Kubernetes 1.28: autoscaling/v1 and v2, flowcontrol v1beta2 and v1beta3)',
        show([...byResource.keys()]),
      );
      const samples = loadSamples();
      const missing = multi.filter(([k]) => !samples[k]).map(([k]) => k);
      check(
        missing.length === 0,
        'a sample object in suites/deprecation/objects.yaml for each',
        show(missing),
      );
      for (const [key, e] of multi)
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...e.versions), labels, annotations, async (a, l, an) => {
            const obj = await sampleObject(key, ns.name);
            obj.metadata.labels = { ...obj.metadata.labels, ...l };
            obj.metadata.annotations = { ...obj.metadata.annotations, ...an };
            const coll = (v: string) => collectionPath(gvOf(e.group, v), e.resource, e.namespaced, ns.name);
            const made = await c.post(coll(obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1)), obj);
            checkStatus(made, 201, undefined, `the sample ${key} is written`);
            const res: Resource = {
              at: (v) => `${coll(v)}/${obj.metadata.name}`,
              versions: e.versions,
              what: `${key} ${obj.metadata.name}`,
            };
            try {
              await roundTrip(c, res, a);
            } finally {
              await c.delete(res.at(a)).catch(() => undefined);
            }
          }),
          propertySettings(Math.ceil(RUNS / 3)),
        );
    },
    { timeout: 180_000 },
  );
});
