// Faults against doc3's plugin table rows EventRateLimit and ImagePolicyWebhook (and the
// ImagePolicyWebhook configuration block); each names the suites/admission cases that must catch
// it. They run against a server with the plugin on and the harness's configuration
// (harness/src/admission/: the buckets, and the ImageReview backend whose verdict follows the
// image name).
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const EVENTS = /^\/api\/v1\/namespaces\/([^/]+)\/events\/?$/;
const PODS = /^\/api\/v1\/namespaces\/[^/]+\/pods\/?$/;

const isEventCreate = (r: ProxiedRequest) => r.method === 'POST' && EVENTS.test(r.url.pathname);

/** A 201 that echoes the object the client sent (what a server that admitted the write answers, near enough). */
function admitted(r: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
  const o = bodyOf(r.body) ?? {};
  o.metadata = {
    ...(o.metadata ?? {}),
    uid: '00000000-0000-4000-8000-00000000fa17',
    resourceVersion: '1',
    creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  return {
    status: 201,
    headers: { ...res.headers, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(o)),
  };
}

/** Namespaces whose events were refused once (the not-refilled fault keeps refusing them). */
const emptied = new Set<string>();

export const HOOKS: FaultHooks[] = [
  {
    name: 'event-rate-limit-never-refuses',
    response: (r, res) => (isEventCreate(r) && res.status === 429 ? admitted(r, res) : res),
  },
  {
    name: 'event-rate-limit-never-refills',
    response: (r, res) => {
      if (!isEventCreate(r) || r.url.searchParams.has('dryRun')) return res;
      const ns = EVENTS.exec(r.url.pathname)![1]!;
      if (res.status === 429) emptied.add(ns);
      else if (emptied.has(ns))
        return {
          ...failure(
            429,
            'TooManyRequests',
            `Too many requests: limit reached on type Namespace for key ${ns}`,
          ),
          headers: { ...res.headers, 'content-type': 'application/json' },
        };
      return res;
    },
  },
  {
    name: 'event-rate-limit-message-reworded',
    response: (r, res) =>
      isEventCreate(r) && res.status === 429
        ? mapJson(res, (j) => {
            if (j && typeof j === 'object') j.message = 'rate limited';
            return j;
          })
        : res,
  },
  {
    name: 'image-policy-denial-ignored',
    request: (r) => {
      if (r.method !== 'POST' || !PODS.test(r.url.pathname)) return r;
      const b = bodyOf(r.body);
      let changed = false;
      for (const c of Array.isArray(b?.spec?.containers) ? b.spec.containers : [])
        if (typeof c?.image === 'string' && /-denied(:|$)/.test(c.image)) {
          c.image = c.image.replace(/-denied(:|$)/, '-admitted$1');
          changed = true;
        }
      return changed ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
    },
  },
  {
    name: 'image-policy-annotations-not-forwarded',
    request: (r) => {
      if (r.method !== 'POST' || !PODS.test(r.url.pathname)) return r;
      const b = bodyOf(r.body);
      const a = b?.metadata?.annotations;
      if (!a || typeof a !== 'object') return r;
      const keys = Object.keys(a).filter((k) => /^[^/]*\.image-policy\.orch\.io\//.test(k));
      if (!keys.length) return r;
      for (const k of keys) delete a[k];
      return { ...r, body: Buffer.from(JSON.stringify(b)) };
    },
  },
  {
    name: 'image-policy-fails-open',
    response: (r, res) =>
      r.method === 'POST' &&
      PODS.test(r.url.pathname) &&
      res.status === 403 &&
      res.body.toString('utf8').includes('backend failed')
        ? admitted(r, res)
        : res,
  },
];
