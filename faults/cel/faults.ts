// Faults against doc2's expression language (validation rules of custom definitions) and its
// limits; suites/cel must catch every one. Most rewrite the rules of the definitions the proxy
// forwards, so the server runs a slightly different rule than the one written (a library function
// exchanged for its neighbour, an argument dropped, a rule left out): what a server with that bug
// would do. The others rewrite the answers (a refusal passed off as success, an evaluation error
// answered as a server error, violations cut to the first).
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { answer, bodyOf, failure, mapJson } from '../util.ts';

const CRD_PATH = /^\/apis\/apiextensions\.orch\.io\/v1\/customresourcedefinitions\/?$/;
/** The suite's custom resources: groups named cel<group>-<hex>.example.com. */
const CEL_RESOURCE = /^\/apis\/cel[a-z0-9]*-[0-9a-f]+\.example\.com\//;

/** A row's case and its `/kubernetes-shape` twin. */
const twin = (id: string) => [id, `${id}/kubernetes-shape`];

type Node = Record<string, any>;
interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

const isDefinitionWrite = (r: ProxiedRequest) =>
  (r.method === 'POST' && CRD_PATH.test(r.url.pathname)) ||
  (r.method === 'PUT' && /\/customresourcedefinitions\/[^/]+$/.test(r.url.pathname));

/** Where a schema node is: the root of a version's schema, a property, list items or map values. */
type Place = 'root' | 'property' | 'items' | 'values';

/** Every schema node below a version's openAPIV3Schema (the root first), each once. */
function walk(node: unknown, visit: (n: Node, at: Place) => void, at: Place = 'root'): void {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return;
  const n = node as Node;
  visit(n, at);
  for (const p of Object.values(n.properties ?? {})) walk(p, visit, 'property');
  if (n.items && typeof n.items === 'object') walk(n.items, visit, 'items');
  if (n.additionalProperties && typeof n.additionalProperties === 'object')
    walk(n.additionalProperties, visit, 'values');
}

/** Rewrites each schema node of the definition a request writes (a copy: the request is left alone). */
function editSchemas(r: ProxiedRequest, edit: (n: Node, at: Place) => void): ProxiedRequest {
  if (!isDefinitionWrite(r)) return r;
  const d = bodyOf(r.body);
  const versions = d?.spec?.versions;
  if (!Array.isArray(versions)) return r;
  for (const v of versions) walk(v?.schema?.openAPIV3Schema, edit);
  return { ...r, body: Buffer.from(JSON.stringify(d)) };
}

/** Rewrites (or, answering undefined, drops) each rule of the definition a request writes. */
export function editRules(r: ProxiedRequest, edit: (rule: Rule, node: Node, at: Place) => Rule | undefined) {
  return editSchemas(r, (n, at) => {
    const rules = n['x-orch-validations'];
    if (!Array.isArray(rules)) return;
    const kept = rules.map((x: Rule) => edit({ ...x }, n, at)).filter((x): x is Rule => !!x);
    if (kept.length) n['x-orch-validations'] = kept;
    else delete n['x-orch-validations'];
  });
}

/** Index past a quoted literal starting at i (single or double quotes, backslash escapes). */
function skipQuoted(s: string, i: number): number {
  const q = s[i];
  let j = i + 1;
  while (j < s.length && s[j] !== q) j += s[j] === '\\' ? 2 : 1;
  return j + 1;
}

/**
 * Rewrites every call of `name` in an expression: a method call (`.name(...)`) when `method`, a
 * global call (`name(...)` not after `.` or an identifier character) otherwise. `replace` gets the
 * arguments as written (split at top-level commas) and answers the text that replaces the whole
 * call from `name` (or from `.name` for a method) to its closing parenthesis.
 */
export function rewriteCalls(
  expr: string,
  name: string,
  method: boolean,
  replace: (args: string[]) => string,
): string {
  let out = '';
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (c === "'" || c === '"') {
      const j = skipQuoted(expr, i);
      out += expr.slice(i, j);
      i = j;
      continue;
    }
    const head = method ? `.${name}(` : `${name}(`;
    const before = i > 0 ? expr[i - 1]! : '';
    if (expr.startsWith(head, i) && (method || !/[.\w]/.test(before))) {
      let j = i + head.length;
      let depth = 1;
      const args: string[] = [];
      let start = j;
      while (j < expr.length && depth > 0) {
        const d = expr[j]!;
        if (d === "'" || d === '"') {
          j = skipQuoted(expr, j);
          continue;
        }
        if (d === '(' || d === '[' || d === '{') depth++;
        else if (d === ')' || d === ']' || d === '}') depth--;
        if (depth === 1 && d === ',') {
          args.push(expr.slice(start, j).trim());
          start = j + 1;
        }
        if (depth === 0) break;
        j++;
      }
      const last = expr.slice(start, j).trim();
      if (last || args.length) args.push(last);
      out += replace(args.map((a) => rewriteCalls(a, name, method, replace)));
      i = j + 1;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** A fault that rewrites each call of a function in the rules of the definitions it forwards. */
function callFault(
  f: { name: string },
  name: string,
  method: boolean,
  replace: (args: string[]) => string,
  only: (rule: string) => boolean = () => true,
): FaultHooks {
  return {
    ...f,
    request: (r) =>
      editRules(r, (x) => (only(x.rule) ? { ...x, rule: rewriteCalls(x.rule, name, method, replace) } : x)),
  };
}

/** `.name(args)` becomes `.other(args)`. */
const rename = (other: string) => (args: string[]) => `.${other}(${args.join(', ')})`;

/** A fault that leaves out the rules `drop` picks from the definitions it forwards. */
function dropFault(f: { name: string }, drop: (rule: Rule, node: Node, at: Place) => boolean): FaultHooks {
  return {
    ...f,
    request: (r) => editRules(r, (x, n, at) => (drop(x, n, at) ? undefined : x)),
  };
}

/** The schemas of the fields a rule reads directly below its node (`self.<name>`). */
function fieldsRead(rule: Rule, node: Node): Node[] {
  const props = (node.properties ?? {}) as Record<string, Node>;
  const names = new Set([...rule.rule.matchAll(/\bself\.(\w+)/g)].map((m) => m[1]!));
  return [...names].map((n) => props[n]).filter((p): p is Node => !!p);
}

const readsField = (test: (p: Node) => boolean) => (rule: Rule, node: Node) =>
  fieldsRead(rule, node).some(test);

/** The type() check of a field of this schema type, in the rule. */
const testsTypeOf = (type: string, celType: string) => (rule: Rule, node: Node) =>
  new RegExp(`type\\(self\\.\\w+\\) == ${celType}\\b`).test(rule.rule) &&
  fieldsRead(rule, node).some((p) => p.type === type && !p.format);

/** Answers a refusal the proxy saw as if the write had succeeded (nothing was written). */
function passOff(r: ProxiedRequest, status: number): ProxiedResponse {
  return answer(status, bodyOf(r.body) ?? {});
}

const textOf = (res: ProxiedResponse) => res.body.toString('utf8');

const LAW_LIST = 'cel/law/list-functions';

export const HOOKS: FaultHooks[] = [
  // ------------------------------------------------------------------------ list library
  callFault(
    {
      name: 'cel-index-of-as-last-index-of',
    },
    'indexOf',
    true,
    rename('lastIndexOf'),
  ),
  callFault(
    {
      name: 'cel-last-index-of-as-index-of',
    },
    'lastIndexOf',
    true,
    rename('indexOf'),
  ),
  callFault(
    {
      name: 'cel-min-as-max',
    },
    'min',
    true,
    rename('max'),
  ),
  callFault(
    {
      name: 'cel-max-as-min',
    },
    'max',
    true,
    rename('min'),
  ),
  callFault(
    {
      name: 'cel-sum-as-max',
    },
    'sum',
    true,
    rename('max'),
  ),
  callFault(
    {
      name: 'cel-is-sorted-always-true',
    },
    'isSorted',
    true,
    () => '.all(e, true)',
  ),
  // ------------------------------------------------------------------------ regex library
  callFault(
    {
      name: 'cel-matches-anchored',
    },
    'matches',
    true,
    ([p]) => `.matches('^' + ${p})`,
  ),
  callFault(
    {
      name: 'cel-find-anchored',
    },
    'find',
    true,
    ([p]) => `.find('^' + ${p})`,
  ),
  callFault(
    {
      name: 'cel-find-all-first-only',
    },
    'findAll',
    true,
    (args) => (args.length === 1 ? `.findAll(${args[0]}, 1)` : `.findAll(${args.join(', ')})`),
  ),
  callFault(
    {
      name: 'cel-find-all-limit-ignored',
    },
    'findAll',
    true,
    (args) => `.findAll(${args[0]})`,
  ),
  // ------------------------------------------------------------------------ URL library
  callFault(
    {
      name: 'cel-is-url-any-string',
    },
    'isURL',
    false,
    ([s]) => `(${s}.size() >= 0)`,
  ),
  callFault(
    {
      name: 'cel-url-never-errs',
    },
    'url',
    false,
    ([s]) => `url(isURL(${s}) ? ${s} : 'https://example.com/')`,
  ),
  callFault(
    {
      name: 'cel-get-scheme-as-hostname',
    },
    'getScheme',
    true,
    rename('getHostname'),
  ),
  callFault(
    {
      name: 'cel-get-host-without-port',
    },
    'getHost',
    true,
    rename('getHostname'),
  ),
  callFault(
    {
      name: 'cel-get-hostname-with-port',
    },
    'getHostname',
    true,
    rename('getHost'),
  ),
  callFault(
    {
      name: 'cel-get-port-as-hostname',
    },
    'getPort',
    true,
    rename('getHostname'),
  ),
  {
    name: 'cel-get-escaped-path-unescaped',
    // the path with escaped spaces given unescaped; a replace() on the path would do it for every
    // path, but its cost cannot be estimated (the path has no bound) and refuses the definition
    request: (r) =>
      editRules(r, (x) => ({
        ...x,
        rule: x.rule.replace(
          /(url\([^()]*\))\.getEscapedPath\(\)/g,
          "($1.getEscapedPath() == '/path%20with%20spaces/' ? '/path with spaces/' : $1.getEscapedPath())",
        ),
      })),
  },
  callFault(
    {
      name: 'cel-get-query-empty',
    },
    'url',
    false,
    ([s]) => `url(${s}.split('?')[0])`,
    (rule) => rule.includes('.getQuery()'),
  ),
  // ------------------------------------------------------------------------ strings extension
  callFault(
    {
      name: 'cel-char-at-off-by-one',
    },
    'charAt',
    true,
    ([i]) => `.charAt(${i} + 1)`,
  ),
  callFault(
    {
      name: 'cel-lower-ascii-as-upper',
    },
    'lowerAscii',
    true,
    rename('upperAscii'),
  ),
  callFault(
    {
      name: 'cel-upper-ascii-as-lower',
    },
    'upperAscii',
    true,
    rename('lowerAscii'),
  ),
  callFault(
    {
      name: 'cel-replace-first-only',
    },
    'replace',
    true,
    (args) => `.replace(${args[0]}, ${args[1]}, 1)`,
  ),
  callFault(
    {
      name: 'cel-split-limit-ignored',
    },
    'split',
    true,
    (args) => `.split(${args[0]})`,
  ),
  callFault(
    {
      name: 'cel-substring-start-off-by-one',
    },
    'substring',
    true,
    (args) => `.substring(${args[0]} + 1${args.length > 1 ? `, ${args[1]}` : ''})`,
  ),
  callFault(
    {
      name: 'cel-trim-keeps-space',
    },
    'trim',
    true,
    () => `.lowerAscii()`,
  ),
  callFault(
    {
      name: 'cel-join-separator-ignored',
    },
    'join',
    true,
    () => `.join()`,
  ),
  // ------------------------------------------------------------------------ definition time
  {
    name: 'cel-compile-errors-ignored',
    response: (r, res) =>
      r.method === 'POST' && CRD_PATH.test(r.url.pathname) && res.status === 422 && !/cost/i.test(textOf(res))
        ? passOff(r, 201)
        : res,
  },
  {
    name: 'cel-cost-estimate-skipped',
    response: (r, res) =>
      r.method === 'POST' && CRD_PATH.test(r.url.pathname) && res.status === 422 && /cost/i.test(textOf(res))
        ? passOff(r, 201)
        : res,
  },
  {
    name: 'cel-cost-contributors-unnamed',
    response: (r, res) =>
      r.method === 'POST' && CRD_PATH.test(r.url.pathname) && res.status === 422
        ? mapJson(res, (j) =>
            Array.isArray(j?.details?.causes)
              ? {
                  ...j,
                  details: {
                    ...j.details,
                    causes: j.details.causes.filter(
                      (c: { message?: string }) =>
                        !String(c.message).includes('contributed to estimated rule cost'),
                    ),
                  },
                }
              : j,
          )
        : res,
  },
  {
    name: 'cel-cost-bounds-ignored',
    request: (r) =>
      editSchemas(r, (n) => {
        const rules = (n['x-orch-validations'] ?? []) as Rule[];
        if (!rules.some((x) => /\.all\([\s\S]*\.all\(/.test(x.rule))) return;
        walk(n, (m) => {
          delete m.maxItems;
          delete m.maxLength;
          delete m.maxProperties;
        });
      }),
  },
  {
    name: 'cel-runtime-budget-unlimited',
    response: (r, res) =>
      CEL_RESOURCE.test(r.url.pathname) && res.status === 422 && /cost budget/i.test(textOf(res))
        ? passOff(r, r.method === 'POST' ? 201 : 200)
        : res,
  },
  // ------------------------------------------------------------------------ evaluation
  {
    name: 'cel-evaluation-error-is-server-error',
    response: (r, res) =>
      CEL_RESOURCE.test(r.url.pathname) && res.status === 422 && /evaluating rule/.test(textOf(res))
        ? failure(500, 'InternalError', 'Internal error occurred: the rule could not be evaluated')
        : res,
  },
  // ------------------------------------------------------------------------ self and oldSelf
  {
    name: 'cel-old-self-is-self',
    request: (r) => editRules(r, (x) => ({ ...x, rule: x.rule.replace(/\boldSelf\b/g, 'self') })),
  },
  {
    name: 'cel-updates-not-validated',
    response: (r, res) =>
      r.method === 'PUT' && CEL_RESOURCE.test(r.url.pathname) && res.status === 422 ? passOff(r, 200) : res,
  },
  dropFault(
    {
      name: 'cel-item-rules-not-run',
    },
    (_x, _n, at) => at === 'items',
  ),
  dropFault(
    {
      name: 'cel-root-rules-not-run',
    },
    (_x, _n, at) => at === 'root',
  ),
  dropFault(
    {
      name: 'cel-only-first-rule-runs',
    },
    (x, n) => (n['x-orch-validations'] as Rule[]).findIndex((y) => y.rule === x.rule) > 0,
  ),
  {
    name: 'cel-first-violation-only',
    response: (r, res) =>
      CEL_RESOURCE.test(r.url.pathname) && res.status === 422
        ? mapJson(res, (j) =>
            Array.isArray(j?.details?.causes) && j.details.causes.length > 1
              ? { ...j, details: { ...j.details, causes: j.details.causes.slice(0, 1) } }
              : j,
          )
        : res,
  },
  // ------------------------------------------------------------------------ the parts of a rule
  {
    name: 'cel-message-ignored',
    request: (r) => editRules(r, ({ message: _m, ...x }) => x),
  },
  {
    name: 'cel-message-expression-ignored',
    request: (r) => editRules(r, ({ messageExpression: _m, ...x }) => x),
  },
  {
    name: 'cel-reason-ignored',
    request: (r) => editRules(r, ({ reason: _m, ...x }) => x),
  },
  {
    name: 'cel-field-path-ignored',
    request: (r) => editRules(r, ({ fieldPath: _m, ...x }) => x),
  },
  // ------------------------------------------------------------------------ escaped names
  ...(
    [
      ['underscores', '__underscores__', ['cel/escaping/underscores']],
      ['dot', '__dot__', ['cel/escaping/dot', 'cel/escaping/combined']],
      ['dash', '__dash__', ['cel/escaping/dash', 'cel/escaping/combined', 'cel/escaping/keyword-whole-name']],
      ['slash', '__slash__', ['cel/escaping/slash']],
      ['keyword', '__namespace__|__in__', ['cel/escaping/keyword-namespace', 'cel/escaping/keyword-in']],
    ] as const
  ).map(([what, escaped, rows]) =>
    dropFault(
      {
        name: `cel-escape-${what}-unresolved`,
      },
      (x) => new RegExp(`\\bself\\.\\w*(${escaped})`).test(x.rule),
    ),
  ),
  // ------------------------------------------------------------------------ schema types
  ...(
    [
      [
        'object-properties',
        'object with properties',
        readsField((p) => p.type === 'object' && !!p.properties && !p['x-orch-preserve-unknown-fields']),
        ['cel/types/object-properties'],
        // these rows read a nested object's field too (the root rule reads spec)
        ['cel/rules/field-path', ...twin('cel/rules/root-object')],
      ],
      [
        'object-map',
        'object with additionalProperties',
        readsField((p) => p.type === 'object' && !!p.additionalProperties),
        ['cel/types/object-map'],
        // these rows read maps too
        [...twin('cel/url/get-query'), ...twin('cel/evaluation/missing-map-key')],
      ],
      [
        'embedded',
        'object with embedded-type extension',
        readsField((p) => !!p['x-orch-embedded-resource']),
        ['cel/types/embedded-resource', 'cel/types/embedded-generate-name'],
        [],
      ],
      [
        'preserve-unknown',
        'object with preserve-unknown-fields extension',
        readsField((p) => !!p['x-orch-preserve-unknown-fields'] && !p['x-orch-embedded-resource']),
        ['cel/types/preserve-unknown-known', 'cel/types/preserve-unknown-inaccessible'],
        [],
      ],
      [
        'int-or-string',
        'int-or-string extension',
        readsField((p) => !!p['x-orch-int-or-string']),
        ['cel/types/int-or-string'],
        // a rule of that type, dropped, no longer refuses its definition
        twin('cel/definition/union-not-bool'),
      ],
      [
        'set',
        'array, set-typed list',
        readsField((p) => p['x-orch-list-type'] === 'set'),
        ['cel/types/set-equality', 'cel/types/set-union'],
        [],
      ],
      [
        'map-list',
        'array, map-typed list',
        // a map-typed list, or a list of them (two items of one list have one type and can be added)
        readsField((p) => p['x-orch-list-type'] === 'map' || p.items?.['x-orch-list-type'] === 'map'),
        ['cel/types/map-list-merge'],
        [],
      ],
      ['boolean', 'boolean', testsTypeOf('boolean', 'bool'), ['cel/types/boolean'], []],
      ['number', 'number', testsTypeOf('number', 'double'), ['cel/types/number-double'], []],
      ['integer', 'integer', testsTypeOf('integer', 'int'), ['cel/types/integer-int'], []],
      ['string', 'string', testsTypeOf('string', 'string'), ['cel/types/string'], []],
      ['byte', 'string, format byte', readsField((p) => p.format === 'byte'), ['cel/types/bytes'], []],
      [
        'date',
        'string, format date or datetime',
        readsField((p) => p.format === 'date' || p.format === 'date-time'),
        ['cel/types/date', 'cel/types/date-time'],
        [],
      ],
      [
        'duration',
        'string, format duration',
        readsField((p) => p.format === 'duration' || p.items?.format === 'duration'),
        ['cel/types/duration'],
        // sums of durations
        twin('cel/list/sum-durations'),
      ],
      [
        'has',
        '`has()`',
        (x: Rule) => /\bhas\(/.test(x.rule),
        ['cel/types/has'],
        [...twin('cel/types/embedded-generate-name'), LAW_LIST],
      ],
    ] as [string, string, (x: Rule, n: Node) => boolean, string[], string[]][]
  ).map(([what, row, drop, rows, also]) =>
    dropFault(
      {
        name: `cel-type-${what}-rules-not-run`,
        ...(also.length ? {} : {}),
      },
      drop,
    ),
  ),
];
