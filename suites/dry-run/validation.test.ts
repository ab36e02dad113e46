// doc1 § Dry run: "every stage runs (admission chain, mutation, validation, defaulting, merge on
// PATCH, schema validation) except persisting". A request that is invalid (doc1's field
// validation rules say why) fails the same way with and without dryRun=All.
import { describe } from 'vitest';
import { check } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { checkUnchanged, MEDIA, makeConfigMap } from '../patch/support.ts';

const SECTION = 'Dry run';
const PLACE =
  'every stage runs (admission chain, mutation, validation, defaulting, merge on PATCH, schema validation) except persisting';

/** Sends the request as a dry run, then for real; both must fail, with the same code and reason. */
async function sameFailure(send: (dryRun: boolean) => Promise<Response>, invalid: string): Promise<void> {
  const dry = await send(true);
  const real = await send(false);
  check(
    real.status >= 400 && real.status < 500,
    `a 4xx refusal of the real request (${invalid})`,
    real.describe(),
    'setup: the request is invalid',
  );
  check(
    dry.status === real.status && dry.statusObj?.reason === real.statusObj?.reason,
    `the dry run fails as the real request does: ${real.status} ${real.statusObj?.reason ?? ''}`,
    dry.describe(),
    `validation runs under dry run (${invalid})`,
  );
}

const q = (dryRun: boolean) => (dryRun ? { dryRun: 'All' } : {});

describe('dry-run: validation still runs', () => {
  const ns = useNamespace('dry-valid');

  conformance(
    {
      id: 'dry-run/validation/post-wrong-type',
      title: 'A dry-run POST whose field has the wrong type fails as the real POST does',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: ['doc1/dry-run/dryrun-all-every-stage-runs-admission'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('bad');
      await sameFailure(
        (dryRun) =>
          client.post(
            paths.configmaps(ns.name),
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: 5 },
            { query: q(dryRun) },
          ),
        'data is a map, not a number',
      );
    },
  );

  conformance(
    {
      id: 'dry-run/validation/post-missing-required',
      title: 'A dry-run POST that omits a required field fails as the real POST does',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: ['doc1/dry-run/dryrun-all-every-stage-runs-admission'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('pod');
      await sameFailure(
        (dryRun) =>
          client.post(
            `/api/v1/namespaces/${ns.name}/pods`,
            { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: {} },
            { query: q(dryRun) },
          ),
        'a Pod without spec.containers',
      );
    },
  );

  conformance(
    {
      id: 'dry-run/validation/post-strict-unknown',
      title: 'A dry-run POST with an unknown field under fieldValidation=Strict fails as the real POST does',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: ['doc1/dry-run/dryrun-all-every-stage-runs-admission'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('strict');
      await sameFailure(
        (dryRun) =>
          client.post(
            paths.configmaps(ns.name),
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, bogusField: true },
            { query: { ...q(dryRun), fieldValidation: 'Strict' } },
          ),
        'an unknown field under Strict',
      );
    },
  );

  conformance(
    {
      id: 'dry-run/validation/put-wrong-type',
      title:
        'A dry-run PUT whose field has the wrong type fails as the real PUT does, and the object is unchanged',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: ['doc1/dry-run/dryrun-all-every-stage-runs-admission'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      await sameFailure(
        (dryRun) =>
          client.put(
            cm.path,
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: cm.name, resourceVersion: cm.rv },
              data: ['a'],
            },
            { query: q(dryRun) },
          ),
        'data is a map, not an array',
      );
      await checkUnchanged(
        client,
        cm.path,
        { data: { a: '1' }, rv: cm.rv },
        'neither request changed the object',
      );
    },
  );

  conformance(
    {
      id: 'dry-run/validation/patch-failing-test',
      title:
        'A dry-run JSON Patch whose test operation fails is refused as the real PATCH is (the merge runs under dry run)',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: ['doc1/dry-run/dryrun-all-every-stage-runs-admission'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      await sameFailure(
        (dryRun) =>
          client.patch(
            cm.path,
            [
              { op: 'test', path: '/data/a', value: '2' },
              { op: 'replace', path: '/data/a', value: '3' },
            ],
            MEDIA.json,
            { query: q(dryRun) },
          ),
        'the test operation fails',
      );
      await checkUnchanged(
        client,
        cm.path,
        { data: { a: '1' }, rv: cm.rv },
        'neither request changed the object',
      );
    },
  );

  conformance(
    {
      id: 'dry-run/validation/patch-wrong-type',
      title: 'A dry-run merge patch that gives a field the wrong type fails as the real PATCH does',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: ['doc1/dry-run/dryrun-all-every-stage-runs-admission'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      await sameFailure(
        (dryRun) => client.patch(cm.path, { data: { a: 7 } }, MEDIA.merge, { query: q(dryRun) }),
        'a data value is a string, not a number',
      );
      await checkUnchanged(
        client,
        cm.path,
        { data: { a: '1' }, rv: cm.rv },
        'neither request changed the object',
      );
    },
  );
});
