// Faults against doc3's webhook contract, each breaking one rule of how the server calls
// webhooks; suites/admission (the contract rows) must catch every one. The server calls the
// harness's webhooks directly, not through the proxy, so a fault either makes the server use
// the configurations it is given wrongly (webhook-rewrite.ts: a field changed on the way in,
// hidden on the way out), or changes what the client gets back (Warning headers, a rejection's
// status).
import type { FaultHooks } from '../proxy.ts';
import { bodyOf } from '../util.ts';
import { webhookRewriteFault } from './webhook-rewrite.ts';

type Hook = Record<string, any>;
const rules = (h: Hook): Hook[] =>
  Array.isArray(h.rules) ? h.rules.filter((r: unknown) => r && typeof r === 'object') : [];

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

export const HOOKS: FaultHooks[] = [
  webhookRewriteFault({
    name: 'webhook-failure-policy-ignore-as-fail',
    rewrite: (h) => {
      if (h.failurePolicy !== 'Ignore') return undefined;
      h.failurePolicy = 'Fail';
      return { failurePolicy: 'Ignore' };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-failure-policy-fail-as-ignore',
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
    rewrite: (h) => {
      // a timeout outside 1 to 30 is left to be refused
      if (
        !Number.isInteger(h.timeoutSeconds) ||
        h.timeoutSeconds < 1 ||
        h.timeoutSeconds > 30 ||
        h.timeoutSeconds === 10
      )
        return undefined;
      const before = h.timeoutSeconds;
      h.timeoutSeconds = 10;
      return { timeoutSeconds: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-review-version-last',
    rewrite: (h) => {
      const v = h.admissionReviewVersions;
      if (!Array.isArray(v) || v.length < 2) return undefined;
      h.admissionReviewVersions = [...v].reverse();
      return { admissionReviewVersions: v };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-match-conditions-always-true',
    rewrite: (h) => {
      if (!Array.isArray(h.matchConditions) || !h.matchConditions.length) return undefined;
      const before = structuredClone(h.matchConditions);
      for (const m of h.matchConditions)
        if (m && typeof m.expression === 'string') m.expression = `true || (${m.expression})`;
      return { matchConditions: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-object-selector-labels-ignored',
    rewrite: (h) => {
      if (!combined(h.objectSelector)) return undefined;
      const before = structuredClone(h.objectSelector);
      delete h.objectSelector.matchLabels;
      return { objectSelector: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-namespace-selector-labels-ignored',
    rewrite: (h) => {
      if (!combined(h.namespaceSelector)) return undefined;
      const before = structuredClone(h.namespaceSelector);
      delete h.namespaceSelector.matchLabels;
      return { namespaceSelector: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-rule-scope-ignored',
    rewrite: (h) =>
      mapRules(h, (r) => {
        if (r.scope !== 'Cluster' && r.scope !== 'Namespaced') return false;
        r.scope = '*';
        return true;
      }),
  }),
  webhookRewriteFault({
    name: 'webhook-rule-operations-widened',
    rewrite: (h) =>
      mapRules(h, (r) => {
        if (
          !Array.isArray(r.operations) ||
          !r.operations.length ||
          !r.operations.every((x: unknown) => OPERATIONS.includes(x as string))
        )
          return false;
        r.operations = ['*'];
        return true;
      }),
  }),
  webhookRewriteFault({
    name: 'webhook-resource-pattern-takes-subresources',
    rewrite: (h) =>
      mapRules(h, (r) => {
        if (
          !Array.isArray(r.resources) ||
          !r.resources.some((x: unknown) => typeof x === 'string' && !x.includes('/'))
        )
          return false;
        r.resources = r.resources.map((x: unknown) =>
          typeof x === 'string' && !x.includes('/') ? `${x}/*` : x,
        );
        return true;
      }),
  }),
  webhookRewriteFault({
    name: 'webhook-match-policy-exact',
    rewrite: (h) => {
      if (h.matchPolicy !== 'Equivalent' && h.matchPolicy !== undefined) return undefined;
      const before = h.matchPolicy ?? 'Equivalent';
      h.matchPolicy = 'Exact';
      return { matchPolicy: before };
    },
  }),
  webhookRewriteFault({
    name: 'webhook-reinvocation-if-needed-ignored',
    rewrite: (h, kind) => {
      if (kind !== 'mutating' || h.reinvocationPolicy !== 'IfNeeded') return undefined;
      h.reinvocationPolicy = 'Never';
      return { reinvocationPolicy: 'IfNeeded' };
    },
  }),
  {
    name: 'webhook-warnings-dropped',
    response: (r, res) => {
      if (!isObjectPath(r.url.pathname) || res.headers.warning === undefined) return res;
      const { warning: _w, ...headers } = res.headers;
      return { ...res, headers };
    },
  },
  {
    name: 'webhook-denial-status-lost',
    response: (r, res) => {
      if (!isObjectPath(r.url.pathname) || res.status < 400) return res;
      const s = bodyOf(res.body);
      if (s?.kind !== 'Status' || typeof s.message !== 'string' || !s.message.includes('denied the request'))
        return res;
      const body = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the request was denied by admission',
        reason: 'Forbidden',
        code: 403,
      };
      return { ...res, status: 403, body: Buffer.from(JSON.stringify(body)) };
    },
  },
];
