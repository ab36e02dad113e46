// doc1 § Path shapes (Subresource) and § Operations (eviction): a subresource lives below one
// named resource, cluster or namespace scoped, and cannot be reached across several resources.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import type { Client } from '../../harness/src/client.ts';
import { conformance } from '../../harness/src/case.ts';
import { paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';

const SECTION = 'Path shapes';
const SUBRESOURCE = 'Subresource | `<resource path>/<name>/<subresource>` (cluster or namespace scoped)';
const ACROSS =
  'Subresources cannot be accessed across several resources; a new virtual type is used for that need';

const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

function pod(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { conformance: 'paths' } },
    spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
  };
}

async function needs(client: Client, skip: (r: string) => never, ...resources: string[]): Promise<void> {
  const caps = await capabilities(client);
  for (const r of resources) if (!caps.resources.has(r)) skip(notServed(r));
}

async function makePod(client: Client, ns: string, name = uniqueName('pod')): Promise<any> {
  const r = await client.post(pods(ns), pod(name));
  checkStatus(r, 201, undefined, `setup: create Pod ${name}`);
  return r.json;
}

/** The pod is gone, or being deleted (a pod bound to a node gets graceful termination). */
async function evicted(client: Client, ns: string, name: string): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const g = await client.get(`${pods(ns)}/${name}`);
    if (g.status === 404 || (g.status === 200 && g.json?.metadata?.deletionTimestamp)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('paths: subresources', () => {
  const ns = useNamespace('paths-sub');

  conformance(
    {
      id: 'paths/subresource/status-cluster-scoped',
      title:
        'GET /api/v1/namespaces/<name>/status returns that Namespace (a subresource of a cluster-scoped type)',
      doc: 1,
      section: SECTION,
      place: SUBRESOURCE,
      specRules: ['doc1/path-shapes/subresource-resource-path-name-subresource-cluster'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      await needs(client, skip, 'v1/namespaces/status');
      const r = await client.get(`${paths.namespace(ns.name)}/status`);
      checkStatus(r, 200);
      checkEqual(r.json.kind, 'Namespace');
      checkEqual(r.json.metadata?.name, ns.name, 'the namespace named in the path');
    },
  );

  conformance(
    {
      id: 'paths/subresource/status-namespaced',
      title:
        'GET /api/v1/namespaces/<ns>/pods/<name>/status returns that Pod (a subresource of a namespaced type)',
      doc: 1,
      section: SECTION,
      place: SUBRESOURCE,
      specRules: ['doc1/path-shapes/subresource-resource-path-name-subresource-cluster'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      await needs(client, skip, 'v1/pods', 'v1/pods/status');
      const p = await makePod(client, ns.name);
      const r = await client.get(`${pods(ns.name)}/${p.metadata.name}/status`);
      checkStatus(r, 200);
      checkEqual(r.json.kind, 'Pod');
      checkEqual(r.json.metadata?.uid, p.metadata.uid, 'the pod named in the path');
    },
  );

  conformance(
    {
      id: 'paths/subresource/eviction',
      title: "POST of an Eviction to a pod's eviction subresource is accepted and evicts that pod only",
      doc: 1,
      section: 'Operations',
      place:
        'eviction | POST | subresource `eviction` of a workload unit | eviction object | triggers API-initiated eviction',
      specRules: ['doc1/operations/eviction-post-subresource-eviction-workload-unit'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      await needs(client, skip, 'v1/pods', 'v1/pods/eviction');
      const target = await makePod(client, ns.name);
      const bystander = await makePod(client, ns.name);
      const name = target.metadata.name;
      const r = await client.post(`${pods(ns.name)}/${name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name, namespace: ns.name },
      });
      check(r.status >= 200 && r.status < 300, '2xx (Kubernetes: 201)', r.describe());
      check(
        await evicted(client, ns.name, name),
        `pod ${name} removed or being deleted`,
        'still live after 5 s',
      );
      const b = await client.get(`${pods(ns.name)}/${bystander.metadata.name}`);
      checkStatus(b, 200, undefined, 'another pod is untouched');
      checkEqual(b.json.metadata?.deletionTimestamp, undefined, 'the other pod is not being deleted');
    },
  );

  conformance(
    {
      id: 'paths/subresource/eviction-not-across-pods',
      title: 'An Eviction posted to the pod collection (no pod name) is refused and evicts no pod',
      doc: 1,
      section: SECTION,
      place: ACROSS,
      specRules: ['doc1/path-shapes/subresources-cannot-accessed-across-several-resources'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      await needs(client, skip, 'v1/pods', 'v1/pods/eviction');
      const made = [await makePod(client, ns.name), await makePod(client, ns.name)];
      const r = await client.post(`${pods(ns.name)}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { namespace: ns.name },
      });
      check(r.status >= 400 && r.status < 500, 'a 4xx refusal (Kubernetes: 405)', r.describe());
      for (const p of made) {
        const g = await client.get(`${pods(ns.name)}/${p.metadata.name}`);
        checkStatus(g, 200, undefined, `pod ${p.metadata.name} is still there`);
        checkEqual(
          g.json.metadata?.deletionTimestamp,
          undefined,
          `pod ${p.metadata.name} is not being deleted`,
        );
      }
    },
  );

  conformance(
    {
      id: 'paths/subresource/status-not-across-pods',
      title:
        'The status subresource is not served for a whole collection: .../pods/status and /api/v1/pods/status answer 404',
      doc: 1,
      section: SECTION,
      place: `${ACROSS} (Kubernetes: 404)`,
      level: 'BEYOND',
    },
    async ({ client, skip }) => {
      await needs(client, skip, 'v1/pods', 'v1/pods/status');
      await makePod(client, ns.name);
      for (const p of [`${pods(ns.name)}/status`, '/api/v1/pods/status']) {
        const r = await client.get(p);
        check(
          r.status === 404,
          `GET ${p}: 404`,
          `${r.describe()}${r.json?.items ? ` (${show(r.json.kind)})` : ''}`,
        );
      }
    },
  );
});
