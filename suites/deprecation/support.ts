// What the deprecation cases share: the spec places they quote, discovery read as the set of
// (group, version, resource) a target serves, the paths of a resource at a version, the
// Warning header's deprecation entries, the gauge apiserver_requested_deprecated_apis read
// from `/metrics`, and the sample objects written with fresh names.

import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { makeCsr } from '../../harness/src/auth/pki.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import { parsePrometheusText, type Sample } from '../../harness/src/prometheus-text.ts';
import { type WarningEntry, warnings } from '../field-validation/support.ts';
import { fill, gvOf, loadSamples } from './row-files.ts';

export const SECTION_POLICY = 'Deprecation policy';
export const SECTION_RETIRED = 'Retired API versions and replacements';
export const DEPRECATED_ENDPOINT =
  'Requests to a deprecated endpoint (from API version 1.19): the response has a `Warning` header (RFC 7234 section 5.5); the audit event gets the annotation `orch.io/deprecated` with value `true`; a gauge `apiserver_requested_deprecated_apis` is set to 1 with labels `group`, `version`, `resource`, `subresource` and `removed_release`';
export const DEPRECATED_ENDPOINT_RULE = 'doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1';
export const ROUND_TRIP =
  '2 | Objects round-trip between versions in a release without loss (a new field in a later version needs an equivalent, or an annotation, in the earlier one)';
export const REACHABLE = 'All persisted objects stay reachable through the new version in every row';
export const REACHABLE_RULE =
  'doc2/retired-api-versions-replacements/all-persisted-objects-stay-reachable-through';
export const GAUGE = 'apiserver_requested_deprecated_apis';

export interface ServedResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** The group-version document's path. */
export const gvPath = (gv: string) => (gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`);

/** A resource's collection at a version (namespaced: in `ns`). */
export function collectionPath(gv: string, resource: string, namespaced: boolean, ns?: string): string {
  return `${gvPath(gv)}${namespaced ? `/namespaces/${ns ?? 'default'}` : ''}/${resource}`;
}

/** The versions each group serves (`/apis`, and `v1` of the core group when `/api` lists it). */
export async function servedGroups(c: Client): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const core = await c.get('/api');
  if (core.status === 200 && Array.isArray(core.json?.versions)) out.set('', core.json.versions);
  const r = await c.get('/apis');
  checkStatus(r, 200, undefined, 'GET /apis');
  for (const g of r.json?.groups ?? [])
    out.set(
      g.name,
      (g.versions ?? []).map((v: any) => v.version as string),
    );
  return out;
}

/** The resources of a group version's document; undefined when the target answers 404. */
export async function resourcesAt(c: Client, gv: string): Promise<ServedResource[] | undefined> {
  const r = await c.get(gvPath(gv));
  if (r.status === 404) return undefined;
  checkStatus(r, 200, undefined, `GET ${gvPath(gv)}`);
  return r.json?.resources ?? [];
}

/** Every (group version, resource) discovery lists (subresources left out). */
export async function discovered(
  c: Client,
): Promise<{ group: string; version: string; gv: string; r: ServedResource }[]> {
  const out: { group: string; version: string; gv: string; r: ServedResource }[] = [];
  for (const [group, versions] of await servedGroups(c))
    for (const version of versions) {
      const gv = gvOf(group, version);
      for (const r of (await resourcesAt(c, gv)) ?? [])
        if (!r.name.includes('/')) out.push({ group, version, gv, r });
    }
  return out;
}

/** The versions of `group` whose documents list `resource`. */
export async function versionsServing(c: Client, group: string, resource: string): Promise<string[]> {
  const versions = (await servedGroups(c)).get(group) ?? [];
  const out: string[] = [];
  for (const v of versions)
    if (((await resourcesAt(c, gvOf(group, v))) ?? []).some((x) => x.name === resource)) out.push(v);
  return out;
}

/** The Warning entries of an answer that say a version is deprecated. */
export function deprecationWarnings(r: Response): WarningEntry[] {
  return warnings(r).filter((w) => / is deprecated/.test(w.text));
}

/** Checks the answer has exactly one 299 Warning with this text (spec words). */
export function checkDeprecationWarning(c: Client, r: Response, text: string, why: string): void {
  const ws = warnings(r);
  const hit = ws.filter((w) => w.code === 299 && c.d.back(w.text) === text);
  check(
    hit.length === 1,
    `one Warning: 299 - "${text}"`,
    ws.length
      ? ws.map((w) => `${w.code} ${w.agent} "${c.d.back(w.text)}"`).join(' | ')
      : '(no Warning header)',
    why,
  );
}

/** The samples of the deprecated-API gauge (label values in the spec's words). */
export async function deprecatedGauge(c: Client): Promise<Sample[]> {
  const r = await c.get('/metrics', { accept: 'text/plain' });
  checkStatus(r, 200, undefined, 'GET /metrics (the gauge is read from it)');
  // only the gauge's lines are parsed, not the whole page (every histogram of the server)
  const lines = r.text.split('\n').filter((l) => l.startsWith(GAUGE));
  return parsePrometheusText(lines.join('\n'))
    .samples.filter((s) => s.name === GAUGE)
    .map((s) => ({
      ...s,
      labels: Object.fromEntries(Object.entries(s.labels).map(([k, v]) => [k, c.d.back(v)])),
    }));
}

/** Checks the gauge has the sample of (group, version, resource) with these labels, set to 1. */
export async function checkGauge(
  c: Client,
  want: { group: string; version: string; resource: string; subresource?: string; removed_release: string },
  why: string,
): Promise<void> {
  const samples = await deprecatedGauge(c);
  const ours = samples.filter(
    (s) =>
      s.labels.group === want.group &&
      s.labels.version === want.version &&
      s.labels.resource === want.resource,
  );
  const expected = { ...want, subresource: want.subresource ?? '' };
  const showSample = (s: Sample) => `${s.name}${show(s.labels)} ${s.value}`;
  check(
    ours.some(
      (s) =>
        s.value === 1 &&
        Object.entries(expected).every(([k, v]) => s.labels[k] === v) &&
        Object.keys(s.labels).length === 5,
    ),
    `${GAUGE}${show(expected)} 1 (labels group, version, resource, subresource, removed_release)`,
    ours.length
      ? ours.map(showSample).join(' | ')
      : `no sample of ${want.group}/${want.version} ${want.resource} (${samples.length} samples of ${GAUGE})`,
    why,
  );
}

let samples: Record<string, Record<string, unknown>> | undefined;

/** The sample object of `<group>/<resource>` with fresh names (and a fresh certificate request). */
export async function sampleObject(key: string, ns: string, name = uniqueName('dep')): Promise<any> {
  samples ??= loadSamples();
  const s = samples[key];
  if (!s) throw new Error(`no sample object ${key} in suites/deprecation/objects.yaml`);
  const vars: Record<string, string> = { name, ns };
  if (JSON.stringify(s).includes('{csr}'))
    vars.csr = Buffer.from((await makeCsr(name)).csr).toString('base64');
  return fill(s, vars);
}

/** The group version an object names (apiVersion), and its collection and object paths. */
export function pathsOf(obj: any, ns: string, gv: string = obj.apiVersion, resource?: string) {
  const plural = resource ?? '';
  const namespaced = !!obj.metadata?.namespace;
  const coll = collectionPath(gv, plural, namespaced, ns);
  return { coll, one: `${coll}/${obj.metadata?.name ?? ''}` };
}
