// doc2 § Deprecation policy, "Requests to a deprecated endpoint": for every built-in version a
// 1.28 server serves deprecated (rows/deprecated-versions.yaml), a request answers a 299
// Warning in Kubernetes' wording, sets the gauge apiserver_requested_deprecated_apis with its
// labels (read from /metrics), and, where the target's audit log is readable, marks the audit
// event; and, over everything discovery lists, no version that is not deprecated says it is,
// and the gauge names only deprecated versions.
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { auditOffset, waitAuditEvent } from '../../harness/src/admission/audit-log.ts';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { type DeprecatedRow, gvOf, kubernetesWarning, loadDeprecatedRows } from './row-files.ts';
import {
  checkDeprecationWarning,
  checkGauge,
  collectionPath,
  DEPRECATED_ENDPOINT,
  deprecatedGauge,
  deprecationWarnings,
  discovered,
  DEPRECATED_ENDPOINT_RULE,
  GAUGE,
  SECTION_POLICY,
} from './support.ts';

const rows = loadDeprecatedRows();

const def = (r: DeprecatedRow, topic: string, title: string, place: string) => ({
  id: `deprecation/${topic}/${r.id}`,
  title,
  doc: 2 as const,
  section: SECTION_POLICY,
  place: `${DEPRECATED_ENDPOINT} — ${place}: ${r.place}`,
  specRules: [DEPRECATED_ENDPOINT_RULE, ...(r.specRules ?? [])],
  level: r.level,
});

/** Lists the deprecated resource (a 200 is required: the version is served). */
async function listDeprecated(c: Client, r: DeprecatedRow, query: Record<string, string> = {}) {
  const path = collectionPath(gvOf(r.group, r.version), r.resource, false);
  const res = await c.get(path, { query: { limit: '1', ...query } });
  checkStatus(
    res,
    200,
    undefined,
    `${gvOf(r.group, r.version)} ${r.resource} is served (deprecated) in 1.28`,
  );
  return res;
}

/** Whether a custom definition marks this version of its resource deprecated. */
async function customDeprecated(
  c: Client,
  group: string,
  version: string,
  resource: string,
): Promise<boolean | undefined> {
  const r = await c.get(`/apis/apiextensions.orch.io/v1/customresourcedefinitions/${resource}.${group}`);
  if (r.status !== 200) return undefined;
  return !!(r.json?.spec?.versions ?? []).find((v: any) => v.name === version)?.deprecated;
}

describe('deprecation: built-in deprecated versions', () => {
  for (const r of rows) {
    const gv = gvOf(r.group, r.version);
    conformance(
      def(
        r,
        'warning',
        `a request to ${gv} ${r.resource} answers a 299 Warning "${kubernetesWarning(r)}"`,
        'the `Warning` header',
      ),
      async ({ client: c }) => {
        checkDeprecationWarning(
          c,
          await listDeprecated(c, r),
          kubernetesWarning(r),
          `GET of the ${gv} ${r.resource} list`,
        );
        if (r.replacement) {
          const res = await c.get(collectionPath(r.replacement, r.resource, false), {
            query: { limit: '1' },
          });
          checkStatus(res, 200, undefined, `${r.replacement} serves ${r.resource}`);
          check(
            deprecationWarnings(res).length === 0,
            `no deprecation Warning from ${r.replacement}, which is not deprecated`,
            show(deprecationWarnings(res)),
          );
        }
      },
    );
    conformance(
      def(
        r,
        'metric',
        `after a request to ${gv} ${r.resource}, /metrics has ${GAUGE}{group="${r.group}",version="${r.version}",resource="${r.resource}",subresource="",removed_release="${r.removedIn ?? ''}"} 1`,
        'the gauge',
      ),
      async ({ client: c }) => {
        await listDeprecated(c, r);
        await checkGauge(
          c,
          { group: r.group, version: r.version, resource: r.resource, removed_release: r.removedIn ?? '' },
          `a request to ${gv} ${r.resource} was made`,
        );
      },
      // the gauge is the server's own: the request and the scrape go to the same one
      { oneServer: true },
    );
    conformance(
      def(
        r,
        'audit',
        `the audit event of a request to ${gv} ${r.resource} has orch.io/deprecated "true"${r.removedIn ? ` and orch.io/removed-release "${r.removedIn}"` : ' and no orch.io/removed-release'}`,
        'the audit annotation (the removed-release annotation: not shown; Kubernetes 1.28 adds it when the removal release is known)',
      ),
      async ({ client: c, target }) => {
        const log = target.declared.auditLog!;
        const from = auditOffset(log);
        const mark = `audit-${randomBytes(4).toString('hex')}`;
        await listDeprecated(c, r, { labelSelector: mark });
        const e = await waitAuditEvent(
          log,
          from,
          (x) =>
            x?.stage === 'ResponseComplete' &&
            typeof x.requestURI === 'string' &&
            x.requestURI.includes(mark),
          { dialect: c.d },
        );
        check(!!e, `an audit event (ResponseComplete) of the request in ${log}`, 'none within 5 s');
        const ann = e.annotations ?? {};
        check(ann['orch.io/deprecated'] === 'true', 'annotation orch.io/deprecated: "true"', show(ann));
        if (r.removedIn)
          check(
            ann['orch.io/removed-release'] === r.removedIn,
            `annotation orch.io/removed-release: "${r.removedIn}"`,
            show(ann),
          );
        else
          check(
            !('orch.io/removed-release' in ann),
            'no orch.io/removed-release annotation (no removal announced)',
            show(ann),
          );
      },
      { needs: { auditLog: true } },
    );
  }

  conformance(
    {
      id: 'deprecation/warning/only-deprecated-versions',
      title:
        'over every resource discovery lists, a list answers a deprecation Warning only at a deprecated version (a built-in one of the rows, or a custom definition version marked deprecated)',
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (requests to versions that are not deprecated carry no such header)`,
      specRules: ['doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      const known = new Set(rows.map((r) => `${gvOf(r.group, r.version)}/${r.resource}`));
      const wrong: string[] = [];
      for (const { group, version, gv, r } of await discovered(c)) {
        if (!r.verbs.includes('list')) continue;
        const res = await c.get(collectionPath(gv, r.name, false), { query: { limit: '1' } });
        const ws = deprecationWarnings(res);
        if (!ws.length || known.has(`${gv}/${r.name}`)) continue;
        if (await customDeprecated(c, group, version, r.name)) continue;
        wrong.push(`${gv}/${r.name}: ${ws.map((w) => c.d.back(w.text)).join(' | ')}`);
      }
      check(wrong.length === 0, 'no deprecation Warning from versions that are not deprecated', show(wrong));
    },
    { timeout: 120_000 },
  );

  conformance(
    {
      id: 'deprecation/metric/only-deprecated-versions',
      title: `every sample of ${GAUGE} names a version that is deprecated (or no longer served)`,
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (the gauge is set for requests to a deprecated endpoint)`,
      specRules: ['doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      // a request to a version that is not deprecated first, so a gauge set for every request shows
      const first = rows.find((r) => r.replacement);
      if (first)
        await c.get(collectionPath(first.replacement!, first.resource, false), { query: { limit: '1' } });
      await c.get('/api/v1/namespaces', { query: { limit: '1' } });
      const wrong: string[] = [];
      for (const s of await deprecatedGauge(c)) {
        const { group = '', version = '', resource = '' } = s.labels;
        const gv = gvOf(group, version);
        const res = await c.get(collectionPath(gv, resource, false), { query: { limit: '1' } });
        if (res.status === 404) continue; // a custom definition deleted since
        if (deprecationWarnings(res).length > 0) continue;
        // a live cluster's custom definitions come and go as other cases run: the version counts
        // as deprecated while its definition says so, and as gone once the definition is gone
        const custom = await customDeprecated(c, group, version, resource);
        if (custom === true) continue;
        if (
          custom === undefined &&
          (await c.get(collectionPath(gv, resource, false), { query: { limit: '1' } })).status === 404
        )
          continue;
        wrong.push(
          `${show(s.labels)} ${s.value} (GET of the list answered ${res.status} without a deprecation Warning)`,
        );
      }
      check(wrong.length === 0, `no ${GAUGE} sample of a version that is not deprecated`, show(wrong));
    },
    { timeout: 60_000 },
  );
});
