// Faults against doc3's webhook configuration objects (the rules of the table and the v1
// defaults), one rule class each; suites/admission must catch every one. A fault either rewrites
// the webhooks a client writes (so the server accepts what the rule refuses) or rewrites the
// webhooks the server answers (so a default is missing or wrong).
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const CONFIGURATIONS =
  /^\/apis\/admissionregistration\.(orch|k8s)\.io\/v1\/(validating|mutating)webhookconfigurations(\/|$)/;

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
function mapAnsweredWebhooks(
  r: ProxiedRequest,
  res: ProxiedResponse,
  f: (hook: Hook) => void,
): ProxiedResponse {
  if (!isConfigurations(r)) return res;
  return mapJson(res, (j) => {
    const objects = Array.isArray(j?.items) ? j.items : [j];
    for (const o of objects) for (const h of Array.isArray(o?.webhooks) ? o.webhooks : []) if (h) f(h);
    return j;
  });
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'webhook-url-scheme-unchecked',
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
    response: (r, res) =>
      mapAnsweredWebhooks(r, res, (h) => {
        if (h.timeoutSeconds === 10) delete h.timeoutSeconds;
      }),
  },
  {
    name: 'webhook-failure-policy-default-ignore',
    response: (r, res) =>
      mapAnsweredWebhooks(r, res, (h) => {
        if (h.failurePolicy === 'Fail') h.failurePolicy = 'Ignore';
      }),
  },
  {
    name: 'webhook-reinvocation-default-dropped',
    response: (r, res) =>
      mapAnsweredWebhooks(r, res, (h) => {
        if (h.reinvocationPolicy === 'Never') delete h.reinvocationPolicy;
      }),
  },
  {
    name: 'webhook-side-effects-unrestricted',
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
