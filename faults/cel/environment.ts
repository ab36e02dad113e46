// Faults against the expression environment and its compile errors (suites/cel/environment):
// a server that reports only the first compile error, counts columns from zero, accepts list and
// map literals of mixed types, or declares the strings extension's `format`. The answers of the
// three places that compile an expression are rewritten alike (a definition, a policy, a
// webhook configuration), the `format` call only in the rules of the definitions forwarded.
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { answer, bodyOf, mapJson } from '../util.ts';
import { editRules, rewriteCalls } from './faults.ts';

const COMPILING = [
  /^\/apis\/apiextensions\.orch\.io\/v1\/customresourcedefinitions\/?$/,
  /^\/apis\/admissionregistration\.orch\.io\/v1beta1\/validatingadmissionpolicies\/?$/,
  /^\/apis\/admissionregistration\.orch\.io\/v1\/validatingwebhookconfigurations\/?$/,
];

const compiles = (r: ProxiedRequest) => r.method === 'POST' && COMPILING.some((p) => p.test(r.url.pathname));

/** Rewrites the message of each cause (and the summary) of a refusal of a write that compiles. */
function mapMessages(r: ProxiedRequest, res: ProxiedResponse, f: (m: string) => string): ProxiedResponse {
  if (!compiles(r) || res.status !== 422) return res;
  return mapJson(res, (j) => {
    if (typeof j?.message === 'string') j.message = f(j.message);
    for (const c of j?.details?.causes ?? []) if (typeof c.message === 'string') c.message = f(c.message);
    return j;
  });
}

const causesOf = (res: ProxiedResponse): { message?: string }[] => {
  try {
    return JSON.parse(res.body.toString('utf8'))?.details?.causes ?? [];
  } catch {
    return [];
  }
};

export const HOOKS: FaultHooks[] = [
  {
    name: 'cel-compile-errors-first-only',
    response: (r, res) => mapMessages(r, res, (m) => m.split('\nERROR: <input>:')[0]!),
  },
  {
    name: 'cel-compile-error-columns-from-zero',
    response: (r, res) =>
      mapMessages(r, res, (m) =>
        m.replace(/<input>:(\d+):(\d+):/g, (_, l, c) => `<input>:${l}:${Number(c) - 1}:`),
      ),
  },
  {
    name: 'cel-literals-mixed-accepted',
    response: (r, res) => {
      if (!compiles(r) || res.status !== 422) return res;
      const causes = causesOf(res);
      const mixed = (m = '') =>
        /compilation failed: ERROR/.test(m) && !/ERROR: <input>:\d+:\d+: (?!expected type)/.test(m);
      return causes.length && causes.every((c) => mixed(c.message)) ? answer(201, bodyOf(r.body) ?? {}) : res;
    },
  },
  {
    name: 'cel-strings-format-declared',
    request: (r) => editRules(r, (x) => ({ ...x, rule: rewriteCalls(x.rule, 'format', true, () => '') })),
  },
];
