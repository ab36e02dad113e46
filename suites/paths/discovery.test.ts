// Discovery documents: `/api`, `/apis`, `/api/v1` and `/apis/<group>/<version>`. doc1 §
// Versioning names where the groups live; the documents' shapes are not shown, so these cases
// follow Kubernetes (APIVersions, APIGroupList, APIResourceList with name, kind, namespaced
// and verbs), and check that what discovery says matches the paths that answer.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';
import { conformance } from '../../harness/src/case.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';

const SECTION = 'Versioning';
const GROUPS =
  'The core group lives at `/api/v1` and is written `apiVersion: v1`; named groups live at `/apis/<group>/<version>` and are written `apiVersion: <group>/<version>`';

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** Checks the fields of every entry of an APIResourceList; returns the entries. */
function checkResourceList(json: any, groupVersion: string): ApiResource[] {
  checkEqual(json?.kind, 'APIResourceList', `kind of the ${groupVersion} document`);
  checkEqual(json?.groupVersion, groupVersion, 'groupVersion of the document');
  check(Array.isArray(json?.resources), 'a resources array', show(json?.resources));
  for (const r of json.resources) {
    const at = `${groupVersion} resource ${show(r?.name)}`;
    check(typeof r?.name === 'string' && r.name !== '', 'a name', show(r), at);
    check(typeof r?.kind === 'string' && r.kind !== '', 'a kind', show(r), at);
    check(typeof r?.namespaced === 'boolean', 'namespaced: true or false', show(r), at);
    check(
      Array.isArray(r?.verbs) && r.verbs.every((v: unknown) => typeof v === 'string'),
      'verbs: a list of strings',
      show(r),
      at,
    );
  }
  return json.resources;
}

async function groupVersions(client: Client): Promise<string[]> {
  const r = await client.get('/apis');
  checkStatus(r, 200);
  return (r.json?.groups ?? []).flatMap((g: any) =>
    (g.versions ?? []).map((v: any) => v.groupVersion as string),
  );
}

const docPath = (gv: string) => (gv === 'v1' ? '/api/v1' : `/apis/${gv}`);

describe('paths: discovery', () => {
  const ns = useNamespace('paths-disc');

  conformance(
    {
      id: 'paths/discovery/api',
      title: 'GET /api answers an APIVersions document that lists v1',
      doc: 1,
      section: SECTION,
      place: `${GROUPS} (discovery document shapes: not shown)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.get('/api');
      checkStatus(r, 200);
      checkEqual(r.json?.kind, 'APIVersions');
      check(
        Array.isArray(r.json?.versions) && r.json.versions.includes('v1'),
        'versions include "v1"',
        show(r.json?.versions),
      );
    },
  );

  conformance(
    {
      id: 'paths/discovery/apis',
      title:
        'GET /apis answers an APIGroupList whose groups name their versions as <group>/<version> and prefer one of them',
      doc: 1,
      section: SECTION,
      place: `${GROUPS} (discovery document shapes: not shown)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.get('/apis');
      checkStatus(r, 200);
      checkEqual(r.json?.kind, 'APIGroupList');
      check(
        Array.isArray(r.json?.groups) && r.json.groups.length > 0,
        'a non-empty groups array',
        show(r.json?.groups),
      );
      for (const g of r.json.groups) {
        check(typeof g?.name === 'string' && g.name !== '', 'a group name', show(g));
        check(Array.isArray(g.versions) && g.versions.length > 0, `versions of ${g.name}`, show(g));
        for (const v of g.versions)
          checkEqual(v?.groupVersion, `${g.name}/${v?.version}`, `groupVersion of a version of ${g.name}`);
        check(
          g.versions.some((v: any) => v.groupVersion === g.preferredVersion?.groupVersion),
          `a preferredVersion among the versions of ${g.name}`,
          show(g.preferredVersion),
        );
      }
    },
  );

  conformance(
    {
      id: 'paths/discovery/core-resources',
      title:
        'GET /api/v1 lists the core resources with kind, namespaced and verbs: configmaps are namespaced, namespaces are not',
      doc: 1,
      section: SECTION,
      place: `${GROUPS}; a namespace is itself a cluster-scoped type (§ Path shapes)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.get('/api/v1');
      checkStatus(r, 200);
      const res = checkResourceList(r.json, 'v1');
      const by = new Map(res.map((x) => [x.name, x]));
      checkEqual(
        { kind: by.get('configmaps')?.kind, namespaced: by.get('configmaps')?.namespaced },
        { kind: 'ConfigMap', namespaced: true },
        'the configmaps entry',
      );
      checkEqual(
        { kind: by.get('namespaces')?.kind, namespaced: by.get('namespaces')?.namespaced },
        { kind: 'Namespace', namespaced: false },
        'the namespaces entry',
      );
      for (const v of ['create', 'get', 'list', 'update', 'patch', 'delete', 'watch'])
        check(
          by.get('configmaps')!.verbs.includes(v),
          `configmaps verbs include ${v}`,
          show(by.get('configmaps')!.verbs),
        );
    },
  );

  conformance(
    {
      id: 'paths/discovery/group-resources',
      title: 'Every /apis/<group>/<version> document lists its resources with kind, namespaced and verbs',
      doc: 1,
      section: SECTION,
      place: `${GROUPS} (discovery document shapes: not shown)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const gv of await groupVersions(client)) {
        const r = await client.get(docPath(gv));
        // a custom group may go away between the two reads (other suites delete theirs)
        if (r.status === 404) continue;
        checkStatus(r, 200, undefined, `GET ${docPath(gv)}`);
        checkResourceList(r.json, gv);
      }
    },
  );

  conformance(
    {
      id: 'paths/discovery/scope-matches-paths',
      title:
        'Every listable resource in discovery answers a list at the path its scope implies: namespaced under namespaces/<ns>, cluster-scoped directly',
      doc: 1,
      section: 'Path shapes',
      place:
        'Core group, namespaced collection | `/api/v1/namespaces/<namespace>/<resource-type>`; Named group | `/apis/<group>/<version>/...` with the same suffixes',
      specRules: [
        'doc1/path-shapes/core-group-namespaced-collection-api-v1',
        'doc1/path-shapes/named-group-apis-group-version-same',
      ],
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const gv of ['v1', ...(await groupVersions(client))]) {
        const d = await client.get(docPath(gv));
        if (d.status === 404) continue;
        const res = checkResourceList(d.json, gv);
        for (const r of res) {
          if (r.name.includes('/') || !r.verbs.includes('list')) continue;
          const path = `${docPath(gv)}${r.namespaced ? `/namespaces/${ns.name}` : ''}/${r.name}`;
          const l = await client.get(path);
          if (l.status === 404) {
            // gone meanwhile (a custom resource another suite deleted)? then nothing to check
            const again = await client.get(docPath(gv));
            if (!(again.json?.resources ?? []).some((x: any) => x.name === r.name)) continue;
          }
          checkStatus(l, 200, undefined, `${gv} ${r.name} (namespaced: ${r.namespaced}) lists at ${path}`);
          checkEqual(l.json?.kind, `${r.kind}List`, `kind of the list at ${path}`);
        }
      }
    },
  );
});
