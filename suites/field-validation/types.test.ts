// doc1 § Resources and their fields ("field types are always validated"; "Omitting a required
// field is an error") and § Errors (400 for a field of the wrong type, with no unknown-field
// detail then, whatever the level).
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { SECTION_RULES, TYPE_ROW, warnings, showWarnings } from './support.ts';

const TYPES =
  'field types are always validated (a number field refuses text, an array field refuses non-arrays)';
const REQUIRED = 'Omitting a required field is an error';

describe('field-validation: types and required fields', () => {
  const ns = useNamespace('fv-types');

  for (const level of ['Ignore', 'Warn', 'Strict']) {
    conformance(
      {
        id: `field-validation/wrong-type/${level.toLowerCase()}`,
        title: `Under fieldValidation=${level}, a body with a field of the wrong type is refused with 400 whose message has no unknown-field detail`,
        doc: 1,
        section: 'Errors',
        place: TYPE_ROW,
        specRules: ['doc1/errors/400-bad-request-strict-validation-met'],
        level: 'MUST',
      },
      async ({ client }) => {
        const name = uniqueName('type');
        // data is a map of strings; bogusTop is an unknown field the answer must not dwell on
        const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":5,"bogusTop":true}`;
        const r = await client.post(paths.configmaps(ns.name), body, { query: { fieldValidation: level } });
        checkStatus(r, 400);
        const msg = r.statusObj?.message ?? r.text;
        check(
          !msg.includes('bogusTop') && !/unknown field/i.test(msg),
          'a message about the wrong type only (no unknown-field detail)',
          show(msg),
        );
        const ws = warnings(r).filter((w) => w.text.includes('bogusTop'));
        check(ws.length === 0, 'no Warning about the unknown field either', showWarnings(warnings(r)));
        checkStatus(await client.get(paths.configmap(ns.name, name)), 404, undefined, 'nothing is created');
      },
    );
  }

  conformance(
    {
      id: 'field-validation/wrong-type/array',
      title: 'A list field given a string (metadata.finalizers: "x") is refused with 400',
      doc: 1,
      section: SECTION_RULES,
      place: TYPES,
      specRules: ['doc1/resources-their-fields/field-validation-rules-field-types-always'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('type');
      const r = await client.post(paths.configmaps(ns.name), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, finalizers: 'example.com/x' },
      });
      checkStatus(r, 400);
      checkStatus(await client.get(paths.configmap(ns.name, name)), 404, undefined, 'nothing is created');
    },
  );

  conformance(
    {
      id: 'field-validation/wrong-type/string-field',
      title: 'A string field given a number (metadata.generateName: 5) is refused with 400',
      doc: 1,
      section: SECTION_RULES,
      place: TYPES,
      specRules: ['doc1/resources-their-fields/field-validation-rules-field-types-always'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('type');
      const r = await client.post(paths.configmaps(ns.name), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, generateName: 5 },
      });
      checkStatus(r, 400);
    },
  );

  conformance(
    {
      id: 'field-validation/required/pod-containers',
      title: 'A Pod without spec.containers (a required field) is refused and not created',
      doc: 1,
      section: SECTION_RULES,
      place: REQUIRED,
      specRules: ['doc1/resources-their-fields/omitting-required-field-error'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('pod');
      const r = await client.post(`/api/v1/namespaces/${ns.name}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: {},
      });
      check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe());
      checkStatus(
        await client.get(`/api/v1/namespaces/${ns.name}/pods/${name}`),
        404,
        undefined,
        'nothing is created',
      );
    },
  );

  conformance(
    {
      id: 'field-validation/required/422',
      title: 'A missing required field is answered 422 Invalid (as Kubernetes does)',
      doc: 1,
      section: 'Errors',
      place:
        'A missing required field is an error (its status code: not shown; Kubernetes answers 422 Invalid)',
      specRules: ['doc1/errors/missing-required-field-error'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.post(`/api/v1/namespaces/${ns.name}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: uniqueName('pod') },
        spec: {},
      });
      checkStatus(r, 422, 'Invalid');
    },
  );
});
