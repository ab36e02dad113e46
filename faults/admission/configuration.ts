// Faults against doc3's webhook configuration objects (the rules of the table and the v1
// defaults), one rule class each; suites/admission must catch every one. A fault either rewrites
// the webhooks a client writes (so the server accepts what the rule refuses) or rewrites the
// webhooks the server answers (so a default is missing or wrong).
import type { Fault, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const CONFIGURATIONS = /^\/apis\/admissionregistration\.(orch|k8s)\.io\/v1\/(validating|mutating)webhookconfigurations(\/|$)/;

type Hook = Record<string, any>;

const isConfigurations = (r: ProxiedRequest) => CONFIGURATIONS.test(r.url.pathname);

/** A create or replace of a webhook configuration, its webhooks changed by `f` (left alone when `f` changes nothing). */
function rewriteWebhooks(r: ProxiedRequest, f: (hooks: Hook[]) => boolean): ProxiedRequest {
  if ((r.method !== 'POST' && r.method !== 'PUT') || !isConfigurations(r)) return r;
  const b = bodyOf(r.body);
  if (!Array.isArray(b?.webhooks)) return r;
  const hooks = b.webhooks.filter((h: unknown) => h && typeof h === 'object') as Hook[];
  return f(hooks) ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
}

/** Every webhook of an answer about webhook configurations (an object or a list), changed by `f`. */
function mapAnsweredWebhooks(r: ProxiedRequest, res: ProxiedResponse, f: (hook: Hook) => void): ProxiedResponse {
  if (!isConfigurations(r)) return res;
  return mapJson(res, (j) => {
    const objects = Array.isArray(j?.items) ? j.items : [j];
    for (const o of objects) for (const h of Array.isArray(o?.webhooks) ? o.webhooks : []) if (h) f(h);
    return j;
  });
}

/** A row's case and its `/kubernetes-shape` twin. */
const withTwin = (id: string) => [`admission/configuration/${id}`, `admission/configuration/${id}/kubernetes-shape`];

export const FAULTS: Fault[] = [
  {
    name: 'webhook-url-scheme-unchecked',
    breaks:
      'doc3 § Webhook configuration objects: the scheme of clientConfig.url must be https (the proxy sends an http:// URL as https://, so the server answers 201 or 200 where it answers 422)',
    area: 'admission',
    catchers: [...withTwin('url-http'), ...withTwin('url-http-on-update')],
    request: (r) =>
      rewriteWebhooks(r, (hooks) => {
        let changed = false;
        for (const h of hooks) {
          const url = h.clientConfig?.url;
          if (typeof url === 'string' && /^http:\/\//i.test(url)) {
            h.clientConfig.url = `https://${url.slice('http://'.length)}`;
            changed = true;
          }
        }
        return changed;
      }),
  },
  {
    name: 'webhook-duplicate-name-accepted',
    breaks:
      'doc3 § Webhook configuration objects: webhook names are unique within the configuration (the proxy renames a repeated name before the server sees it, so a configuration with two webhooks of one name is accepted)',
    area: 'admission',
    catchers: [...withTwin('duplicate-webhook-name'), ...withTwin('duplicate-name-on-update')],
    request: (r) =>
      rewriteWebhooks(r, (hooks) => {
        const seen = new Set<string>();
        let changed = false;
        for (const h of hooks) {
          if (typeof h.name !== 'string' || !h.name) continue;
          if (seen.has(h.name)) {
            h.name = `again-${seen.size}.${h.name}`;
            changed = true;
          }
          seen.add(h.name);
        }
        return changed;
      }),
  },
  {
    name: 'webhook-timeout-range-unchecked',
    breaks:
      'doc3 § Webhook configuration objects: timeoutSeconds is 1 to 30 (the proxy brings a timeout outside the range into it, so the server accepts it)',
    area: 'admission',
    catchers: [...withTwin('timeout-above-30'), ...withTwin('timeout-below-1'), ...withTwin('timeout-on-update')],
    request: (r) =>
      rewriteWebhooks(r, (hooks) => {
        let changed = false;
        for (const h of hooks)
          if (typeof h.timeoutSeconds === 'number' && (h.timeoutSeconds < 1 || h.timeoutSeconds > 30)) {
            h.timeoutSeconds = Math.min(30, Math.max(1, h.timeoutSeconds));
            changed = true;
          }
        return changed;
      }),
  },
  {
    name: 'webhook-timeout-default-dropped',
    breaks:
      'doc3 § Webhook configuration objects: timeoutSeconds defaults to 10 (the proxy leaves timeoutSeconds 10 out of every webhook the server answers)',
    area: 'admission',
    catchers: ['admission/configuration/timeout-default', 'admission/configuration/timeout-default-on-update'],
    response: (r, res) =>
      mapAnsweredWebhooks(r, res, (h) => {
        if (h.timeoutSeconds === 10) delete h.timeoutSeconds;
      }),
  },
  {
    name: 'webhook-failure-policy-default-ignore',
    breaks:
      'doc3 § Webhook configuration objects: failurePolicy defaults to Fail (the proxy answers the v1beta1 default, Ignore, wherever the server answers Fail)',
    area: 'admission',
    catchers: ['admission/configuration/failure-policy-default'],
    response: (r, res) =>
      mapAnsweredWebhooks(r, res, (h) => {
        if (h.failurePolicy === 'Fail') h.failurePolicy = 'Ignore';
      }),
  },
  {
    name: 'webhook-reinvocation-default-dropped',
    breaks:
      'doc3 § Webhook configuration objects: a mutating webhook\'s reinvocationPolicy defaults to Never (the proxy leaves reinvocationPolicy Never out of every webhook the server answers)',
    area: 'admission',
    catchers: ['admission/configuration/reinvocation-default'],
    response: (r, res) =>
      mapAnsweredWebhooks(r, res, (h) => {
        if (h.reinvocationPolicy === 'Never') delete h.reinvocationPolicy;
      }),
  },
  {
    name: 'webhook-side-effects-unrestricted',
    breaks:
      'doc3 § Webhook configuration objects: sideEffects is None or NoneOnDryRun (the proxy sends Some and Unknown as None, so the server accepts them)',
    area: 'admission',
    catchers: withTwin('side-effects-some'),
    request: (r) =>
      rewriteWebhooks(r, (hooks) => {
        let changed = false;
        for (const h of hooks)
          if (h.sideEffects === 'Some' || h.sideEffects === 'Unknown') {
            h.sideEffects = 'None';
            changed = true;
          }
        return changed;
      }),
  },
  {
    name: 'webhook-match-conditions-uncompiled',
    breaks:
      'doc3 § Webhook configuration objects: match condition expressions are compiled, over their declared variables, to a bool when the configuration is written (the proxy sends every non-blank expression as `true`, so one that does not compile or is not a bool is accepted)',
    area: 'admission',
    catchers: [
      'admission/configuration/match-condition-not-bool',
      'admission/configuration/match-condition-dynamic',
      'admission/configuration/match-condition-undeclared',
      'admission/configuration/match-condition-request-typed',
    ],
    request: (r) =>
      rewriteWebhooks(r, (hooks) => {
        let changed = false;
        for (const h of hooks)
          for (const c of Array.isArray(h.matchConditions) ? h.matchConditions : [])
            if (c && typeof c.expression === 'string' && c.expression.trim() && c.expression !== 'true') {
              c.expression = 'true';
              changed = true;
            }
        return changed;
      }),
  },
  {
    name: 'webhook-match-conditions-dynamic-accepted',
    breaks:
      'doc3 § Webhook configuration objects, as Kubernetes 1.28 compiles a match condition: its type must be exactly bool (the proxy sends each expression `e` as `e == true`, a bool whatever the type of `e` and with every position in `e` unchanged, so an expression of no known type is accepted)',
    area: 'admission',
    catchers: ['admission/configuration/match-condition-dynamic'],
    request: (r) =>
      rewriteWebhooks(r, (hooks) => {
        let changed = false;
        for (const h of hooks)
          for (const c of Array.isArray(h.matchConditions) ? h.matchConditions : [])
            if (c && typeof c.expression === 'string' && c.expression.trim()) {
              c.expression = `${c.expression} == true`;
              changed = true;
            }
        return changed;
      }),
  },
];
