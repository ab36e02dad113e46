// Faults against doc3's plugin table: each undoes what one built-in admission plugin does (or
// does what it refuses), so suites/admission's plugin cases must catch every one. The faults of
// off-by-default plugins run against a reference server with them on (PLUGINS_SERVER, as the
// embedded `admission-plugins` server; NamespaceAutoProvision on a server of its own), which the
// meta test declares to the suite (ORCH_ADMISSION_PLUGINS). AlwaysAdmit and AlwaysDeny have no
// fault: a server that refuses everything fails every case, not the plugin's.
import type { FaultHooks, ProxiedRequest, ProxiedResponse, Upstream } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const PODS = /^\/api\/v1\/namespaces\/[^/]+\/pods(\/[^/]+)?$/;
const NODES = /^\/api\/v1\/nodes$/;
const SERVICES = /^\/api\/v1\/namespaces\/[^/]+\/services(\/[^/]+)?$/;
const NAMESPACES = /^\/api\/v1\/namespaces$/;
/** A namespaced collection (group or core), its namespace captured. */
const NAMESPACED = /^\/api(?:s\/[^/]+)?\/v1\/namespaces\/([^/]+)\/[^/]+$/;

const isWrite = (r: ProxiedRequest) => r.method === 'POST' || r.method === 'PUT';

type Obj = Record<string, any>;

/** A write of `re` whose JSON body `f` changes (left alone when it changes nothing). */
function rewriteBody(r: ProxiedRequest, re: RegExp, f: (o: Obj) => boolean): ProxiedRequest {
  if (!isWrite(r) || !re.test(r.url.pathname)) return r;
  const b = bodyOf(r.body);
  if (!b || typeof b !== 'object') return r;
  return f(b) ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
}

/** The answer to a write of `re`, each object in it changed by `f`. */
function rewriteAnswer(
  r: ProxiedRequest,
  res: ProxiedResponse,
  re: RegExp,
  f: (o: Obj) => void,
): ProxiedResponse {
  if (!isWrite(r) || !re.test(r.url.pathname) || res.status >= 300) return res;
  return mapJson(res, (j) => {
    if (j && typeof j === 'object') f(j);
    return j;
  });
}

const tolerations = (o: Obj): Obj[] => (Array.isArray(o.spec?.tolerations) ? o.spec.tolerations : []);
const dropTolerations = (o: Obj, drop: (t: Obj) => boolean) => {
  if (o.spec && Array.isArray(o.spec.tolerations))
    o.spec.tolerations = tolerations(o).filter((t) => !drop(t));
};

/** A request of the same credentials with another method, path and body. */
function sibling(r: ProxiedRequest, method: string, path: string, body?: unknown): ProxiedRequest {
  const headers = { ...r.headers };
  delete headers['content-length'];
  if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    method,
    url: new URL(path, r.url),
    headers,
    body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
  };
}

const namespaceNotFound = (res: ProxiedResponse) => {
  const j = bodyOf(res.body);
  return res.status === 404 && j?.details?.kind === 'namespaces';
};

/**
 * The proxy side of plugin-namespace-not-provisioned: it sees every namespace a client creates
 * (they pass through it), so a namespace that holds a new config map and that no client
 * created is one the server provisioned for that creation: both are undone and the creation
 * answered 404.
 */
function undoProvisionedNamespaces(): Pick<FaultHooks, 'response'> {
  const madeByClients = new Set<string>();
  return {
    response: async (r: ProxiedRequest, res: ProxiedResponse, upstream: Upstream) => {
      if (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces' && res.status === 201) {
        const made = bodyOf(res.body)?.metadata?.name;
        if (typeof made === 'string') madeByClients.add(made);
        return res;
      }
      const m = NAMESPACED.exec(r.url.pathname);
      // config maps only: the suite makes pods and services in namespaces it made just before
      if (r.method !== 'POST' || !m || res.status !== 201 || !r.url.pathname.endsWith('/configmaps'))
        return res;
      if (madeByClients.has(m[1]!)) return res;
      const ns = await upstream.send(sibling(r, 'GET', `/api/v1/namespaces/${m[1]}`));
      const fields: Obj[] = bodyOf(ns.body)?.metadata?.managedFields ?? [];
      // made by the server itself (no manager), not by a client before the proxy started
      if (ns.status !== 200 || fields.some((f) => f?.manager)) return res;
      const name = bodyOf(res.body)?.metadata?.name;
      if (name) await upstream.send(sibling(r, 'DELETE', `${r.url.pathname}/${name}`));
      await upstream.send(sibling(r, 'DELETE', `/api/v1/namespaces/${m[1]}`));
      return failure(404, 'NotFound', `namespaces "${m[1]}" not found`);
    },
  };
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'plugin-default-tolerations-missing',
    response: (r, res) =>
      rewriteAnswer(r, res, PODS, (o) =>
        dropTolerations(
          o,
          (t) =>
            /^node\.(orch|kubernetes)\.io\/(not-ready|unreachable)$/.test(t.key) &&
            t.tolerationSeconds === 300,
        ),
      ),
  },
  {
    name: 'plugin-not-ready-taint-missing',
    response: (r, res) =>
      rewriteAnswer(r, res, NODES, (o) => {
        if (Array.isArray(o.spec?.taints))
          o.spec.taints = o.spec.taints.filter((t: Obj) => !/\/not-ready$/.test(t?.key ?? ''));
      }),
  },
  {
    name: 'plugin-pull-policy-kept',
    response: (r, res) =>
      rewriteAnswer(r, res, PODS, (o) => {
        for (const k of ['initContainers', 'containers'])
          for (const c of Array.isArray(o.spec?.[k]) ? o.spec[k] : [])
            if (c) c.imagePullPolicy = 'IfNotPresent';
      }),
  },
  {
    name: 'plugin-extended-resource-toleration-missing',
    response: (r, res) =>
      rewriteAnswer(r, res, PODS, (o) =>
        dropTolerations(
          o,
          (t) =>
            typeof t.key === 'string' &&
            t.key.includes('/') &&
            !/(^|\.)(orch|kubernetes)\.io\//.test(t.key) &&
            t.operator === 'Exists' &&
            t.effect === 'NoSchedule',
        ),
      ),
  },
  {
    name: 'plugin-anti-affinity-topology-unchecked',
    request: (r) =>
      rewriteBody(r, PODS, (o) => {
        let changed = false;
        for (const term of o.spec?.affinity?.podAntiAffinity
          ?.requiredDuringSchedulingIgnoredDuringExecution ?? [])
          if (term && term.topologyKey !== 'orch.io/hostname') {
            term.topologyKey = 'orch.io/hostname';
            changed = true;
          }
        return changed;
      }),
  },
  {
    name: 'plugin-security-context-accepted',
    request: (r) =>
      rewriteBody(r, PODS, (o) => {
        let changed = false;
        const strip = (sc: Obj | undefined, fields: string[]) => {
          for (const f of fields)
            if (sc && sc[f] !== undefined) {
              delete sc[f];
              changed = true;
            }
        };
        strip(o.spec?.securityContext, ['supplementalGroups', 'seLinuxOptions', 'runAsUser', 'fsGroup']);
        for (const k of ['initContainers', 'containers'])
          for (const c of Array.isArray(o.spec?.[k]) ? o.spec[k] : [])
            strip(c?.securityContext, ['seLinuxOptions', 'runAsUser']);
        return changed;
      }),
  },
  {
    name: 'plugin-node-selector-ignored',
    request: (r) =>
      rewriteBody(r, PODS, (o) => {
        if (!o.spec?.nodeSelector) return false;
        delete o.spec.nodeSelector;
        return true;
      }),
  },
  {
    name: 'plugin-namespace-tolerations-ignored',
    request: (r) =>
      rewriteBody(r, NAMESPACES, (o) => {
        const a = o.metadata?.annotations;
        if (!a) return false;
        let changed = false;
        for (const k of Object.keys(a))
          if (
            /^scheduler\.alpha\.(orch|kubernetes)\.io\/(defaultTolerations|tolerationsWhitelist)$/.test(k)
          ) {
            delete a[k];
            changed = true;
          }
        return changed;
      }),
  },
  {
    name: 'plugin-memory-pressure-toleration-missing',
    response: (r, res) =>
      rewriteAnswer(r, res, PODS, (o) => dropTolerations(o, (t) => /\/memory-pressure$/.test(t.key ?? ''))),
  },
  {
    name: 'plugin-external-ips-accepted',
    request: (r) =>
      rewriteBody(r, SERVICES, (o) => {
        if (!o.spec?.externalIPs) return false;
        delete o.spec.externalIPs;
        return true;
      }),
  },
  {
    name: 'plugin-missing-namespace-accepted',
    response: async (r: ProxiedRequest, res: ProxiedResponse, upstream: Upstream) => {
      const m = NAMESPACED.exec(r.url.pathname);
      if (r.method !== 'POST' || !m || !namespaceNotFound(res)) return res;
      await upstream.send(
        sibling(r, 'POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: m[1] },
        }),
      );
      return upstream.send(r);
    },
  },
  {
    name: 'plugin-namespace-not-provisioned',
    ...undoProvisionedNamespaces(),
  },
  {
    name: 'plugin-service-account-not-automated',
    request: (r) =>
      rewriteBody(r, PODS, (o) => {
        if (r.method !== 'POST' || !o.spec?.serviceAccountName) return false;
        delete o.spec.serviceAccountName;
        return true;
      }),
    response: (r, res) =>
      rewriteAnswer(r, res, PODS, (o) => {
        const gone = new Set<string>();
        if (Array.isArray(o.spec?.volumes))
          o.spec.volumes = o.spec.volumes.filter((v: Obj) => {
            const token = /^(orch|kube)-api-access-/.test(v?.name ?? '');
            if (token) gone.add(v.name);
            return !token;
          });
        for (const k of ['initContainers', 'containers'])
          for (const c of Array.isArray(o.spec?.[k]) ? o.spec[k] : [])
            if (Array.isArray(c?.volumeMounts))
              c.volumeMounts = c.volumeMounts.filter((vm: Obj) => !gone.has(vm?.name));
      }),
  },
];
