// doc1 § What the service does, "Object names": a name is unique for its kind within its
// namespace at any one time, reusable after deletion; cluster-scoped names are unique in the
// whole cluster. The law at the end checks any sequence of creates and deletes against a
// model (fast-check; a failure prints seed and path, found counterexamples stay in EXAMPLES).
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, dropNamespace, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';

const SECTION = 'What the service does';
const UNIQUE =
  'every object creatable through the API has a name unique for its kind within its namespace at any one time';

describe('crud: object names', () => {
  const ns = useNamespace('crud-names');
  const other = useNamespace('crud-names-b');

  conformance(
    {
      id: 'crud/names/second-create-refused',
      title:
        'A second create with a name already used in the namespace is refused and the first object stays as it was',
      doc: 1,
      section: SECTION,
      place: UNIQUE,
      specRules: ['doc1/what-service-does/object-names-every-object-creatable-through'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      const first = await client.post(paths.configmaps(ns.name), configMap(name, { who: 'first' }));
      checkStatus(first, 201);
      const second = await client.post(paths.configmaps(ns.name), configMap(name, { who: 'second' }));
      check(second.status >= 400 && second.status < 500, 'a 4xx refusal', second.describe());
      const g = await client.get(paths.configmap(ns.name, name));
      checkEqual(g.json.metadata.uid, first.json.metadata.uid, 'the same object (uid) holds the name');
      checkEqual(g.json.data, { who: 'first' }, 'the first object is unchanged');
    },
  );

  conformance(
    {
      id: 'crud/names/already-exists',
      title: 'A create with a name in use answers 409 with reason AlreadyExists',
      doc: 1,
      section: 'Errors',
      place: 'The JSON shape of an error body: not shown (Kubernetes: 409 AlreadyExists)',
      level: 'BEYOND',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      checkStatus(await client.post(paths.configmaps(ns.name), configMap(name)), 201);
      checkStatus(await client.post(paths.configmaps(ns.name), configMap(name)), 409, 'AlreadyExists');
    },
  );

  conformance(
    {
      id: 'crud/names/same-name-other-namespace',
      title: 'The same name may be used by one object of a kind in each of two namespaces',
      doc: 1,
      section: SECTION,
      place: UNIQUE,
      specRules: [
        'doc1/what-service-does/object-names-every-object-creatable-through',
        'doc1/resources-their-fields/name-string-unique-per-kind-within',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      const a = await client.post(paths.configmaps(ns.name), configMap(name, { ns: 'a' }));
      const b = await client.post(paths.configmaps(other.name), configMap(name, { ns: 'b' }));
      checkStatus(a, 201);
      checkStatus(b, 201, undefined, 'uniqueness is per namespace');
      check(
        a.json.metadata.uid !== b.json.metadata.uid,
        'two objects',
        show([a.json.metadata.uid, b.json.metadata.uid]),
      );
      checkEqual((await client.get(paths.configmap(ns.name, name))).json.data, { ns: 'a' });
      checkEqual((await client.get(paths.configmap(other.name, name))).json.data, { ns: 'b' });
    },
  );

  conformance(
    {
      id: 'crud/names/same-name-other-kind',
      title: 'A ConfigMap and a Secret in one namespace may share a name',
      doc: 1,
      section: SECTION,
      place: UNIQUE,
      specRules: [
        'doc1/what-service-does/object-names-every-object-creatable-through',
        'doc1/resources-their-fields/name-string-unique-per-kind-within',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('shared');
      checkStatus(await client.post(paths.configmaps(ns.name), configMap(name)), 201);
      const s = await client.post(`/api/v1/namespaces/${ns.name}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        type: 'Opaque',
        data: { k: 'dg==' },
      });
      checkStatus(s, 201, undefined, 'uniqueness is per kind');
    },
  );

  conformance(
    {
      id: 'crud/names/reusable-after-delete',
      title: 'After an object is deleted its name can be used by a new object, which gets a new uid',
      doc: 1,
      section: SECTION,
      place: 'After deletion the name may be reused',
      specRules: ['doc1/what-service-does/after-deletion-name-may-reused'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      const first = await client.post(paths.configmaps(ns.name), configMap(name, { gen: '1' }));
      checkStatus(first, 201);
      checkStatus(await client.delete(paths.configmap(ns.name, name)), [200, 202]);
      checkStatus(
        await client.get(paths.configmap(ns.name, name)),
        404,
        undefined,
        'the deleted object is gone',
      );
      const again = await client.post(paths.configmaps(ns.name), configMap(name, { gen: '2' }));
      checkStatus(again, 201, undefined, 'the name is free again');
      check(
        again.json.metadata.uid !== first.json.metadata.uid,
        'a new uid for the new object',
        show(again.json.metadata.uid),
      );
      checkEqual((await client.get(paths.configmap(ns.name, name))).json.data, { gen: '2' });
    },
  );

  conformance(
    {
      id: 'crud/names/cluster-scoped-unique',
      title:
        'A second Namespace with a name in use is refused: cluster-scoped names are unique in the whole cluster',
      doc: 1,
      section: SECTION,
      place: 'Cluster-scoped objects (for example nodes) have names unique in the whole cluster',
      specRules: ['doc1/what-service-does/cluster-scoped-objects-example-nodes-have'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('crud-dup');
      const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { attempt: 'first' } } };
      const first = await client.post(paths.namespaces(), body);
      checkStatus(first, 201);
      try {
        const second = await client.post(paths.namespaces(), {
          ...body,
          metadata: { name, labels: { attempt: 'second' } },
        });
        check(second.status >= 400 && second.status < 500, 'a 4xx refusal', second.describe());
        const g = await client.get(paths.namespace(name));
        checkEqual(g.json.metadata.uid, first.json.metadata.uid, 'the first Namespace still holds the name');
        checkEqual(g.json.metadata.labels?.attempt, 'first', 'the first Namespace is unchanged');
      } finally {
        await dropNamespace(client, name);
      }
    },
  );

  type Op = { op: 'create' | 'delete'; name: 'a' | 'b' | 'c' };
  const opArb: fc.Arbitrary<Op> = fc.record({
    op: fc.constantFrom('create', 'delete') as fc.Arbitrary<'create' | 'delete'>,
    name: fc.constantFrom('a', 'b', 'c') as fc.Arbitrary<'a' | 'b' | 'c'>,
  });
  /** Sequences worth running every time: create twice, delete and recreate, delete twice. */
  const EXAMPLES: [Op[]][] = [
    [
      [
        { op: 'create', name: 'a' },
        { op: 'create', name: 'a' },
      ],
    ],
    [
      [
        { op: 'create', name: 'a' },
        { op: 'delete', name: 'a' },
        { op: 'create', name: 'a' },
        { op: 'create', name: 'a' },
      ],
    ],
    [
      [
        { op: 'create', name: 'b' },
        { op: 'delete', name: 'b' },
        { op: 'delete', name: 'b' },
      ],
    ],
  ];

  conformance(
    {
      id: 'crud/names/law-unique-at-any-time',
      title:
        'Law: for any sequence of creates and deletes over a few names, a create succeeds exactly when no live object holds the name, and the list ends as the model says',
      doc: 1,
      section: SECTION,
      place: `${UNIQUE}. After deletion the name may be reused`,
      specRules: ['doc1/what-service-does/object-names-every-object-creatable-through'],
      level: 'MUST',
    },
    async ({ client }) => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
          // each run uses its own names, so runs do not see each other's objects
          const tag = `law${run++}-${uniqueName('r').slice(2)}`;
          const live = new Set<string>();
          for (const [i, o] of ops.entries()) {
            const name = `${tag}-${o.name}`;
            const at = `step ${i + 1} of ${show(ops)}`;
            if (o.op === 'create') {
              const r = await client.post(paths.configmaps(ns.name), configMap(name, { step: String(i) }));
              if (live.has(name))
                check(r.status >= 400 && r.status < 500, 'a 4xx refusal (name in use)', r.describe(), at);
              else checkStatus(r, 201, undefined, `${at}: the name is free`);
              live.add(name);
            } else {
              const r = await client.delete(paths.configmap(ns.name, name));
              if (live.has(name)) checkStatus(r, [200, 202], undefined, `${at}: delete of a live object`);
              else checkStatus(r, 404, undefined, `${at}: delete of an object that does not exist`);
              live.delete(name);
            }
          }
          const l = await client.get(paths.configmaps(ns.name));
          checkStatus(l, 200);
          const listed = (l.json.items as any[])
            .map((o) => o.metadata.name as string)
            .filter((n) => n.startsWith(`${tag}-`))
            .sort();
          checkEqual(listed, [...live].sort(), `the list after ${show(ops)} holds exactly the live names`);
        }),
        { ...propertySettings(15), examples: EXAMPLES },
      );
    },
  );
});
