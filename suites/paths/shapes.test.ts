// doc1 § Path shapes: the core group's collections and resources, a named group's, the
// collection across all namespaces of a namespaced type, and namespaces as a cluster-scoped
// type. Each case makes objects in two namespaces so a path that ignores its scope shows.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import type { Client } from '../../harness/src/client.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';

const SECTION = 'Path shapes';

/** A served named-group, namespaced type the cases can create objects of. */
interface GroupType {
  groupVersion: string;
  plural: string;
  kind: string;
  body(name: string): Record<string, unknown>;
}

const GROUP_TYPES: GroupType[] = [
  {
    groupVersion: 'coordination.orch.io/v1',
    plural: 'leases',
    kind: 'Lease',
    body: (name) => ({
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: { holderIdentity: 'conformance' },
    }),
  },
  {
    groupVersion: 'apps/v1',
    plural: 'deployments',
    kind: 'Deployment',
    body: (name) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
        },
      },
    }),
  },
];

async function groupType(client: Client, skip: (r: string) => never): Promise<GroupType> {
  const caps = await capabilities(client);
  const t = GROUP_TYPES.find((g) => caps.resources.has(`${g.groupVersion}/${g.plural}`));
  if (!t)
    skip(
      `the target serves none of ${GROUP_TYPES.map((g) => `${g.groupVersion}/${g.plural}`).join(', ')}: ${notServed(`${GROUP_TYPES[0]!.groupVersion}/${GROUP_TYPES[0]!.plural}`).replace(/^.*?: /, '')}`,
    );
  return t;
}

const uidsOf = (r: { json: any }) => new Set<string>((r.json?.items ?? []).map((o: any) => o?.metadata?.uid));

describe('paths: path shapes', () => {
  const a = useNamespace('paths-a');
  const b = useNamespace('paths-b');

  conformance(
    {
      id: 'paths/core/all-namespaces-collection',
      title: 'GET /api/v1/configmaps lists the ConfigMaps of every namespace',
      doc: 1,
      section: SECTION,
      place:
        'Core group, collection | `/api/v1/<resource-type>`; a namespaced type also has a collection across all namespaces',
      specRules: [
        'doc1/path-shapes/core-group-collection-api-v1-resource',
        'doc1/path-shapes/namespaced-type-also-has-collection-across',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      const ca = await client.post(paths.configmaps(a.name), configMap(name));
      const cb = await client.post(paths.configmaps(b.name), configMap(name));
      checkStatus(ca, 201);
      checkStatus(cb, 201);
      const r = await client.get(paths.allConfigmaps());
      checkStatus(r, 200);
      checkEqual(r.json.kind, 'ConfigMapList', 'the collection response');
      const uids = uidsOf(r);
      check(
        uids.has(ca.json.metadata.uid) && uids.has(cb.json.metadata.uid),
        `items include ${name} of ${a.name} and of ${b.name}`,
        `${uids.size} items; found in ${a.name}: ${uids.has(ca.json.metadata.uid)}, in ${b.name}: ${uids.has(cb.json.metadata.uid)}`,
      );
    },
  );

  conformance(
    {
      id: 'paths/core/namespaced-collection',
      title: 'GET /api/v1/namespaces/<ns>/configmaps lists the ConfigMaps of that namespace only',
      doc: 1,
      section: SECTION,
      place: 'Core group, namespaced collection | `/api/v1/namespaces/<namespace>/<resource-type>`',
      specRules: ['doc1/path-shapes/core-group-namespaced-collection-api-v1'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('cm');
      const ca = await client.post(paths.configmaps(a.name), configMap(name));
      const cb = await client.post(paths.configmaps(b.name), configMap(name));
      checkStatus(ca, 201);
      checkStatus(cb, 201);
      const r = await client.get(paths.configmaps(a.name));
      checkStatus(r, 200);
      const uids = uidsOf(r);
      check(uids.has(ca.json.metadata.uid), `an item for ${name} of ${a.name}`, `${uids.size} items`);
      check(!uids.has(cb.json.metadata.uid), `no item from ${b.name}`, `${name} of ${b.name} is listed`);
      const namespaces = [...new Set((r.json.items as any[]).map((o) => o?.metadata?.namespace))];
      checkEqual(namespaces, [a.name], 'every item is in the namespace of the path');
    },
  );

  conformance(
    {
      id: 'paths/core/one-resource',
      title: 'GET on .../configmaps/<name> returns that object, not another of the collection',
      doc: 1,
      section: SECTION,
      place: 'Core group, one resource | `.../<resource-type>/<name>`',
      specRules: ['doc1/path-shapes/core-group-one-resource-resource-type'],
      level: 'MUST',
    },
    async ({ client }) => {
      const made = [];
      for (const n of [uniqueName('one'), uniqueName('two')]) {
        const c = await client.post(paths.configmaps(a.name), configMap(n, { me: n }));
        checkStatus(c, 201);
        made.push(c.json);
      }
      for (const o of made) {
        const g = await client.get(paths.configmap(a.name, o.metadata.name));
        checkStatus(g, 200);
        checkEqual(g.json.kind, 'ConfigMap', 'the object, not a list');
        checkEqual(g.json.metadata?.name, o.metadata.name, 'the object named in the path');
        checkEqual(g.json.metadata?.uid, o.metadata.uid, `uid of ${o.metadata.name}`);
        checkEqual(g.json.data, { me: o.metadata.name }, `data of ${o.metadata.name}`);
      }
    },
  );

  conformance(
    {
      id: 'paths/named-group/namespaced-collection-and-resource',
      title:
        'A named-group type is created, read and listed under /apis/<group>/<version>/namespaces/<ns>/<type> with apiVersion <group>/<version>',
      doc: 1,
      section: SECTION,
      place: 'Named group | `/apis/<group>/<version>/...` with the same suffixes',
      specRules: ['doc1/path-shapes/named-group-apis-group-version-same'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      const t = await groupType(client, skip);
      const base = `/apis/${t.groupVersion}/namespaces/${a.name}/${t.plural}`;
      const name = uniqueName('obj');
      const c = await client.post(base, t.body(name));
      checkStatus(c, 201, undefined, `create | POST | ${base}`);
      checkEqual(c.json.apiVersion, t.groupVersion, 'apiVersion of a named group is <group>/<version>');
      const g = await client.get(`${base}/${name}`);
      checkStatus(g, 200);
      checkEqual(g.json.kind, t.kind);
      checkEqual(g.json.apiVersion, t.groupVersion);
      checkEqual(g.json.metadata?.uid, c.json.metadata.uid);
      const l = await client.get(base);
      checkStatus(l, 200);
      checkEqual(l.json.kind, `${t.kind}List`);
      checkEqual(l.json.apiVersion, t.groupVersion);
      check(uidsOf(l).has(c.json.metadata.uid), `the list holds ${name}`, `${l.json.items?.length} items`);
    },
  );

  conformance(
    {
      id: 'paths/named-group/all-namespaces-collection',
      title:
        'GET /apis/<group>/<version>/<type> lists the objects of a namespaced named-group type in every namespace',
      doc: 1,
      section: SECTION,
      place:
        'A namespaced type also has a collection across all namespaces at `/apis/<group>/<version>/<resource-type>`',
      specRules: ['doc1/path-shapes/namespaced-type-also-has-collection-across'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      const t = await groupType(client, skip);
      const name = uniqueName('obj');
      const ca = await client.post(`/apis/${t.groupVersion}/namespaces/${a.name}/${t.plural}`, t.body(name));
      const cb = await client.post(`/apis/${t.groupVersion}/namespaces/${b.name}/${t.plural}`, t.body(name));
      checkStatus(ca, 201);
      checkStatus(cb, 201);
      const r = await client.get(`/apis/${t.groupVersion}/${t.plural}`);
      checkStatus(r, 200);
      checkEqual(r.json.kind, `${t.kind}List`);
      const uids = uidsOf(r);
      check(
        uids.has(ca.json.metadata.uid) && uids.has(cb.json.metadata.uid),
        `items include ${name} of ${a.name} and of ${b.name}`,
        `${uids.size} items; in ${a.name}: ${uids.has(ca.json.metadata.uid)}, in ${b.name}: ${uids.has(cb.json.metadata.uid)}`,
      );
    },
  );

  conformance(
    {
      id: 'paths/named-group/not-under-core',
      title: 'A named-group type is not served under /api/v1: the core path answers 404',
      doc: 1,
      section: SECTION,
      place: 'Core resources use `/api` and omit the group segment',
      specRules: ['doc1/path-shapes/core-resources-use-api-omit-group'],
      level: 'BEYOND',
    },
    async ({ client, skip }) => {
      const t = await groupType(client, skip);
      const r = await client.get(`/api/v1/namespaces/${a.name}/${t.plural}`);
      checkStatus(r, 404, undefined, `${t.plural} belong to ${t.groupVersion}, not to the core group`);
    },
  );

  conformance(
    {
      id: 'paths/namespaces/list',
      title:
        'GET /api/v1/namespaces lists namespaces as a NamespaceList whose items carry no metadata.namespace',
      doc: 1,
      section: SECTION,
      place: 'A namespace is itself a cluster-scoped type: `GET /api/v1/namespaces` lists',
      specRules: ['doc1/path-shapes/namespace-itself-cluster-scoped-type-get'],
      level: 'MUST',
    },
    async ({ client }) => {
      const r = await client.get(paths.namespaces());
      checkStatus(r, 200);
      checkEqual(r.json.kind, 'NamespaceList');
      checkEqual(r.json.apiVersion, 'v1');
      const names = (r.json.items as any[]).map((o) => o?.metadata?.name);
      check(
        names.includes(a.name) && names.includes(b.name),
        `items include ${a.name} and ${b.name}`,
        show(names),
      );
      const scoped = (r.json.items as any[]).filter((o) => o?.metadata?.namespace);
      check(
        scoped.length === 0,
        'no item with metadata.namespace (absent for cluster-scoped types)',
        show(scoped.map((o) => o.metadata)),
      );
    },
  );

  conformance(
    {
      id: 'paths/namespaces/get',
      title: 'GET /api/v1/namespaces/<name> reads that Namespace, which has no metadata.namespace',
      doc: 1,
      section: SECTION,
      place: 'A namespace is itself a cluster-scoped type: `GET /api/v1/namespaces/<name>` reads one',
      specRules: ['doc1/path-shapes/namespace-itself-cluster-scoped-type-get'],
      level: 'MUST',
    },
    async ({ client }) => {
      const r = await client.get(paths.namespace(a.name));
      checkStatus(r, 200);
      checkEqual(r.json.kind, 'Namespace');
      checkEqual(r.json.metadata?.name, a.name);
      checkEqual(r.json.metadata?.namespace, undefined, 'namespace: Absent for cluster-scoped types');
    },
  );
});
