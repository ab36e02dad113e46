// Faults against doc3's plugin table rows EventRateLimit and ImagePolicyWebhook (and the
// ImagePolicyWebhook configuration block); each names the suites/admission cases that must catch
// it. They run against a server with the plugin on and the harness's configuration
// (harness/src/admission/: the buckets, and the ImageReview backend whose verdict follows the
// image name).
import type { Fault, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const EVENTS = /^\/api\/v1\/namespaces\/([^/]+)\/events\/?$/;
const PODS = /^\/api\/v1\/namespaces\/[^/]+\/pods\/?$/;
const erl = (id: string) => `admission/plugins/event-rate-limit/${id}`;
const ipw = (id: string) => `admission/plugins/image-policy/${id}`;
const RATE_SERVER = {
  enableAdmissionPlugins: ['EventRateLimit'],
  harnessAdmissionConfig: 'event-rate-limit' as const,
};
const IMAGE_SERVER = {
  enableAdmissionPlugins: ['ImagePolicyWebhook'],
  harnessAdmissionConfig: 'image-policy' as const,
};

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

export const FAULTS: Fault[] = [
  {
    name: 'event-rate-limit-never-refuses',
    breaks:
      'doc3 plugin table, EventRateLimit: events beyond the buckets are refused (the proxy answers 201 where the server answers 429)',
    area: 'admission',
    catchers: [erl('refused-when-empty')],
    server: RATE_SERVER,
    response: (r, res) => (isEventCreate(r) && res.status === 429 ? admitted(r, res) : res),
  },
  {
    name: 'event-rate-limit-never-refills',
    breaks:
      'doc3 plugin table, EventRateLimit: buckets refill at their qps (the proxy keeps refusing the events of a namespace once one was refused)',
    area: 'admission',
    catchers: [erl('refills')],
    server: RATE_SERVER,
    response: (r, res) => {
      if (!isEventCreate(r) || r.url.searchParams.has('dryRun')) return res;
      const ns = EVENTS.exec(r.url.pathname)![1]!;
      if (res.status === 429) emptied.add(ns);
      else if (emptied.has(ns))
        return {
          ...failure(429, 'TooManyRequests', `Too many requests: limit reached on type Namespace for key ${ns}`),
          headers: { ...res.headers, 'content-type': 'application/json' },
        };
      return res;
    },
  },
  {
    name: 'event-rate-limit-message-reworded',
    breaks:
      "doc3 plugin table, EventRateLimit (1.28 message): the refusal names the limit type and key (the proxy rewords the 429's message)",
    area: 'admission',
    catchers: [erl('message')],
    server: RATE_SERVER,
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
    breaks:
      "doc3 plugin table, ImagePolicyWebhook: the backend's ImageReview answer decides (the proxy sends images the backend denies under another name, as if the server never asked)",
    area: 'admission',
    catchers: [ipw('allow-and-deny')],
    server: IMAGE_SERVER,
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
    breaks:
      'doc3 plugin table, ImagePolicyWebhook: pod annotations matching *.image-policy.orch.io/* are forwarded in the review (the proxy removes them from the pods it sends)',
    area: 'admission',
    catchers: [ipw('annotations-forwarded')],
    server: IMAGE_SERVER,
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
    breaks:
      'doc3 ImagePolicyWebhook configuration: defaultAllow false refuses pods when the backend fails (the proxy answers 201 where the server refuses for a failed backend)',
    area: 'admission',
    catchers: [ipw('default-deny')],
    server: IMAGE_SERVER,
    response: (r, res) =>
      r.method === 'POST' &&
      PODS.test(r.url.pathname) &&
      res.status === 403 &&
      res.body.toString('utf8').includes('backend failed')
        ? admitted(r, res)
        : res,
  },
];
