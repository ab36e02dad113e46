// doc1 § Resources and their fields, for custom resources: unknown fields are dropped (with a
// Warning under Warn, refused under Strict) unless the definition opts out of pruning with
// x-orch-preserve-unknown-fields; types and required fields of the definition's schema hold.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { useCustomResource } from '../patch/custom-resource.ts';
import { readBack, sameJson, showSorted } from '../patch/support.ts';
import {
  checkMessageLists,
  checkNoWarnings,
  checkOneWarningPerField,
  RULES,
  SECTION_RULES,
  showWarnings,
  TYPE_ROW,
  warnings,
} from './support.ts';

describe('field-validation: custom resources', () => {
  const ns = useNamespace('fv-cr');
  const open = useCustomResource('fvopen', { spec: 'preserve' });
  const closed = useCustomResource('fvclosed', { spec: 'closed' });

  const free = { known: 1, extraField: { deep: [1, { x: 'y' }], flag: true }, other: 'o' };

  for (const level of ['Strict', 'Warn', 'Ignore']) {
    conformance(
      {
        id: `field-validation/custom/preserved-${level.toLowerCase()}`,
        title: `Under fieldValidation=${level}, unknown fields below a spec marked x-orch-preserve-unknown-fields are kept, without Warning or refusal`,
        doc: 1,
        section: SECTION_RULES,
        place: RULES,
        specRules: ['doc1/resources-their-fields/unrecognized-fields-fields-duplicated-object-dropped'],
        level: 'MUST',
      },
      async ({ client, skip }) => {
        if (open.reason) skip(open.reason);
        const name = uniqueName('w');
        const r = await client.post(open.collection(ns.name), open.object(name, free), {
          query: { fieldValidation: level },
        });
        checkStatus(r, 201);
        checkNoWarnings(r, 'the preserved fields are not dropped, so not warned about');
        const now = await readBack(client, open.one(ns.name, name));
        check(
          sameJson(now.spec, free),
          showSorted(free),
          showSorted(now.spec),
          'the definition opts out of pruning',
        );
      },
    );
  }

  conformance(
    {
      id: 'field-validation/custom/pruned-warn',
      title:
        'An unknown field of a custom resource whose schema does not preserve unknown fields is dropped, with one Warning entry',
      doc: 1,
      section: SECTION_RULES,
      place: RULES,
      specRules: ['doc1/resources-their-fields/unrecognized-fields-fields-duplicated-object-dropped'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (closed.reason) skip(closed.reason);
      const name = uniqueName('w');
      const r = await client.post(
        closed.collection(ns.name),
        closed.object(name, { size: 1, extraField: 'x' }),
      );
      checkStatus(r, 201);
      checkOneWarningPerField(r, ['extraField']);
      const now = await readBack(client, closed.one(ns.name, name));
      check(
        sameJson(now.spec, { size: 1 }),
        '{"size":1}',
        showSorted(now.spec),
        'the unknown field is dropped',
      );
    },
  );

  conformance(
    {
      id: 'field-validation/custom/strict',
      title:
        'Unknown fields of a custom resource under fieldValidation=Strict are refused with 400 naming all of them',
      doc: 1,
      section: 'Errors',
      place: '400 Bad Request | `Strict` validation met unknown or duplicate fields (message lists all)',
      specRules: ['doc1/errors/400-bad-request-strict-validation-met'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (closed.reason) skip(closed.reason);
      const name = uniqueName('w');
      const r = await client.post(
        closed.collection(ns.name),
        { ...closed.object(name, { size: 1, extraField: 'x' }), topExtra: 1 },
        { query: { fieldValidation: 'Strict' } },
      );
      checkStatus(r, 400);
      checkMessageLists(r, ['extraField', 'topExtra']);
      checkStatus(await client.get(closed.one(ns.name, name)), 404, undefined, 'nothing is created');
    },
  );

  conformance(
    {
      id: 'field-validation/custom/wrong-type',
      title:
        'A custom resource field of the wrong type (an integer given text) is refused with 400 and no unknown-field detail, whatever the level',
      doc: 1,
      section: 'Errors',
      place: TYPE_ROW,
      specRules: ['doc1/errors/400-bad-request-strict-validation-met'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (closed.reason) skip(closed.reason);
      for (const level of ['Ignore', 'Warn', 'Strict']) {
        const name = uniqueName('w');
        const r = await client.post(
          closed.collection(ns.name),
          closed.object(name, { size: 'big', extraField: 'x' }),
          {
            query: { fieldValidation: level },
          },
        );
        checkStatus(r, 400, undefined, `under ${level}`);
        const msg = r.statusObj?.message ?? r.text;
        check(
          !msg.includes('extraField') && !/unknown field/i.test(msg),
          'no unknown-field detail',
          show(msg),
          `under ${level}`,
        );
        const ws = warnings(r).filter((w) => w.text.includes('extraField'));
        check(
          ws.length === 0,
          'no Warning about the unknown field',
          showWarnings(warnings(r)),
          `under ${level}`,
        );
      }
    },
  );

  conformance(
    {
      id: 'field-validation/custom/required',
      title: 'A custom resource without a field its schema requires is refused and not created',
      doc: 1,
      section: SECTION_RULES,
      place: 'Omitting a required field is an error',
      specRules: ['doc1/resources-their-fields/omitting-required-field-error'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (closed.reason) skip(closed.reason);
      const name = uniqueName('w');
      const r = await client.post(closed.collection(ns.name), closed.object(name, { color: 'red' }));
      check(r.status >= 400 && r.status < 500, 'a 4xx refusal (spec.size is required)', r.describe());
      checkStatus(await client.get(closed.one(ns.name, name)), 404, undefined, 'nothing is created');
    },
  );
});
