// doc1 § States and transitions: "Deleting a namespace also deletes its namespace-scoped
// resources." doc3 § Resources and their fields, NamespaceLifecycle: creation in a
// terminating namespace is blocked. Each case makes its own namespaces and waits for their
// removal with a bounded poll.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, isRfc3339, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { namespaceControllerHint } from '../../harness/src/controllers.ts';
import { configMap, paths, uniqueName } from '../../harness/src/fixtures.ts';
import { createNamespace, poll, withTerminatingNamespace } from './helpers.ts';

const SECTION = 'States and transitions';
const CONTENTS = 'Deleting a namespace also deletes its namespace-scoped resources';
const LIFECYCLE = 'NamespaceLifecycle | V | Blocks creation in terminating namespaces';
// No bound is given by doc1. Kubernetes 1.28's namespace controller starts 5 s after the
// deletion, deletes through a client limited to 20 requests a second (two or more a resource
// type, while other namespaces of a busy cluster queue), and looks again 15 s later when
// anything remains: a minute covers a busy cluster, and a quick target answers in a second.
const TIMEOUT_MS = 60_000;

const secret = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  type: 'Opaque',
  data: {},
});

describe('deletion: namespaces', () => {
  conformance(
    {
      id: 'deletion/namespace/deletes-contents',
      title:
        'Deleting a namespace deletes the ConfigMaps and Secrets in it, then the namespace itself (within 60 s); other namespaces keep theirs',
      doc: 1,
      section: SECTION,
      place: CONTENTS,
      specRules: ['doc1/states-transitions/deleting-namespace-also-deletes-namespace-scoped'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      const ns = await createNamespace(client, 'del-ns');
      const bystander = await createNamespace(client, 'del-keep');
      try {
        const cms = [uniqueName('cm'), uniqueName('cm'), uniqueName('cm')];
        const sec = uniqueName('secret');
        await step('fill the namespace (and a bystander namespace)', async () => {
          for (const n of cms) checkStatus(await client.post(paths.configmaps(ns), configMap(n)), 201);
          checkStatus(await client.post(`/api/v1/namespaces/${ns}/secrets`, secret(sec)), 201);
          checkStatus(await client.post(paths.configmaps(bystander), configMap(cms[0]!)), 201);
        });
        const d = await client.delete(paths.namespace(ns));
        checkStatus(d, [200, 202], undefined, 'the delete request for the namespace');
        const g = await client.get(paths.namespace(ns));
        check(
          g.status === 404 || (g.status === 200 && isRfc3339(g.json.metadata?.deletionTimestamp)),
          'the namespace is gone or being deleted (deletionTimestamp set)',
          g.describe(),
        );
        const gone = await step('wait for the namespace to be removed', () =>
          poll(async () => (await client.get(paths.namespace(ns))).status === 404, TIMEOUT_MS),
        );
        check(
          gone,
          `namespace ${ns} removed within ${TIMEOUT_MS / 1000} s`,
          namespaceControllerHint(ns, TIMEOUT_MS / 1000),
        );
        for (const [kind, plural] of [
          ['ConfigMap', 'configmaps'],
          ['Secret', 'secrets'],
        ]) {
          const l = await client.get(`/api/v1/${plural}`, {
            query: { fieldSelector: `metadata.namespace=${ns}` },
          });
          checkStatus(l, 200);
          const left = (l.json.items as any[])
            .filter((o) => o.metadata.namespace === ns)
            .map((o) => o.metadata.name);
          checkEqual(left, [], `${kind}s of the deleted namespace left in the all-namespaces list`);
        }
        const kept = await client.get(paths.configmap(bystander, cms[0]!));
        checkStatus(kept, 200, undefined, 'the same-named ConfigMap of another namespace remains');
      } finally {
        await client.delete(paths.namespace(bystander));
      }
    },
    { timeout: TIMEOUT_MS + 15_000 },
  );

  conformance(
    {
      id: 'deletion/namespace/terminating-until-empty',
      title:
        'A namespace being deleted stays, with deletionTimestamp, while an object in it is held by a finalizer; its other objects go first, and it goes once the hold is released',
      doc: 1,
      section: SECTION,
      place: `${CONTENTS} (the order, contents before the namespace, follows Kubernetes)`,
      level: 'BEYOND',
    },
    async ({ client, step }) => {
      const free = [uniqueName('free'), uniqueName('free')];
      await withTerminatingNamespace(
        client,
        async ({ ns, held, release }) => {
          const emptied = await step('wait for the objects without finalizers to go', () =>
            poll(async () => {
              const l = await client.get(paths.configmaps(ns));
              return l.status === 200 && (l.json.items as any[]).every((o) => o.metadata.name === held);
            }, TIMEOUT_MS),
          );
          check(emptied, `${show(free)} deleted within ${TIMEOUT_MS / 1000} s`, 'still listed');
          const n = await client.get(paths.namespace(ns));
          check(
            n.status === 200 && isRfc3339(n.json.metadata?.deletionTimestamp),
            'the namespace remains, being deleted, while the held object does',
            n.describe(),
          );
          const h = await client.get(paths.configmap(ns, held));
          checkStatus(h, 200, undefined, 'the held object remains while its finalizer does');
          check(
            isRfc3339(h.json.metadata?.deletionTimestamp),
            'the held object is being deleted (deletionTimestamp set)',
            show(h.json.metadata),
          );
          await step('release the hold', release);
          const gone = await step('wait for the namespace to be removed', () =>
            poll(async () => (await client.get(paths.namespace(ns))).status === 404, TIMEOUT_MS),
          );
          check(gone, `namespace ${ns} removed once empty`, namespaceControllerHint(ns, TIMEOUT_MS / 1000));
        },
        free,
      );
    },
    { timeout: TIMEOUT_MS + 15_000 },
  );

  conformance(
    {
      id: 'deletion/namespace/no-create-when-terminating',
      title: 'A create in a namespace being deleted is refused and nothing is created',
      doc: 3,
      section: 'Resources and their fields',
      place: LIFECYCLE,
      specRules: [
        'doc3/webhook-configuration-objects/namespacelifecycle-v-blocks-creation-terminating-namespaces',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      await withTerminatingNamespace(client, async ({ ns }) => {
        const name = uniqueName('late');
        const r = await client.post(paths.configmaps(ns), configMap(name));
        check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe());
        checkStatus(await client.get(paths.configmap(ns, name)), 404, undefined, 'nothing was created');
      });
    },
    { timeout: TIMEOUT_MS + 15_000 },
  );

  conformance(
    {
      id: 'deletion/namespace/no-create-when-terminating-forbidden',
      title: 'A create in a namespace being deleted answers 403 with reason Forbidden',
      doc: 3,
      section: 'Resources and their fields',
      place: `${LIFECYCLE} (status code: not shown; Kubernetes: 403 Forbidden)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      await withTerminatingNamespace(client, async ({ ns }) => {
        checkStatus(await client.post(paths.configmaps(ns), configMap(uniqueName('late'))), 403, 'Forbidden');
      });
    },
    { timeout: TIMEOUT_MS + 15_000 },
  );
});
