// Watches beyond one namespaced core collection: a cluster-scoped type (namespaces), a named
// group (coordination.orch.io leases, whose watch-list BOOKMARK names the group's apiVersion),
// and the deletions a namespace deletion causes.
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import { conformance } from '../../harness/src/case.ts';
import { dropNamespace, paths } from '../../harness/src/fixtures.ts';
import { WatchStream } from '../../harness/src/watch.ts';
import {
  checkBookmarkShape,
  INITIAL_EVENTS_BOOKMARK_MS,
  isBookmark,
  isDeletionType,
  lines,
  nameOf,
  readUntil,
  rvOf,
  withRoom,
} from './support.ts';

const LEASES = 'coordination.orch.io/v1/leases';
/** How long a namespace's contents may take to go (Kubernetes 1.28's namespace controller starts 5 s after the deletion and is rate-limited: see suites/deletion/namespace.test.ts). */
const NAMESPACE_DELETION_MS = 60_000;
const leases = (ns: string) => `/apis/coordination.orch.io/v1/namespaces/${ns}/leases`;

describe('watch: scopes', () => {
  conformance(
    {
      id: 'watch/scopes/cluster-scoped',
      title:
        'A watch on a cluster-scoped collection (namespaces) streams the creation and the changes of a namespace',
      doc: 1,
      section: 'Path shapes',
      place: 'A namespace is itself a cluster-scoped type: `GET /api/v1/namespaces` lists',
      specRules: ['doc1/path-shapes/namespace-itself-cluster-scoped-type-get'],
      level: 'MUST',
    },
    async ({ client }) => {
      const first = `wns-${randomBytes(4).toString('hex')}`;
      const name = `wns-${randomBytes(4).toString('hex')}`;
      const made: string[] = [];
      const s0 = await client.post(paths.namespaces(), {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: first },
      });
      checkStatus(s0, 201, undefined, 'setup: create a namespace to start from');
      made.push(first);
      // Start at Exact from that creation, so the stream does not begin with every namespace
      const s = await WatchStream.open(client, {
        path: paths.namespaces(),
        query: { resourceVersion: s0.json.metadata.resourceVersion },
      });
      try {
        check(s.status === 200, 'HTTP 200', `HTTP ${s.status} ${show(s.events[0])}`);
        const c = await client.post(paths.namespaces(), {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name },
        });
        checkStatus(c, 201, undefined, 'setup: create the watched namespace');
        made.push(name);
        const p = await client.patch(
          paths.namespace(name),
          { metadata: { labels: { watched: 'yes' } } },
          'application/merge-patch+json',
        );
        checkStatus(p, 200, undefined, 'setup: label the namespace');
        const mine = (
          await readUntil(
            s,
            (e) => nameOf(e) === name && e.object?.metadata?.labels?.watched === 'yes',
            `the events of namespace ${name}`,
          )
        ).filter((e) => !isBookmark(e) && nameOf(e) === name);
        const got = mine.map((e) => `${e.type}@${rvOf(e)}`);
        const want = [
          `ADDED@${c.json.metadata.resourceVersion}`,
          `MODIFIED@${p.json.metadata.resourceVersion}`,
        ];
        check(JSON.stringify(got) === JSON.stringify(want), show(want), `${show(got)} from ${lines(mine)}`);
        check(
          mine.every(
            (e) =>
              e.object?.kind === 'Namespace' &&
              e.object?.apiVersion === 'v1' &&
              !e.object?.metadata?.namespace,
          ),
          'Namespace objects (kind Namespace, apiVersion v1, no metadata.namespace)',
          lines(mine),
        );
      } finally {
        s.close();
        for (const n of made) await dropNamespace(client, n);
      }
    },
  );

  conformance(
    {
      id: 'watch/scopes/namespace-deletion',
      title:
        "Deleting a namespace streams a deletion event for each of its objects to a watch on the namespace's collection",
      doc: 1,
      section: 'States and transitions',
      place: 'Deleting a namespace also deletes its namespace-scoped resources',
      specRules: ['doc1/states-transitions/deleting-namespace-also-deletes-namespace-scoped'],
      level: 'MUST',
    },
    async ({ client }) => {
      await withRoom(client, async (room) => {
        await room.create('a', { v: '0' });
        const b = await room.create('b', { v: '0' });
        const s = await room.watchOk({ watch: 1, resourceVersion: b.rv });
        const d = await client.delete(paths.namespace(room.ns));
        checkStatus(d, [200, 202], undefined, 'setup: delete the namespace');
        const seen = new Set<string>();
        const events = await readUntil(
          s,
          (e) => {
            if (isDeletionType(e.type)) seen.add(String(nameOf(e)));
            return seen.has('a') && seen.has('b');
          },
          'a deletion event for a and for b (doc1 leaves the type name open)',
          NAMESPACE_DELETION_MS,
        );
        // the namespace's other objects (a live cluster's root-CA ConfigMap) go too: left out
        const changes = room.mine(events).filter((e) => !isBookmark(e));
        check(
          changes.every((e) => e.type === 'MODIFIED' || isDeletionType(e.type)) &&
            changes.filter((e) => isDeletionType(e.type)).length === 2,
          'one deletion event per object (updates before it allowed), nothing else',
          lines(changes),
        );
      });
    },
    { timeout: NAMESPACE_DELETION_MS + 15_000 },
  );

  conformance(
    {
      id: 'watch/scopes/named-group',
      title:
        'A watch on a named group collection (leases) streams its objects with the group apiVersion, and its watch-list BOOKMARK names the requested kind and apiVersion',
      doc: 1,
      section: 'Resources and their fields',
      place:
        'For `BOOKMARK` the object has the requested kind and apiVersion and only `metadata.resourceVersion`',
      specRules: ['doc1/resources-their-fields/bookmark-object-has-requested-kind-apiversion'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      const caps = await capabilities(client);
      if (!caps.resources.has(LEASES)) skip(notServed(LEASES));
      await withRoom(client, async (room) => {
        room.own.add('l1');
        const r = await client.post(leases(room.ns), {
          apiVersion: 'coordination.orch.io/v1',
          kind: 'Lease',
          metadata: { name: 'l1' },
          spec: { holderIdentity: 'h' },
        });
        checkStatus(r, 201, undefined, 'setup: create a Lease');
        const s = await room.watchOk(
          {
            watch: 1,
            sendInitialEvents: 'true',
            allowWatchBookmarks: 'true',
            resourceVersionMatch: 'NotOlderThan',
          },
          leases(room.ns),
        );
        const events = await readUntil(
          s,
          isBookmark,
          'the synthetic ADDED Lease, then a BOOKMARK',
          INITIAL_EVENTS_BOOKMARK_MS,
        );
        const added = room.mine(events.slice(0, -1));
        check(
          added.length === 1 &&
            added[0]!.type === 'ADDED' &&
            added[0]!.object?.kind === 'Lease' &&
            added[0]!.object?.apiVersion === 'coordination.orch.io/v1',
          'one ADDED Lease l1 with apiVersion coordination.orch.io/v1',
          lines(added),
        );
        checkBookmarkShape(events[events.length - 1]!, 'Lease', 'coordination.orch.io/v1', ['annotations']);
      });
    },
    // the watch-list BOOKMARK is certain only with the gate on
    { needs: { featureGates: { WatchList: true } } },
  );
});
