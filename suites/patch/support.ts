// What the patch cases share: the PATCH media types of doc1's table, a ConfigMap created for a
// case, and a read-back that says what is stored now.
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';
import { configMap, paths, uniqueName } from '../../harness/src/fixtures.ts';

export const MEDIA = {
  apply: 'application/apply-patch+yaml',
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

export const SECTION_OPS = 'Operations';
export const SECTION_UPDATES = 'Update mechanisms';

export const ROW = {
  json: '`application/json-patch+json` | JSON Patch (RFC 6902): a sequence of operations; may include test conditions to fail on a lost update',
  merge:
    '`application/merge-patch+json` | JSON Merge Patch (RFC 7386): a partial representation merged into the current object',
  strategic:
    '`application/strategic-merge-patch+json` | Strategic Merge Patch; only for built-in APIs or aggregated servers with support; not for custom-definition APIs',
  apply:
    '`application/apply-patch+yaml` | Server-side apply; create if the object is absent, patch otherwise; JSON is valid YAML',
};

export interface Made {
  name: string;
  path: string;
  rv: string;
  uid: string;
}

export interface CmInit {
  data?: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Creates a ConfigMap for the case (setup: must answer 201). */
export async function makeConfigMap(
  client: Client,
  ns: string,
  init: CmInit = {},
  prefix = 'cm',
): Promise<Made> {
  const name = uniqueName(prefix);
  const body = configMap(name, init.data ?? {}, init.labels);
  if (init.annotations) (body.metadata as Record<string, unknown>).annotations = init.annotations;
  const r = await client.post(paths.configmaps(ns), body);
  checkStatus(r, 201, undefined, `setup: create ConfigMap ${name}`);
  return {
    name,
    path: paths.configmap(ns, name),
    rv: r.json.metadata.resourceVersion,
    uid: r.json.metadata.uid,
  };
}

/** GET that must answer 200; returns the object. */
export async function readBack(
  client: Client,
  path: string,
  why = 'the object can be read back',
): Promise<any> {
  const r = await client.get(path);
  checkStatus(r, 200, undefined, why);
  return r.json;
}

/** A string map as stored: an absent map and an empty one are the same (both carry nothing). */
export const strMap = (m: unknown): Record<string, string> =>
  m && typeof m === 'object' ? { ...(m as Record<string, string>) } : {};

/** The object was not changed: same data and same resourceVersion as before. */
export async function checkUnchanged(
  client: Client,
  path: string,
  before: { data: Record<string, string>; rv: string },
  why: string,
): Promise<void> {
  const now = await readBack(client, path);
  const got = { data: strMap(now.data), resourceVersion: now.metadata?.resourceVersion };
  const want = { data: before.data, resourceVersion: before.rv };
  check(sameJson(got, want), show(want), show(got), why);
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** JSON values compared with sorted keys. */
export const sameJson = (a: unknown, b: unknown) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
export const showSorted = (v: unknown) => JSON.stringify(sorted(v));
