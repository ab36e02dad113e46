// doc1 § Query parameters (fieldValidation: Ignore, Warn (default), Strict), § Headers (Warning:
// one entry per dropped unknown or duplicate field under Warn), § Errors (Strict: 400 whose
// message lists all) and § Resources and their fields (dropped by default): on POST, PUT and
// PATCH of a ConfigMap whose body has two unknown fields and a duplicated key.
import { describe } from 'vitest';
import { check, checkStatus } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import {
  checkUnchanged,
  MEDIA,
  makeConfigMap,
  readBack,
  sameJson,
  showSorted,
  strMap,
} from '../patch/support.ts';
import {
  checkDropped,
  checkMessageLists,
  checkNoWarnings,
  checkOneWarningPerField,
  DIRTY_MERGE_PATCH,
  DROPPED,
  dirtyConfigMap,
  HEADER_ROW,
  PARAM_ROW,
  RULES,
  STRICT_ROW,
} from './support.ts';

type Verb = 'POST' | 'PUT' | 'PATCH';
type Level = 'Warn' | 'Strict' | 'Ignore' | undefined;

interface Sent {
  res: Response;
  path: string;
  /** What the object was before (PUT, PATCH), for "unchanged". */
  before?: { data: Record<string, string>; rv: string };
  /** The data a successful write stores. */
  stored: Record<string, string>;
}

/** Sends the dirty body with the verb at the level (undefined: no fieldValidation parameter). */
async function sendDirty(client: Client, ns: string, verb: Verb, level: Level): Promise<Sent> {
  const query = level ? { fieldValidation: level } : {};
  if (verb === 'POST') {
    const name = uniqueName('fv');
    const res = await client.post(paths.configmaps(ns), dirtyConfigMap(name), { query });
    return { res, path: paths.configmap(ns, name), stored: { dupKey: 'v', k: 'v' } };
  }
  const cm = await makeConfigMap(client, ns, { data: { orig: 'o' } }, 'fv');
  const before = { data: { orig: 'o' }, rv: cm.rv };
  if (verb === 'PUT') {
    const res = await client.put(cm.path, dirtyConfigMap(cm.name, `,"resourceVersion":"${cm.rv}"`), {
      query,
    });
    return { res, path: cm.path, before, stored: { dupKey: 'v', k: 'v' } };
  }
  const res = await client.patch(cm.path, DIRTY_MERGE_PATCH, MEDIA.merge, { query });
  return { res, path: cm.path, before, stored: { orig: 'o', dupKey: 'w' } };
}

const OK: Record<Verb, number> = { POST: 201, PUT: 200, PATCH: 200 };

async function checkStoredClean(client: Client, s: Sent): Promise<void> {
  const obj = await readBack(client, s.path);
  checkDropped(obj, RULES);
  const data = strMap(obj.data);
  check(sameJson(data, s.stored), showSorted(s.stored), showSorted(data), 'the known fields are stored');
}

describe('field-validation: Ignore, Warn and Strict', () => {
  const ns = useNamespace('fv');

  for (const verb of ['POST', 'PUT', 'PATCH'] as Verb[]) {
    const v = verb.toLowerCase();

    conformance(
      {
        id: `field-validation/warn/${v}`,
        title: `A ${verb} without fieldValidation (Warn, the default) succeeds, drops the unknown and duplicate fields and sends one Warning: 299 entry per dropped field`,
        doc: 1,
        section: 'Headers and content negotiation',
        place: HEADER_ROW,
        specRules: ['doc1/headers-content-negotiation/warning-response-one-entry-per-dropped'],
        level: 'MUST',
      },
      async ({ client }) => {
        const s = await sendDirty(client, ns.name, verb, undefined);
        checkStatus(s.res, OK[verb], undefined, 'Warn (the default) does not refuse the request');
        checkOneWarningPerField(s.res, DROPPED);
        await checkStoredClean(client, s);
      },
    );

    conformance(
      {
        id: `field-validation/strict/${v}`,
        title: `A ${verb} with fieldValidation=Strict is refused with 400 whose message lists every unknown and duplicate field, and changes nothing`,
        doc: 1,
        section: 'Errors',
        place: STRICT_ROW,
        specRules: ['doc1/errors/400-bad-request-strict-validation-met'],
        level: 'MUST',
      },
      async ({ client }) => {
        const s = await sendDirty(client, ns.name, verb, 'Strict');
        checkStatus(s.res, 400);
        checkMessageLists(s.res, DROPPED);
        if (s.before) await checkUnchanged(client, s.path, s.before, 'the refused request changes nothing');
        else checkStatus(await client.get(s.path), 404, undefined, 'the refused create creates nothing');
      },
    );

    conformance(
      {
        id: `field-validation/ignore/${v}`,
        title: `A ${verb} with fieldValidation=Ignore succeeds and drops the unknown and duplicate fields without any Warning`,
        doc: 1,
        section: 'Query parameters',
        place: PARAM_ROW,
        specRules: ['doc1/query-parameters/fieldvalidation-post-put-patch-ignore-warn'],
        level: 'MUST',
      },
      async ({ client }) => {
        const s = await sendDirty(client, ns.name, verb, 'Ignore');
        checkStatus(s.res, OK[verb]);
        checkNoWarnings(s.res, 'Ignore drops the fields silently (Warning entries are for Warn)');
        await checkStoredClean(client, s);
      },
    );
  }

  conformance(
    {
      id: 'field-validation/warn/explicit',
      title:
        'A POST with fieldValidation=Warn behaves as the default: success, fields dropped, one Warning entry per field',
      doc: 1,
      section: 'Query parameters',
      place: PARAM_ROW,
      specRules: ['doc1/query-parameters/fieldvalidation-post-put-patch-ignore-warn'],
      level: 'MUST',
    },
    async ({ client }) => {
      const s = await sendDirty(client, ns.name, 'POST', 'Warn');
      checkStatus(s.res, 201);
      checkOneWarningPerField(s.res, DROPPED);
      await checkStoredClean(client, s);
    },
  );

  conformance(
    {
      id: 'field-validation/clean-body-no-warning',
      title: 'A POST whose body has no unknown or duplicate field gets no Warning, whatever the level',
      doc: 1,
      section: 'Headers and content negotiation',
      place: HEADER_ROW,
      specRules: ['doc1/headers-content-negotiation/warning-response-one-entry-per-dropped'],
      level: 'MUST',
    },
    async ({ client }) => {
      for (const level of ['Warn', 'Strict', 'Ignore']) {
        const name = uniqueName('clean');
        const r = await client.post(
          paths.configmaps(ns.name),
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } },
          { query: { fieldValidation: level } },
        );
        checkStatus(r, 201, undefined, `a clean body is accepted under ${level}`);
        checkNoWarnings(r, `nothing is dropped under ${level}, so nothing is warned`);
      }
    },
  );

  conformance(
    {
      id: 'field-validation/unsupported-level',
      title:
        'A fieldValidation value other than Ignore, Warn or Strict is refused and nothing is created (as Kubernetes does)',
      doc: 1,
      section: 'Query parameters',
      place:
        'fieldValidation | POST, PUT, PATCH | `Ignore`, `Warn` (default), `Strict` (other values: not shown; Kubernetes refuses them)',
      specRules: ['doc1/query-parameters/fieldvalidation-post-put-patch-ignore-warn'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const name = uniqueName('lvl');
      const r = await client.post(
        paths.configmaps(ns.name),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } },
        { query: { fieldValidation: 'Lenient' } },
      );
      checkStatus(r, 422);
      checkStatus(await client.get(paths.configmap(ns.name, name)), 404, undefined, 'nothing is created');
    },
  );
});
