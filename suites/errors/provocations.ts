// How each row of cases.yaml makes the server refuse a request: `prepare` builds what the
// request needs (it may write), `send` makes the refused request (it must change nothing).
// Every object they make or send carries the RUN label: what a refused write would leave
// behind carries it too, and objects of other writers (a live cluster's root-CA ConfigMap in
// the namespace) do not.
import { checkStatus } from '../../harness/src/assert.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { configMap, paths, uniqueName } from '../../harness/src/fixtures.ts';

export interface Provocation {
  prepare?(client: Client, ns: string): Promise<unknown>;
  send(client: Client, ns: string, prepared: unknown): Promise<Response>;
}

/** The label on every object of the provocations (`labelSelector: run=<RUN.run>` finds them). */
export const RUN = { run: uniqueName('errors') };

/** A token no authenticator can accept (well-formed, so it reaches authentication). */
export const INVALID_TOKEN = 'conformance-invalid.token-0123456789abcdef';

async function existing(client: Client, ns: string, data: Record<string, string> = { v: '1' }): Promise<any> {
  const name = uniqueName('cm');
  const r = await client.post(paths.configmaps(ns), configMap(name, data, RUN));
  checkStatus(r, 201, undefined, `setup: create ConfigMap ${name}`);
  return r.json;
}

export const PROVOCATIONS: Record<string, Provocation> = {
  'get-missing': { send: (c, ns) => c.get(paths.configmap(ns, uniqueName('missing'))) },
  'delete-missing': { send: (c, ns) => c.delete(paths.configmap(ns, uniqueName('missing'))) },
  'namespace-missing': {
    send: (c) => c.post(paths.configmaps(uniqueName('no-such-ns')), configMap(uniqueName('cm'), {}, RUN)),
  },
  'unknown-type': { send: (c, ns) => c.get(`/api/v1/namespaces/${ns}/nosuchthings`) },
  'stale-put': {
    prepare: async (c, ns) => {
      const read = await existing(c, ns);
      const path = paths.configmap(ns, read.metadata.name);
      checkStatus(
        await c.put(path, { ...read, data: { v: 'newer' } }),
        200,
        undefined,
        'setup: a newer write',
      );
      return read;
    },
    send: (c, ns, read: any) =>
      c.put(paths.configmap(ns, read.metadata.name), { ...read, data: { v: 'lost' } }),
  },
  'duplicate-create': {
    prepare: (c, ns) => existing(c, ns, { who: 'first' }),
    send: (c, ns, first: any) =>
      c.post(paths.configmaps(ns), configMap(first.metadata.name, { who: 'second' }, RUN)),
  },
  'invalid-name': { send: (c, ns) => c.post(paths.configmaps(ns), configMap('Not_A_Valid.Name', {}, RUN)) },
  'missing-name': {
    send: (c, ns) =>
      c.post(paths.configmaps(ns), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { labels: RUN },
        data: { a: 'b' },
      }),
  },
  'malformed-json': {
    send: (c, ns) =>
      c.post(
        paths.configmaps(ns),
        `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${uniqueName('cm')}","labels":${JSON.stringify(RUN)}},`,
      ),
  },
  'put-on-collection': {
    send: (c, ns) =>
      c.put(paths.configmaps(ns), configMap(uniqueName('cm'), { via: 'put-on-collection' }, RUN)),
  },
  'post-on-resource': {
    send: (c, ns) => {
      const name = uniqueName('cm');
      return c.post(paths.configmap(ns, name), configMap(name, { via: 'post-on-resource' }, RUN));
    },
  },
  'invalid-token': {
    send: (c, ns) =>
      c.post(paths.configmaps(ns), configMap(uniqueName('cm'), {}, RUN), { token: INVALID_TOKEN }),
  },
};
