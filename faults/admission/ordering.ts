// Faults against doc3 § States and transitions (the order of admission): each makes a server
// behind the proxy call webhooks in another phase or order than the client's webhook
// configurations ask for. The proxy rewrites the configurations the client writes and
// disguises what it answers (the client reads back exactly what it wrote), so only the calls
// the server makes show the fault: suites/admission/ordering must catch every one. (Faults
// that change one field of each webhook are in admission-webhooks.ts, with the ordering cases
// among their catchers.)
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const GROUP_PATH =
  /^\/apis\/admissionregistration\.(orch|k8s)\.io\/v1\/(validating|mutating)webhookconfigurations(?:\/([^/?]+))?$/;

type Hook = Record<string, any>;

/**
 * Mutating configurations are created as validating ones (so their webhooks run in the
 * validating phase); requests for them by name go to the validating path, and answers are
 * dressed back as mutating configurations.
 */
function mutatingAsValidating(): Pick<FaultHooks, 'request' | 'response'> {
  // moved configuration -> each webhook's reinvocationPolicy as the client wrote it
  const moved = new Map<string, Map<string, string>>();
  const toValidating = (r: ProxiedRequest, name: string): ProxiedRequest => {
    const url = new URL(
      r.url.toString().replace('/mutatingwebhookconfigurations', '/validatingwebhookconfigurations'),
    );
    if (r.method !== 'POST' && r.method !== 'PUT') return { ...r, url };
    const b = bodyOf(r.body);
    const hooks: Hook[] = Array.isArray(b?.webhooks) ? b.webhooks : [];
    // a configuration the server must refuse for its reinvocationPolicy is left alone
    if (
      hooks.some(
        (h) =>
          h &&
          h.reinvocationPolicy !== undefined &&
          h.reinvocationPolicy !== 'Never' &&
          h.reinvocationPolicy !== 'IfNeeded',
      )
    )
      return r;
    const policies = new Map<string, string>();
    for (const h of hooks)
      if (h) {
        policies.set(h.name, h.reinvocationPolicy ?? 'Never');
        delete h.reinvocationPolicy;
      }
    moved.set(name, policies);
    b.kind = 'ValidatingWebhookConfiguration';
    return { ...r, url, body: Buffer.from(JSON.stringify(b)) };
  };
  return {
    request(r) {
      const m = GROUP_PATH.exec(r.url.pathname);
      if (m?.[2] !== 'mutating') return r;
      if (r.method === 'POST' && !m[3]) {
        const name = bodyOf(r.body)?.metadata?.name;
        return typeof name === 'string' ? toValidating(r, name) : r;
      }
      return m[3] && moved.has(m[3]) ? toValidating(r, m[3]) : r;
    },
    response(r, res) {
      // the request was rewritten already: an answer from the validating path about a moved name
      const m = GROUP_PATH.exec(r.url.pathname);
      if (m?.[2] !== 'validating') return res;
      return mapJson(res, (j) => {
        const policies =
          j?.kind === 'ValidatingWebhookConfiguration' ? moved.get(j.metadata?.name) : undefined;
        if (policies) {
          j.kind = 'MutatingWebhookConfiguration';
          for (const h of Array.isArray(j.webhooks) ? j.webhooks : [])
            if (h) h.reinvocationPolicy = policies.get(h.name) ?? 'Never';
        }
        return j;
      });
    },
  };
}

/** A configuration's webhooks written in reverse order, answered in the order the client wrote them. */
function reversedMutating(): Pick<FaultHooks, 'request' | 'response'> {
  const order = new Map<string, string[]>();
  return {
    request(r) {
      const m = GROUP_PATH.exec(r.url.pathname);
      if (m?.[2] !== 'mutating' || (r.method !== 'POST' && r.method !== 'PUT')) return r;
      const b = bodyOf(r.body);
      const hooks = b?.webhooks;
      if (!Array.isArray(hooks) || hooks.length < 2 || typeof b?.metadata?.name !== 'string') return r;
      order.set(
        b.metadata.name,
        hooks.map((h: Hook) => h?.name),
      );
      hooks.reverse();
      return { ...r, body: Buffer.from(JSON.stringify(b)) };
    },
    response(r, res) {
      const m = GROUP_PATH.exec(r.url.pathname);
      if (m?.[2] !== 'mutating') return res;
      return mapJson(res, (j) => {
        for (const o of Array.isArray(j?.items) ? j.items : [j]) {
          const names = order.get(o?.metadata?.name);
          if (names && Array.isArray(o.webhooks))
            o.webhooks.sort((a: Hook, b: Hook) => names.indexOf(a?.name) - names.indexOf(b?.name));
        }
        return j;
      });
    },
  };
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'mutating-webhooks-validate',
    ...mutatingAsValidating(),
  },
  {
    name: 'mutating-webhooks-reversed',
    ...reversedMutating(),
  },
];
