// doc2 § Retired API versions and replacements, one case family per row of
// rows/retired-versions.yaml (a new row is a new case): the retired version is not served (404
// for its paths, absent from discovery and from /openapi/v3) — or, for a release after 1.28,
// still served and deprecated —, the replacement is served, and an object written through the
// replacement is reachable through every version of its group that serves the resource.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import {
  groupOf,
  gvOf,
  loadRetiredRows,
  type RetiredRow,
  sampleKey,
  servedReplacement,
  stillServed,
  TARGET_RELEASE,
} from './row-files.ts';
import {
  collectionPath,
  deprecationWarnings,
  gvPath,
  REACHABLE,
  REACHABLE_RULE,
  resourcesAt,
  SECTION_RETIRED,
  sampleObject,
  servedGroups,
  versionsServing,
} from './support.ts';

const rows = loadRetiredRows();

/** The row as the table writes it. */
function placeOf(r: RetiredRow): string {
  const rep = r.replacement.groupVersion
    ? `\`${r.replacement.groupVersion}\` (${r.replacement.since})${r.replacement.retired ? `, itself removed in ${r.replacement.retired}` : ''}`
    : r.replacement.note;
  return `${r.release}${stillServed(r) ? ' (announced)' : ''} | ${r.kind} | \`${gvOf(r.group, r.version)}\` | ${rep}`;
}

const def = (r: RetiredRow, topic: string, title: string, place = placeOf(r), also: string[] = []) => ({
  id: `deprecation/retired/${topic}/${r.id}`,
  title,
  doc: 2 as const,
  section: SECTION_RETIRED,
  place,
  specRules: [...r.specRules, ...also],
  level: 'MUST' as const,
});

/** The retired version answers 404 for its paths and is in no discovery or OpenAPI document. */
async function checkNotServed(c: Client, r: RetiredRow): Promise<void> {
  const gv = gvOf(r.group, r.version);
  const why = `${gv} ${r.kind} is no longer served from ${r.release}`;
  const coll = collectionPath(gv, r.resource, r.namespaced);
  checkStatus(await c.get(coll), 404, undefined, `${why}: GET ${coll}`);
  checkStatus(await c.get(`${coll}/some-name`), 404, undefined, `${why}: GET of an object`);
  checkStatus(
    await c.post(coll, { apiVersion: gv, kind: r.kind, metadata: { name: 'retired' } }),
    404,
    undefined,
    `${why}: POST ${coll}`,
  );
  // the group version may still serve other resources: then only this one is gone from it
  const resources = await resourcesAt(c, gv);
  if (resources) {
    check(
      !resources.some((x) => x.name === r.resource),
      `${gvPath(gv)} without ${r.resource}`,
      show(resources.map((x) => x.name)),
      why,
    );
    check(
      resources.length > 0,
      `${gvPath(gv)} answers 404 when it serves nothing`,
      'an empty resource list',
      why,
    );
  } else {
    const groups = await servedGroups(c);
    check(
      !(groups.get(r.group) ?? []).includes(r.version),
      `/apis without ${gv} (its document answers 404)`,
      show(groups.get(r.group)),
      why,
    );
    const g = await c.get(`/apis/${r.group}`);
    if (g.status !== 404) {
      checkStatus(g, 200, undefined, `GET /apis/${r.group}`);
      const versions = (g.json?.versions ?? []).map((v: any) => v.groupVersion);
      check(!versions.includes(gv), `/apis/${r.group} without ${gv}`, show(versions), why);
    }
    const o = await c.get('/openapi/v3');
    checkStatus(o, 200, undefined, 'GET /openapi/v3');
    const listed = Object.keys(o.json?.paths ?? {});
    check(
      !listed.includes(`apis/${gv}`),
      `/openapi/v3 without apis/${gv}`,
      show(listed.filter((p) => p.startsWith(`apis/${r.group}`))),
      why,
    );
    checkStatus(await c.get(`/openapi/v3/apis/${gv}`), 404, undefined, `${why}: GET /openapi/v3/apis/${gv}`);
  }
}

/** A version announced for removal after 1.28 is still served, and says it is deprecated. */
async function checkServedDeprecated(c: Client, r: RetiredRow): Promise<void> {
  const gv = gvOf(r.group, r.version);
  const why = `${gv} ${r.kind} is served until ${r.release} (announced), deprecated`;
  const resources = await resourcesAt(c, gv);
  check(
    !!resources?.some((x) => x.name === r.resource),
    `${gvPath(gv)} lists ${r.resource}`,
    show(resources?.map((x) => x.name) ?? '404'),
    why,
  );
  const res = await c.get(collectionPath(gv, r.resource, r.namespaced));
  checkStatus(res, 200, undefined, why);
  const ws = deprecationWarnings(res).map((w) => c.d.back(w.text));
  const rep = servedReplacement(r);
  check(
    ws.some(
      (w) =>
        w.startsWith(`${gv} ${r.kind} is deprecated`) &&
        w.includes(`unavailable in v${r.release}+`) &&
        (!rep || w.includes(`use ${rep}`)),
    ),
    `a Warning "${gv} ${r.kind} is deprecated in ..., unavailable in v${r.release}+${rep ? `; use ${rep} ${r.kind}` : ''}"`,
    show(ws),
    why,
  );
}

/** The replacement's group lists it, and its document lists the resource with the row's kind and scope. */
async function checkReplacementServed(c: Client, r: RetiredRow, rep: string): Promise<void> {
  const why = `${rep} replaces ${gvOf(r.group, r.version)} for ${r.kind}`;
  const groups = await servedGroups(c);
  const group = groupOf(rep);
  check(
    (groups.get(group) ?? []).includes(rep.slice(rep.indexOf('/') + 1)),
    `discovery lists ${rep}`,
    show(groups.get(group) ?? 'the group is not served'),
    why,
  );
  const resources = await resourcesAt(c, rep);
  const entry = resources?.find((x) => x.name === r.resource);
  check(!!entry, `${gvPath(rep)} lists ${r.resource}`, show(resources?.map((x) => x.name) ?? '404'), why);
  checkEqual(entry!.kind, r.kind, `${why}: the kind of ${r.resource}`);
  checkEqual(entry!.namespaced, r.namespaced, `${why}: whether ${r.resource} is namespaced`);
}

/** An object written through the replacement is read through every version of its group that serves the resource. */
async function checkReachable(c: Client, r: RetiredRow, rep: string, ns: string): Promise<void> {
  const group = groupOf(rep);
  const obj = await sampleObject(sampleKey(group, r.resource), ns);
  const coll = collectionPath(rep, r.resource, r.namespaced, ns);
  const created = await c.post(coll, obj);
  checkStatus(created, 201, undefined, `the sample ${r.kind} is written through ${rep}`);
  const name = created.json.metadata.name;
  try {
    const versions = await versionsServing(c, group, r.resource);
    check(versions.length > 0, `${group || 'core'} serves ${r.resource}`, show(versions));
    for (const v of versions) {
      const gv = gvOf(group, v);
      const got = await c.get(`${collectionPath(gv, r.resource, r.namespaced, ns)}/${name}`);
      checkStatus(
        got,
        200,
        undefined,
        `${REACHABLE}: the ${r.kind} written through ${rep} is read through ${gv}`,
      );
      checkEqual(got.json?.apiVersion, gv, `the object read through ${gv} names it`);
      checkEqual(got.json?.kind, r.kind, `the kind read through ${gv}`);
      checkEqual(
        got.json?.metadata?.uid,
        created.json.metadata.uid,
        `the object read through ${gv} is the one written`,
      );
    }
  } finally {
    await c.delete(`${coll}/${name}`).catch(() => undefined);
  }
}

describe('deprecation: retired versions', () => {
  const ns = useNamespace('deprecation-retired');
  for (const r of rows) {
    const gv = gvOf(r.group, r.version);
    if (stillServed(r))
      conformance(
        def(
          r,
          'served-deprecated',
          `${gv} ${r.kind} is still served in ${TARGET_RELEASE} (removal announced for ${r.release}) and says it is deprecated`,
        ),
        ({ client }) => checkServedDeprecated(client, r),
      );
    else
      conformance(
        def(
          r,
          'not-served',
          `${gv} ${r.kind} is not served: 404 for its paths, absent from discovery and from /openapi/v3`,
        ),
        ({ client }) => checkNotServed(client, r),
      );
    const rep = servedReplacement(r);
    if (!rep) continue;
    conformance(
      def(r, 'replacement-served', `${rep} serves ${r.kind} (${r.resource}) in place of ${gv}`),
      ({ client }) => checkReplacementServed(client, r, rep),
    );
    if (r.stored === false) continue;
    conformance(
      def(
        r,
        'reachable',
        `a ${r.kind} written through ${rep} is read through every version of its group that serves ${r.resource}`,
        `${placeOf(r)}; ${REACHABLE}`,
        [REACHABLE_RULE],
      ),
      ({ client }) => checkReachable(client, r, rep, ns.name),
    );
  }
});
