// Faults against doc3's webhook contract, each breaking one rule of how the server calls
// webhooks; suites/admission (the contract rows) must catch every one. The server calls the
// harness's webhooks directly, not through the proxy, so a fault either makes the server use
// the configurations it is given wrongly (webhook-rewrite.ts: a field changed on the way in,
// hidden on the way out), or changes what the client gets back (Warning headers, a rejection's
// status).
import type { Fault } from '../proxy.ts';
import { bodyOf } from '../util.ts';
import { webhookRewriteFault } from './webhook-rewrite.ts';

const c = (...ids: string[]) => ids.map((id) => `admission/contract/${id}`);

type Hook = Record<string, any>;
const rules = (h: Hook): Hook[] => (Array.isArray(h.rules) ? h.rules.filter((r: unknown) => r && typeof r === 'object') : []);

/** Every rule's field changed by `f` (which returns the new value, or undefined to leave it). */
function mapRules(h: Hook, f: (rule: Hook) => unknown): Record<string, unknown> | undefined {
  const before = structuredClone(h.rules);
  let changed = false;
  for (const r of rules(h)) changed = f(r) === true || changed;
  return changed ? { rules: before } : undefined;
}

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const LABEL = /^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$/;
/**
 * A selector combining matchLabels (of plain valid keys and values: one the server would refuse
 * is left to be refused) with matchExpressions: the fault's server reads only the expressions.
 */
const combined = (sel: any): boolean => {
  const m = sel?.matchLabels;
  return (
    Array.isArray(sel?.matchExpressions) &&
    sel.matchExpressions.length > 0 &&
    !!m &&
    typeof m === 'object' &&
    Object.keys(m).length > 0 &&
    Object.entries(m).every(([k, v]) => LABEL.test(k) && typeof v === 'string' && LABEL.test(v))
  );
};

const isObjectPath = (p: string) => !/^\/apis\/admissionregistration\./.test(p);

export const FAULTS: Fault[] = [
  webhookRewriteFault({
    name: 'webhook-failure-policy-ignore-as-fail',
    breaks:
      'doc3 § Errors: a webhook timeout or unrecognized error under failurePolicy Ignore lets the request proceed (the server is given Fail wherever the client wrote Ignore)',
    catchers: c(
      'timeout-ignore',
      'http-500-ignore',
      'http-500-with-denial-ignore',
      'garbage-ignore',
      'garbage-mutating-ignore',
      'connection-refused-ignore',
      'untrusted-ca-ignore',
      'uid-mismatch-ignore',
      'patch-type-unsupported-ignore',
      'patch-on-validating-ignored',
      'ignored-failure-others-still-run',
      'ignored-mutating-failure-others-mutate',
      'match-condition-error-ignore',
      'patch-not-applicable-ignore',
    ),
    rewrite: (h) => {
      if (h.failurePolicy !== 'Ignore') return undefined;
      h.failurePolicy = 'Fail';
      return { failurePolicy: 'Ignore' };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-failure-policy-fail-as-ignore',
    breaks:
      'doc3 § Errors and § Webhook configuration objects: a failed call under failurePolicy Fail (the default) rejects the request (the server is given Ignore where the client wrote Fail or nothing)',
    catchers: c(
      'timeout-fail',
      'timeout-fail-kubernetes',
      'http-500-fail',
      'garbage-fail',
      'connection-refused-fail',
      'failure-policy-default-fail',
      'untrusted-ca-fail',
      'uid-mismatch-fail',
      'uid-missing-fail',
      'uid-mismatch-kubernetes',
      'answer-other-version-fail',
      'answer-other-kind-fail',
      'answer-without-response-fail',
      'patch-type-unsupported-fail',
      'patch-on-validating-fails',
      'patch-without-type',
      'match-condition-error-fail',
      'patch-not-applicable-fail',
      'patch-on-delete-fail',
      'v1beta1-uid-mismatch-fail',
      'ordering/phases',
      'ordering/kubernetes-order',
    ).map((id) => id.replace('admission/contract/ordering/', 'admission/ordering/')),
    rewrite: (h) => {
      if (h.failurePolicy !== 'Fail' && h.failurePolicy !== undefined) return undefined;
      // an absent failurePolicy reads back as the server defaults it, Fail
      const before = h.failurePolicy ?? 'Fail';
      h.failurePolicy = 'Ignore';
      return { failurePolicy: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-timeout-ignored',
    breaks:
      'doc3 § Limits and § Errors: a webhook is given up on after its timeoutSeconds (the server is given 10 s, the default, whatever the client wrote)',
    catchers: c('timeout-ignore', 'timeout-fail'),
    rewrite: (h) => {
      // a timeout outside 1 to 30 is left to be refused
      if (!Number.isInteger(h.timeoutSeconds) || h.timeoutSeconds < 1 || h.timeoutSeconds > 30 || h.timeoutSeconds === 10) return undefined;
      const before = h.timeoutSeconds;
      h.timeoutSeconds = 10;
      return { timeoutSeconds: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-review-version-last',
    breaks:
      'doc3 § Versioning and § Webhook contract: the review is of the first version in admissionReviewVersions the server supports (the server is given the list reversed, so it picks the last)',
    catchers: c('version-v1beta1-first', 'version-v1-first'),
    rewrite: (h) => {
      const v = h.admissionReviewVersions;
      if (!Array.isArray(v) || v.length < 2) return undefined;
      h.admissionReviewVersions = [...v].reverse();
      return { admissionReviewVersions: v };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-match-conditions-always-true',
    breaks:
      'doc3 § Webhook configuration objects and § Errors: all match conditions must be true, a false one skips the webhook (the server is given each expression as `true || (<expression>)`)',
    catchers: c(
      'match-condition-false',
      'match-condition-one-false',
      'match-condition-error-and-false',
      'match-condition-error-fail',
      'match-condition-error-ignore',
    ),
    rewrite: (h) => {
      if (!Array.isArray(h.matchConditions) || !h.matchConditions.length) return undefined;
      const before = structuredClone(h.matchConditions);
      for (const m of h.matchConditions) if (m && typeof m.expression === 'string') m.expression = `true || (${m.expression})`;
      return { matchConditions: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-object-selector-labels-ignored',
    breaks:
      'doc3 § Webhook configuration objects: objectSelector matches object or old object labels (the server is given a selector that combines matchLabels and matchExpressions without its matchLabels)',
    catchers: c('object-selector-no-match', 'object-selector-cluster-scoped'),
    rewrite: (h) => {
      if (!combined(h.objectSelector)) return undefined;
      const before = structuredClone(h.objectSelector);
      delete h.objectSelector.matchLabels;
      return { objectSelector: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-namespace-selector-labels-ignored',
    breaks:
      'doc3 § Webhook configuration objects: namespaceSelector matches the namespace labels for namespaced resources and Namespace objects (the server is given a selector that combines matchLabels and matchExpressions without its matchLabels)',
    catchers: c('namespace-selector-no-match', 'namespace-selector-namespace-object-no-match'),
    rewrite: (h) => {
      if (!combined(h.namespaceSelector)) return undefined;
      const before = structuredClone(h.namespaceSelector);
      delete h.namespaceSelector.matchLabels;
      return { namespaceSelector: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-rule-scope-ignored',
    breaks:
      'doc3 § Webhook configuration objects: a rule of scope Cluster or Namespaced matches only resources of that scope, subresources taking their parent\'s (the server is given scope `*`)',
    catchers: c('scope-namespaced-not-cluster', 'scope-cluster-not-namespaced', 'scope-subresource-not-namespaced'),
    rewrite: (h) =>
      mapRules(h, (r) => {
        if (r.scope !== 'Cluster' && r.scope !== 'Namespaced') return false;
        r.scope = '*';
        return true;
      }),
  }),
  webhookRewriteFault({
    name: 'webhook-rule-operations-widened',
    breaks:
      'doc3 § Webhook configuration objects: a rule matches only the operations it names (the server is given operations `*`)',
    catchers: c('match-operation-other', 'match-operation-delete-not-update'),
    rewrite: (h) =>
      mapRules(h, (r) => {
        if (!Array.isArray(r.operations) || !r.operations.length || !r.operations.every((x: unknown) => OPERATIONS.includes(x as string))) return false;
        r.operations = ['*'];
        return true;
      }),
  }),
  webhookRewriteFault({
    name: 'webhook-resource-pattern-takes-subresources',
    breaks:
      'doc3 § Webhook configuration objects: resources `*` (and a plain type) match no subresource (the server is given `*/*` for `*` and `<type>/*` for a type)',
    catchers: c('pattern-star-no-subresources', 'pattern-plain-not-status'),
    rewrite: (h) =>
      mapRules(h, (r) => {
        if (!Array.isArray(r.resources) || !r.resources.some((x: unknown) => typeof x === 'string' && !x.includes('/'))) return false;
        r.resources = r.resources.map((x: unknown) => (typeof x === 'string' && !x.includes('/') ? `${x}/*` : x));
        return true;
      }),
  }),
  webhookRewriteFault({
    name: 'webhook-match-policy-exact',
    breaks:
      'doc3 § Webhook configuration objects: under matchPolicy Equivalent (the default) a request through another group or version of the resource is sent, converted (the server is given Exact)',
    catchers: c('match-policy-equivalent', 'match-policy-default-equivalent'),
    rewrite: (h) => {
      if (h.matchPolicy !== 'Equivalent' && h.matchPolicy !== undefined) return undefined;
      const before = h.matchPolicy ?? 'Equivalent';
      h.matchPolicy = 'Exact';
      return { matchPolicy: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-reinvocation-if-needed-ignored',
    // the ordering model's reinvocation round
    breaks:
      'doc3 § States and transitions: reinvocationPolicy IfNeeded re-calls a mutating webhook after a later one changed the object (the server is given Never)',
    catchers: [...c('reinvocation-if-needed'), 'admission/ordering/kubernetes-order'],
    rewrite: (h, kind) => {
      if (kind !== 'mutating' || h.reinvocationPolicy !== 'IfNeeded') return undefined;
      h.reinvocationPolicy = 'Never';
      return { reinvocationPolicy: 'IfNeeded' };
    },
  }),
  {
    name: 'webhook-warnings-dropped',
    breaks:
      'doc3 § Webhook contract: a webhook\'s warnings are returned to the client in Warning headers with code 299 (the proxy drops every Warning header of answers about objects)',
    area: 'admission',
    catchers: c('warnings-validating', 'warnings-mutating', 'warnings-two-webhooks', 'warnings-on-denial', 'warnings-dry-run'),
    response: (r, res) => {
      if (!isObjectPath(r.url.pathname) || res.headers.warning === undefined) return res;
      const { warning: _w, ...headers } = res.headers;
      return { ...res, headers };
    },
  },
  {
    name: 'webhook-denial-status-lost',
    breaks:
      'doc3 § Errors: a webhook\'s allowed false with status.code and status.message shapes the reply (the proxy answers every webhook rejection 403 Forbidden with a message of its own)',
    area: 'admission',
    catchers: c(
      'denied-status-code-message',
      'denied-other-code',
      'denied-kubernetes-message',
      'denied-without-status',
      'denied-code-below-400',
      'denied-by-mutating',
      'denied-update-keeps-object',
      'denied-delete-keeps-object',
      'v1beta1-denial',
      'slow-within-timeout',
      'timeout-default-ten',
      'validating-any-rejects',
    ),
    response: (r, res) => {
      if (!isObjectPath(r.url.pathname) || res.status < 400) return res;
      const s = bodyOf(res.body);
      if (s?.kind !== 'Status' || typeof s.message !== 'string' || !s.message.includes('denied the request')) return res;
      const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the request was denied by admission', reason: 'Forbidden', code: 403 };
      return { ...res, status: 403, body: Buffer.from(JSON.stringify(body)) };
    },
  },
];
