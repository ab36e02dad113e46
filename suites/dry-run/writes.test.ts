// doc1 § Dry run: with `dryRun=All` (or a bare `dryRun`) POST, PUT, PATCH and DELETE answer their
// normal status code and the final object, and nothing is persisted: the object is absent or
// unchanged afterwards, and a watch opened before sees no event for it.
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { check, checkDnsSubdomain, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { WatchStream } from '../../harness/src/watch.ts';
import { checkUnchanged, MEDIA, makeConfigMap, strMap } from '../patch/support.ts';

const SECTION = 'Dry run';
const PLACE =
  'With `dryRun=All` every stage runs (...) except persisting. The normal status code and final object are returned';
const BARE = 'A bare `dryRun` is also accepted';

type Form = 'All' | 'bare';
const FORMS: Form[] = ['All', 'bare'];

/** The path with the dry-run query: `?dryRun=All`, or a bare `?dryRun` (no value, no "="). */
const dry = (path: string, form: Form) => (form === 'All' ? `${path}?dryRun=All` : `${path}?dryRun`);

const place = (form: Form) => (form === 'All' ? PLACE : BARE);
/** The rules (suites/rules/doc1.yaml) each form's place quotes. */
const specRules = (form: Form) =>
  form === 'All'
    ? [
        'doc1/dry-run/dryrun-all-every-stage-runs-admission',
        'doc1/dry-run/normal-status-code-final-object-returned',
        'doc1/query-parameters/dryrun-post-put-patch-delete-bare',
      ]
    : ['doc1/dry-run/bare-dryrun-also-accepted', 'doc1/query-parameters/dryrun-post-put-patch-delete-bare'];

function checkData(r: Response, want: Record<string, string>, why: string): void {
  const got = strMap(r.json?.data);
  check(
    show(got) === show(want),
    `an object with data ${show(want)}`,
    `${show(got)} in ${r.describe()}`,
    why,
  );
}

describe('dry-run: writes are not persisted', () => {
  const ns = useNamespace('dry');

  for (const form of FORMS) {
    conformance(
      {
        id: `dry-run/post/${form === 'All' ? 'all' : 'bare'}`,
        title: `A POST with ${form === 'All' ? 'dryRun=All' : 'a bare dryRun'} answers 201 with the object, which is not created`,
        doc: 1,
        section: SECTION,
        place: place(form),
        specRules: specRules(form),
        level: 'MUST',
      },
      async ({ client }) => {
        const name = uniqueName('dry');
        const r = await client.post(dry(paths.configmaps(ns.name), form), configMap(name, { a: '1' }));
        checkStatus(r, 201, undefined, 'the normal status code of a create');
        check(
          r.json?.kind === 'ConfigMap' && r.json?.metadata?.name === name,
          `the ConfigMap ${name}`,
          r.describe(),
          'the final object is returned',
        );
        checkData(r, { a: '1' }, 'the final object is returned');
        const g = await client.get(paths.configmap(ns.name, name));
        checkStatus(g, 404, undefined, 'nothing is persisted: the object does not exist');
      },
    );

    conformance(
      {
        id: `dry-run/put/${form === 'All' ? 'all' : 'bare'}`,
        title: `A PUT with ${form === 'All' ? 'dryRun=All' : 'a bare dryRun'} answers 200 with the updated object, and the stored object is unchanged`,
        doc: 1,
        section: SECTION,
        place: place(form),
        specRules: specRules(form),
        level: 'MUST',
      },
      async ({ client }) => {
        const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
        const body = {
          ...configMap(cm.name, { a: '2', b: '3' }),
          metadata: { name: cm.name, resourceVersion: cm.rv },
        };
        const r = await client.put(dry(cm.path, form), body);
        checkStatus(r, 200, undefined, 'the normal status code of an update');
        checkData(r, { a: '2', b: '3' }, 'the final object is returned');
        await checkUnchanged(client, cm.path, { data: { a: '1' }, rv: cm.rv }, 'nothing is persisted');
      },
    );

    conformance(
      {
        id: `dry-run/patch/${form === 'All' ? 'all' : 'bare'}`,
        title: `A PATCH with ${form === 'All' ? 'dryRun=All' : 'a bare dryRun'} answers 200 with the patched object (the merge runs), and the stored object is unchanged`,
        doc: 1,
        section: SECTION,
        place:
          form === 'All'
            ? 'every stage runs (admission chain, mutation, validation, defaulting, merge on PATCH, schema validation) except persisting'
            : BARE,
        specRules:
          form === 'All'
            ? [
                'doc1/dry-run/dryrun-all-every-stage-runs-admission',
                'doc1/query-parameters/dryrun-post-put-patch-delete-bare',
              ]
            : [
                'doc1/dry-run/bare-dryrun-also-accepted',
                'doc1/query-parameters/dryrun-post-put-patch-delete-bare',
              ],
        level: 'MUST',
      },
      async ({ client }) => {
        const cm = await makeConfigMap(client, ns.name, { data: { a: '1', b: '2' } });
        const merge = await client.patch(dry(cm.path, form), { data: { a: null, c: '3' } }, MEDIA.merge);
        checkStatus(merge, 200, undefined, 'the normal status code of a merge patch');
        checkData(merge, { b: '2', c: '3' }, 'the merged object is returned');
        const json = await client.patch(
          dry(cm.path, form),
          [{ op: 'replace', path: '/data/b', value: 'x' }],
          MEDIA.json,
        );
        checkStatus(json, 200, undefined, 'the normal status code of a JSON patch');
        checkData(json, { a: '1', b: 'x' }, 'the patched object is returned');
        await checkUnchanged(
          client,
          cm.path,
          { data: { a: '1', b: '2' }, rv: cm.rv },
          'nothing is persisted',
        );
      },
    );

    conformance(
      {
        id: `dry-run/delete/${form === 'All' ? 'all' : 'bare'}`,
        title: `A DELETE with ${form === 'All' ? 'dryRun=All' : 'a bare dryRun'} answers as a delete does, and the object stays, not even marked for deletion`,
        doc: 1,
        section: SECTION,
        place: place(form),
        specRules: specRules(form),
        level: 'MUST',
      },
      async ({ client }) => {
        const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
        const r = await client.delete(dry(cm.path, form));
        checkStatus(r, [200, 202], undefined, 'the normal status code of a delete');
        const g = await client.get(cm.path);
        checkStatus(g, 200, undefined, 'nothing is persisted: the object still exists');
        check(
          !g.json?.metadata?.deletionTimestamp,
          'no deletionTimestamp',
          show(g.json?.metadata),
          'the dry-run delete did not start a deletion',
        );
        await checkUnchanged(client, cm.path, { data: { a: '1' }, rv: cm.rv }, 'nothing is persisted');
      },
    );
  }

  conformance(
    {
      id: 'dry-run/watch/no-events',
      title:
        'A watch from the version before dry-run POST, PUT, PATCH and DELETE requests sees no event for them, only the real create that follows',
      doc: 1,
      section: SECTION,
      place: PLACE,
      specRules: [
        'doc1/dry-run/normal-status-code-final-object-returned',
        'doc1/dry-run/dryrun-all-every-stage-runs-admission',
      ],
      level: 'MUST',
    },
    async ({ client, step }) => {
      const tag = randomBytes(4).toString('hex');
      const labels = { run: tag };
      const base = await client.post(
        paths.configmaps(ns.name),
        configMap(uniqueName('base'), { a: '1' }, labels),
      );
      checkStatus(base, 201, undefined, 'setup: create the object the dry runs act on');
      const path = paths.configmap(ns.name, base.json.metadata.name);
      // The watch starts at the version of that create (Start at Exact), so it sees every change
      // made after it however late its answer headers come (some servers and proxies send them
      // with the first event only); the writes need not wait for them.
      const opening = WatchStream.open(client, {
        path: paths.configmaps(ns.name),
        query: { labelSelector: `run=${tag}`, resourceVersion: base.json.metadata.resourceVersion },
      });
      opening.catch(() => {});
      await step('dry-run POST, PUT, PATCH and DELETE', async () => {
        const writes = [
          await client.post(
            dry(paths.configmaps(ns.name), 'All'),
            configMap(uniqueName('ghost'), { g: '1' }, labels),
          ),
          await client.put(dry(path, 'All'), {
            ...configMap(base.json.metadata.name, { a: '2' }, labels),
            metadata: { ...base.json.metadata },
          }),
          await client.patch(dry(path, 'All'), { data: { a: '3' } }, MEDIA.merge),
          await client.delete(dry(path, 'All')),
        ];
        for (const w of writes)
          check(w.status < 300, 'the dry run succeeds', w.describe(), 'setup: each dry run is accepted');
      });
      const end = uniqueName('end');
      const e = await client.post(paths.configmaps(ns.name), configMap(end, {}, labels));
      checkStatus(e, 201, undefined, 'setup: a real create marks the end of the dry runs');
      const s = await opening;
      try {
        check(s.status === 200, 'HTTP 200 for the watch', `HTTP ${s.status}`, 'setup: the watch is opened');
        const seen: string[] = [];
        for (;;) {
          const ev = await s.next(8_000);
          if (ev.type === 'BOOKMARK') continue;
          seen.push(`${ev.type} ${ev.object?.metadata?.name}`);
          if (ev.object?.metadata?.name === end) break;
        }
        check(
          show(seen) === show([`ADDED ${end}`]),
          `only the real create: ${show([`ADDED ${end}`])}`,
          show(seen),
          'dry runs are not persisted, so they are not watch events',
        );
      } finally {
        s.close();
      }
    },
  );

  conformance(
    {
      id: 'dry-run/generate-name',
      title:
        'A dry-run POST with generateName returns an object with a generated name that starts with the prefix, and creates nothing',
      doc: 1,
      section: SECTION,
      place:
        'The normal status code and final object are returned; values of generated fields may differ from a real run',
      specRules: ['doc1/dry-run/normal-status-code-final-object-returned'],
      level: 'MUST',
    },
    async ({ client }) => {
      const prefix = `gen-${randomBytes(3).toString('hex')}-`;
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: prefix },
        data: { a: '1' },
      };
      const r = await client.post(`${paths.configmaps(ns.name)}?dryRun=All`, body);
      checkStatus(r, 201);
      const name: unknown = r.json?.metadata?.name;
      check(
        typeof name === 'string' && name.startsWith(prefix) && name.length > prefix.length,
        `a name "${prefix}<suffix>"`,
        show(name),
        'generateName: the server generates a unique name',
      );
      checkDnsSubdomain(name, 'the generated name', 'a ConfigMap name is a DNS subdomain');
      const g = await client.get(paths.configmap(ns.name, name));
      checkStatus(g, 404, undefined, 'nothing is persisted under the generated name');
      const list = await client.get(paths.configmaps(ns.name));
      checkStatus(list, 200);
      const made = (list.json?.items ?? [])
        .map((i: any) => i.metadata?.name)
        .filter((n: string) => n.startsWith(prefix));
      check(made.length === 0, `no ConfigMap named ${prefix}*`, show(made), 'nothing is persisted');
    },
  );

  conformance(
    {
      id: 'dry-run/unsupported-value',
      title: 'A dryRun value other than All is refused with 422 and nothing is created (as Kubernetes does)',
      doc: 1,
      section: SECTION,
      place:
        'dryRun | POST, PUT, PATCH, DELETE | bare `dryRun` or `All` (other values: not shown; Kubernetes answers 422 Invalid)',
      specRules: ['doc1/query-parameters/dryrun-post-put-patch-delete-bare'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const name = uniqueName('dry');
      const r = await client.post(
        `${paths.configmaps(ns.name)}?dryRun=Everything`,
        configMap(name, { a: '1' }),
      );
      checkStatus(r, 422);
      const g = await client.get(paths.configmap(ns.name, name));
      checkStatus(g, 404, undefined, 'the refused request creates nothing');
    },
  );
});
