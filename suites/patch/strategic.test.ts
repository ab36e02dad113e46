// doc1 § Operations (PATCH content types: Strategic Merge Patch): accepted for built-in kinds,
// refused for custom-definition APIs. How lists merge is not shown in doc1: those cases follow
// Kubernetes (a list of containers merges by the key `name`; `$patch: delete` removes an entry).
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { useCustomResource } from './custom-resource.ts';
import { MEDIA, makeConfigMap, ROW, readBack, SECTION_OPS, sameJson, showSorted, strMap } from './support.ts';

interface Container {
  name: string;
  image: string;
  env?: { name: string; value: string }[];
}

const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;

function deployment(name: string, containers: Container[]) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers } },
    },
  };
}

/** The containers of a stored Deployment, by name (name -> image and env). */
function byName(d: any): Record<string, { image: string; env: unknown }> {
  const out: Record<string, { image: string; env: unknown }> = {};
  for (const c of d?.spec?.template?.spec?.containers ?? [])
    out[c.name] = { image: c.image, env: c.env ?? [] };
  return out;
}

const BEYOND_PLACE =
  'Strategic Merge Patch semantics (how lists merge): not shown; Kubernetes merges a list of containers by the key `name`';

describe('patch: strategic merge patch', () => {
  const ns = useNamespace('patch-smp');
  const cr = useCustomResource('smp', { spec: 'closed' });

  /** A Deployment with container `a` (image a:1, one env var); skips when apps/v1 is not served. */
  async function makeDeployment(client: Client, skip: (r: string) => never): Promise<string> {
    const caps = await capabilities(client);
    if (!caps.resources.has('apps/v1/deployments')) skip(notServed('apps/v1/deployments'));
    const name = uniqueName('dep');
    const r = await client.post(
      deployments(ns.name),
      deployment(name, [{ name: 'a', image: 'a:1', env: [{ name: 'MODE', value: 'x' }] }]),
    );
    checkStatus(r, 201, undefined, 'setup: create a Deployment');
    return `${deployments(ns.name)}/${name}`;
  }

  conformance(
    {
      id: 'patch/strategic/builtin-accepted',
      title:
        'A strategic merge patch of a built-in kind is accepted and applied; keys it does not name are kept',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.strategic,
      specRules: ['doc1/operations/application-strategic-merge-patch-json-strategic'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1', b: '2' } });
      const r = await client.patch(cm.path, { data: { a: 'one', c: '3' } }, MEDIA.strategic);
      checkStatus(r, 200);
      const want = { a: 'one', b: '2', c: '3' };
      const now = strMap((await readBack(client, cm.path)).data);
      check(sameJson(now, want), showSorted(want), showSorted(now));
    },
  );

  conformance(
    {
      id: 'patch/strategic/list-merge-by-key',
      title:
        'A strategic merge patch merges a list of containers by name: a new name is added, a known name is patched in place and the other entries are kept',
      doc: 1,
      section: SECTION_OPS,
      place: BEYOND_PLACE,
      level: 'BEYOND',
    },
    async ({ client, skip, step }) => {
      const path = await makeDeployment(client, skip);
      const patchContainers = (containers: unknown[]) => ({ spec: { template: { spec: { containers } } } });
      const add = await step('add container b', () =>
        client.patch(path, patchContainers([{ name: 'b', image: 'b:1' }]), MEDIA.strategic),
      );
      checkStatus(add, 200);
      let want: Record<string, { image: string; env: unknown }> = {
        a: { image: 'a:1', env: [{ name: 'MODE', value: 'x' }] },
        b: { image: 'b:1', env: [] },
      };
      let got = byName(await readBack(client, path));
      check(sameJson(got, want), showSorted(want), showSorted(got), 'b is added and a kept');
      const change = await step("change a's image only", () =>
        client.patch(path, patchContainers([{ name: 'a', image: 'a:2' }]), MEDIA.strategic),
      );
      checkStatus(change, 200);
      want = { ...want, a: { image: 'a:2', env: [{ name: 'MODE', value: 'x' }] } };
      got = byName(await readBack(client, path));
      check(
        sameJson(got, want),
        showSorted(want),
        showSorted(got),
        "a's image changes, its env and container b stay",
      );
    },
  );

  conformance(
    {
      id: 'patch/strategic/delete-directive',
      title: 'A strategic merge patch entry with `$patch: delete` removes the list entry with that key',
      doc: 1,
      section: SECTION_OPS,
      place: BEYOND_PLACE,
      level: 'BEYOND',
    },
    async ({ client, skip }) => {
      const path = await makeDeployment(client, skip);
      const add = await client.patch(
        path,
        { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:1' }] } } } },
        MEDIA.strategic,
      );
      checkStatus(add, 200, undefined, 'setup: add container b');
      const r = await client.patch(
        path,
        { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } },
        MEDIA.strategic,
      );
      checkStatus(r, 200);
      const names = Object.keys(byName(await readBack(client, path)));
      check(show(names) === show(['b']), '["b"]', show(names), 'the entry named a is removed, b stays');
    },
  );

  conformance(
    {
      id: 'patch/strategic/merge-patch-replaces-list',
      title: 'Unlike a strategic merge patch, a JSON merge patch replaces the whole list of containers',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.merge,
      specRules: ['doc1/operations/application-merge-patch-json-json-merge'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      const path = await makeDeployment(client, skip);
      const r = await client.patch(
        path,
        { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:1' }] } } } },
        MEDIA.merge,
      );
      checkStatus(r, 200);
      const got = byName(await readBack(client, path));
      const want = { b: { image: 'b:1', env: [] } };
      check(
        sameJson(got, want),
        `${showSorted(want)} (the array in the patch replaces the stored one: nothing of container a, not even its env, is merged into b)`,
        showSorted(got),
      );
    },
  );

  conformance(
    {
      id: 'patch/strategic/custom-resource-refused',
      title: 'A strategic merge patch of a custom resource is refused and leaves the object unchanged',
      doc: 1,
      section: SECTION_OPS,
      place: ROW.strategic,
      specRules: ['doc1/operations/application-strategic-merge-patch-json-strategic'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (cr.reason) skip(cr.reason);
      const name = uniqueName('w');
      const c = await client.post(cr.collection(ns.name), cr.object(name, { size: 1, color: 'red' }));
      checkStatus(c, 201, undefined, 'setup: create the custom resource');
      const r = await client.patch(cr.one(ns.name, name), { spec: { color: 'blue' } }, MEDIA.strategic);
      check(
        r.status >= 400 && r.status < 500,
        'a 4xx refusal',
        r.describe(),
        'not for custom-definition APIs',
      );
      const now = await readBack(client, cr.one(ns.name, name));
      const want = { spec: { size: 1, color: 'red' }, rv: c.json.metadata.resourceVersion };
      const got = { spec: now.spec, rv: now.metadata?.resourceVersion };
      check(sameJson(got, want), showSorted(want), showSorted(got), 'the refused patch changes nothing');
    },
  );

  conformance(
    {
      id: 'patch/strategic/custom-resource-415',
      title:
        'A strategic merge patch of a custom resource is answered 415 Unsupported Media Type (as Kubernetes does)',
      doc: 1,
      section: SECTION_OPS,
      place: 'The status code of a refused strategic merge patch: not shown (Kubernetes answers 415)',
      level: 'BEYOND',
    },
    async ({ client, skip }) => {
      if (cr.reason) skip(cr.reason);
      const name = uniqueName('w');
      const c = await client.post(cr.collection(ns.name), cr.object(name, { size: 1 }));
      checkStatus(c, 201, undefined, 'setup: create the custom resource');
      const r = await client.patch(cr.one(ns.name, name), { spec: { size: 2 } }, MEDIA.strategic);
      checkStatus(r, 415);
    },
  );
});
