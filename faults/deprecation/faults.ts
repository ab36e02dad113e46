// Faults against doc2 § Versioning (deprecation policy and the retired-versions table); the
// suites/deprecation cases must catch each: the Warning of a deprecated version dropped or
// altered, the gauge apiserver_requested_deprecated_apis missing or mislabelled, a retired
// version listed by discovery or answering at its paths, the deprecation annotations missing
// from the audit events, an object losing what it holds on a round trip through an older
// version.
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { mapJson } from '../util.ts';

const GAUGE = 'apiserver_requested_deprecated_apis';
/** The group whose retired v1beta1 the faults serve again (its rows: ClusterRole, ClusterRoleBinding, Role, RoleBinding). */
const RBAC = 'rbac.authorization.orch.io';
/** A path of a built-in group (the suite's custom definitions are in example.com groups). */
const builtIn = (path: string) =>
  (path.startsWith('/api/') || path.startsWith('/apis/')) && !/^\/apis\/[^/]+\.example\.com(\/|$)/.test(path);
/** A path of one object (not a collection, not a subresource). */
const OBJECT_PATH = /^\/(api|apis\/[^/]+)\/[^/]+\/(namespaces\/[^/]+\/)?[^/]+\/[^/]+$/;
/** A path at an alpha or beta version. */
const PRE_RELEASE = /^\/apis\/[^/]+\/v\d+(alpha|beta)\d+(\/|$)/;

/** The request body as JSON (undefined when it is not). */
function sent(r: ProxiedRequest): any {
  try {
    return JSON.parse(r.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Removes from `answer` every field `request` does not have (what the server added: defaults, status). */
function onlySent(answer: any, request: any): void {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return;
  for (const k of Object.keys(answer)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
    if (!request || typeof request !== 'object' || !(k in request)) delete answer[k];
    else if (Array.isArray(answer[k]) && Array.isArray(request[k]))
      answer[k].forEach((x: unknown, i: number) => {
        onlySent(x, request[k][i]);
      });
    else onlySent(answer[k], request[k]);
  }
}

/** Each Warning entry of an answer (`<code> <agent> "<text>"`, several to a line), rewritten or dropped (null). */
function mapWarnings(res: ProxiedResponse, f: (text: string) => string | null): ProxiedResponse {
  const raw = res.headers.warning;
  if (raw === undefined) return res;
  const entries: string[] = [];
  for (const line of Array.isArray(raw) ? raw : [raw])
    for (const m of line.matchAll(/(\d{3}) (\S+) "((?:[^"\\]|\\.)*)"/g)) {
      const text = f(m[3]!);
      if (text !== null) entries.push(`${m[1]} ${m[2]} "${text}"`);
    }
  const headers = { ...res.headers };
  delete headers.warning;
  return entries.length ? { ...res, headers: { ...headers, warning: entries } } : { ...res, headers };
}

const isDeprecation = (text: string) => / is deprecated/.test(text);

/** A `/metrics` answer with each line of the gauge rewritten (or dropped: null). */
function mapGaugeLines(
  r: ProxiedRequest,
  res: ProxiedResponse,
  f: (line: string) => string | null,
): ProxiedResponse {
  if (r.url.pathname !== '/metrics' || res.status !== 200) return res;
  const lines = res.body
    .toString('utf8')
    .split('\n')
    .flatMap((l) => (l.startsWith(GAUGE) ? (f(l) ?? []) : [l]));
  return { ...res, body: Buffer.from(lines.join('\n')) };
}

const RETIRED_PATH = new RegExp(`^/apis/${RBAC.replace(/\./g, '\\.')}/v1beta1(/|$)`);

export const HOOKS: FaultHooks[] = [
  {
    name: 'deprecation-warning-dropped',
    response: (_r, res) => mapWarnings(res, (t) => (isDeprecation(t) ? null : t)),
  },
  {
    name: 'deprecation-warning-altered',
    response: (_r, res) =>
      mapWarnings(res, (t) =>
        isDeprecation(t)
          ? `${t.replace(/unavailable in v1\.(\d+)\+/, (_, n) => `unavailable in v1.${Number(n) + 1}+`)} soon`
          : t,
      ),
  },
  {
    name: 'deprecation-metric-missing',
    response: (r, res) => mapGaugeLines(r, res, () => null),
  },
  {
    name: 'deprecation-metric-mislabelled',
    response: (r, res) =>
      mapGaugeLines(r, res, (l) =>
        l.replace(/removed_release="([^"]*)"/, (_, v: string) => `removed_release="${v ? '' : '1.29'}"`),
      ),
  },
  {
    name: 'deprecation-retired-version-listed',
    response: (r, res) => {
      if (r.method !== 'GET' || res.status !== 200) return res;
      const add = (g: any) => {
        if (g?.name !== RBAC || !Array.isArray(g.versions)) return;
        if (!g.versions.some((v: any) => v.version === 'v1beta1'))
          g.versions.push({ groupVersion: `${RBAC}/v1beta1`, version: 'v1beta1' });
      };
      if (r.url.pathname === '/apis')
        return mapJson(res, (j) => {
          for (const g of j?.groups ?? []) add(g);
          return j;
        });
      if (r.url.pathname === `/apis/${RBAC}`)
        return mapJson(res, (j) => {
          add(j);
          return j;
        });
      return res;
    },
  },
  {
    name: 'deprecation-retired-version-answers',
    request: (r) =>
      RETIRED_PATH.test(r.url.pathname)
        ? { ...r, url: new URL(`${r.url.pathname.replace('/v1beta1', '/v1')}${r.url.search}`, r.url) }
        : r,
  },
  {
    name: 'deprecation-audit-annotation-missing',
    auditEvent: (e) => {
      if (e?.annotations) {
        delete e.annotations['orch.io/deprecated'];
        delete e.annotations['orch.io/removed-release'];
      }
      return e;
    },
  },
  {
    name: 'deprecation-round-trip-loses-field',
    response: (r, res) => {
      const m = /^\/apis\/([^/]+)\/v\d+(alpha|beta)\d+\/(namespaces\/[^/]+\/)?[^/]+\/[^/]+$/.exec(
        r.url.pathname,
      );
      if (r.method !== 'GET' || res.status !== 200 || !m) return res;
      return mapJson(res, (j) => {
        if (j?.metadata) delete j.metadata.labels;
        if (m[1]!.endsWith('.example.com') && j?.spec && typeof j.spec === 'object') {
          const first = Object.keys(j.spec)[0];
          if (first !== undefined) delete j.spec[first];
        }
        return j;
      });
    },
  },
  {
    name: 'deprecation-retired-paths-answer',
    response: (r, res) =>
      res.status === 404 &&
      PRE_RELEASE.test(r.url.pathname) &&
      !r.url.pathname.startsWith('/apis/apiextensions')
        ? {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: {}, items: [] })),
          }
        : res,
  },
  {
    name: 'deprecation-discovery-scope-flipped',
    response: (r, res) =>
      r.method === 'GET' && /^\/(api\/v1|apis\/[^/]+\/[^/]+)$/.test(r.url.pathname) && builtIn(r.url.pathname)
        ? mapJson(res, (j) => {
            for (const x of j?.resources ?? [])
              if (typeof x?.namespaced === 'boolean') x.namespaced = !x.namespaced;
            return j;
          })
        : res,
  },
  {
    name: 'deprecation-read-another-object',
    response: (r, res) =>
      r.method === 'GET' && res.status === 200 && OBJECT_PATH.test(r.url.pathname) && builtIn(r.url.pathname)
        ? mapJson(res, (j) => {
            if (typeof j?.metadata?.uid === 'string') j.metadata.uid = [...j.metadata.uid].reverse().join('');
            return j;
          })
        : res,
  },
  {
    name: 'deprecation-warning-on-current-version',
    response: (r, res) => {
      const m = /^\/(?:api|apis\/([^/]+))\/v1(\/|$)/.exec(r.url.pathname);
      if (!m || r.url.pathname.startsWith('/api/v1/componentstatuses')) return res;
      const w = `299 - "${m[1] ? `${m[1]}/` : ''}v1 Thing is deprecated in v1.20+"`;
      const had = res.headers.warning;
      return {
        ...res,
        headers: {
          ...res.headers,
          warning: [...(had === undefined ? [] : Array.isArray(had) ? had : [had]), w],
        },
      };
    },
  },
  {
    name: 'deprecation-metric-for-current-version',
    response: (r, res) =>
      r.url.pathname === '/metrics' && res.status === 200
        ? {
            ...res,
            body: Buffer.concat([
              res.body,
              Buffer.from(
                `\n${GAUGE}{group="",removed_release="",resource="namespaces",subresource="",version="v1"} 1\n`,
              ),
            ]),
          }
        : res,
  },
  {
    name: 'deprecation-field-refusal-accepted',
    response: (r, res) => {
      if (res.status !== 422 || (r.method !== 'POST' && r.method !== 'PUT')) return res;
      const body = sent(r) ?? {};
      return {
        status: r.method === 'POST' ? 201 : 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(body)),
      };
    },
  },
  {
    name: 'deprecation-strict-field-validation-ignored',
    request: (r) => {
      if (!r.url.searchParams.has('fieldValidation')) return r;
      const url = new URL(r.url);
      url.searchParams.delete('fieldValidation');
      return { ...r, url };
    },
  },
  {
    name: 'deprecation-defaults-missing',
    response: (r, res) =>
      r.method === 'POST' && res.status === 201 && builtIn(r.url.pathname)
        ? mapJson(res, (j) => {
            onlySent(j, sent(r));
            return j;
          })
        : res,
  },
  {
    name: 'deprecation-renamed-fields-lost',
    response: (r, res) =>
      r.method === 'GET' && OBJECT_PATH.test(r.url.pathname) && builtIn(r.url.pathname)
        ? mapJson(res, (j) => {
            for (const k of [
              'regarding',
              'deprecatedCount',
              'deprecatedSource',
              'deprecatedFirstTimestamp',
              'deprecatedLastTimestamp',
            ])
              delete j?.[k];
            if (j?.spec?.limited) {
              delete j.spec.limited.assuredConcurrencyShares;
              delete j.spec.limited.nominalConcurrencyShares;
            }
            return j;
          })
        : res,
  },
  {
    name: 'deprecation-empty-selector-unset',
    response: (r, res) =>
      /\/poddisruptionbudgets(\/|$)/.test(r.url.pathname)
        ? mapJson(res, (j) => {
            for (const o of Array.isArray(j?.items) ? j.items : [j])
              if (o?.spec?.selector && Object.keys(o.spec.selector).length === 0) delete o.spec.selector;
            return j;
          })
        : res,
  },
  {
    name: 'deprecation-endpoint-topology',
    response: (r, res) => {
      if (!/\/endpointslices(\/|$)/.test(r.url.pathname)) return res;
      const req = sent(r);
      return mapJson(res, (j) => {
        (j?.endpoints ?? []).forEach((e: any, i: number) => {
          delete e.zone;
          const t = req?.endpoints?.[i]?.deprecatedTopology;
          if (t) e.deprecatedTopology = t;
        });
        return j;
      });
    },
  },
];
