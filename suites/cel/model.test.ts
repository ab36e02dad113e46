// doc2 § Expression language inputs, property-based: for random lists of ints and random strings,
// the list functions (indexOf, lastIndexOf, min, max, sum, isSorted) and the regex functions (find,
// findAll with and without a limit, matches) agree with a model written here. Each run creates an
// object that carries the model's values (its rules compare each function's result with them: it
// must be accepted) and one with a single value made wrong (it must be refused).
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';
import { type Definition, useDefinition } from './definition.ts';

const RUNS = 25;

const LIST_PLACE =
  'Libraries: the community libraries, plus: list (`indexOf`, `lastIndexOf`, `min`, `max`, `sum` over numbers and durations, `isSorted`)';
const REGEX_PLACE = 'Libraries: ... regex (`find`, `findAll`, in addition to `matches`)';

const int = { type: 'integer' };
const str = (n: number) => ({ type: 'string', maxLength: n });
const strs = { type: 'array', maxItems: 24, items: str(24) };
const rule = (r: string, message: string) => ({ rule: r, message });

/** spec.list and spec.regex: the inputs, each function's expected result, and a rule per function. */
const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        list: {
          type: 'object',
          properties: {
            xs: { type: 'array', maxItems: 16, items: int },
            x: int,
            indexOf: int,
            lastIndexOf: int,
            min: int,
            max: int,
            sum: int,
            isSorted: { type: 'boolean' },
          },
          'x-orch-validations': [
            rule('self.xs.indexOf(self.x) == self.indexOf', 'indexOf'),
            rule('self.xs.lastIndexOf(self.x) == self.lastIndexOf', 'lastIndexOf'),
            rule('has(self.min) ? self.xs.min() == self.min : self.xs.size() == 0', 'min'),
            rule('has(self.max) ? self.xs.max() == self.max : self.xs.size() == 0', 'max'),
            rule('self.xs.sum() == self.sum', 'sum'),
            rule('self.xs.isSorted() == self.isSorted', 'isSorted'),
          ],
        },
        regex: {
          type: 'object',
          properties: {
            s: str(24),
            re: str(12),
            n: int,
            find: str(24),
            findAll: strs,
            findAllN: strs,
            matches: { type: 'boolean' },
          },
          'x-orch-validations': [
            rule('self.s.find(self.re) == self.find', 'find'),
            rule('self.s.findAll(self.re) == self.findAll', 'findAll'),
            rule('self.s.findAll(self.re, self.n) == self.findAllN', 'findAll with a limit'),
            rule('self.s.matches(self.re) == self.matches', 'matches'),
          ],
        },
      },
    },
  },
};

// ------------------------------------------------------------------------------ the model

type Values = Record<string, unknown>;

function listModel(xs: number[], x: number): Values {
  const out: Values = {
    xs,
    x,
    indexOf: xs.indexOf(x),
    lastIndexOf: xs.lastIndexOf(x),
    sum: xs.reduce((a, b) => a + b, 0),
    isSorted: xs.every((v, i) => i === 0 || xs[i - 1]! <= v),
  };
  // min and max of an empty list are errors: the object leaves them out
  if (xs.length) {
    out.min = Math.min(...xs);
    out.max = Math.max(...xs);
  }
  return out;
}

/** The patterns (RE2 and JavaScript agree on them; none matches the empty string). */
const PATTERNS = ['[0-9]+', 'ab', 'a+b?', '[xz]', '^a', 'b$', '[a-b]{2}', '0|1', 'x[0-9]*'];

function regexModel(s: string, re: string, n: number): Values {
  const all = [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]);
  return {
    s,
    re,
    n,
    find: all[0] ?? '',
    findAll: all,
    findAllN: n < 0 ? all : all.slice(0, n),
    matches: new RegExp(re).test(s),
  };
}

/** The same values with one made wrong (a value no function gives for these inputs). */
function spoil(v: Values, key: string): Values {
  const w = v[key];
  const bad =
    typeof w === 'boolean'
      ? !w
      : typeof w === 'number'
        ? w + 1
        : typeof w === 'string'
          ? `${w}q`
          : Array.isArray(w)
            ? [...w, 'q']
            : 0; // min or max of an empty list: present, so the rule calls it and fails
  return { ...v, [key]: bad };
}

// ------------------------------------------------------------------------------ generators

const listArb = fc
  .array(fc.integer({ min: -50, max: 50 }), { maxLength: 8 })
  .chain((xs) =>
    fc.tuple(
      fc.constant(xs),
      xs.length
        ? fc.oneof(fc.constantFrom(...xs), fc.integer({ min: -50, max: 50 }))
        : fc.integer({ min: -50, max: 50 }),
    ),
  )
  .chain(([xs, x]) =>
    fc.record({
      values: fc.constant(listModel(xs, x)),
      spoiled: fc.constantFrom('indexOf', 'lastIndexOf', 'min', 'max', 'sum', 'isSorted'),
    }),
  );

const regexArb = fc
  .tuple(
    fc.string({ unit: fc.constantFrom('a', 'b', '0', '1', 'x', ' '), maxLength: 16 }),
    fc.constantFrom(...PATTERNS),
    fc.constantFrom(-1, 1, 2, 3),
  )
  .chain(([s, re, n]) =>
    fc.record({
      values: fc.constant(regexModel(s, re, n)),
      spoiled: fc.constantFrom('find', 'findAll', 'findAllN', 'matches'),
    }),
  );

// ------------------------------------------------------------------------------ the law

async function agrees(
  t: CaseContext,
  def: Definition,
  ns: string,
  part: 'list' | 'regex',
  sample: { values: Values; spoiled: string },
  ran: { writes: number },
): Promise<void> {
  if (def.unavailable) t.skip(def.unavailable);
  check(!def.refused, 'the definition served (its rules are valid)', def.refused, 'setup');
  const post = (values: Values) => {
    const name = uniqueName('law');
    return {
      name,
      res: t.client.post(def.collection(ns), {
        apiVersion: def.apiVersion,
        kind: def.kind,
        metadata: { name },
        spec: { [part]: values },
      }),
    };
  };
  const good = post(sample.values);
  const r = await good.res;
  ran.writes++;
  check(
    r.status >= 200 && r.status < 300,
    `accepted (2xx): every value is the model's ${show(sample.values)}`,
    r.describe(),
    `spec.${part} carries each function's result as the model computes it`,
  );
  const bad = spoil(sample.values, sample.spoiled);
  const wrong = post(bad);
  const w = await wrong.res;
  ran.writes++;
  check(
    w.status >= 400 && w.status < 500,
    `refused (4xx): ${sample.spoiled} is ${show(bad[sample.spoiled])}, the model gives ${show(sample.values[sample.spoiled])}`,
    w.describe(),
    `spec.${part} with the result of ${sample.spoiled} made wrong`,
  );
  const stored = await t.client.get(def.one(ns, wrong.name));
  check(
    stored.status === 404,
    'no object stored by the refused create',
    stored.describe(),
    'a refused create',
  );
}

describe('cel: library functions against a model (property-based)', () => {
  const ns = useNamespace('cel-law');
  const def = useDefinition('law', () => SCHEMA);

  const law = async (t: CaseContext, part: 'list' | 'regex') => {
    const ran = { writes: 0 };
    const arb = part === 'list' ? listArb : regexArb;
    await fc.assert(
      fc.asyncProperty(arb, (sample) => agrees(t, def, ns.name, part, sample, ran)),
      propertySettings(RUNS),
    );
    check(
      ran.writes > 0,
      'writes sent to the server',
      `${ran.writes}`,
      'a property that sent nothing proves nothing',
    );
  };

  conformance(
    {
      id: 'cel/law/list-functions',
      title:
        'Law (list library): for any list of ints and any value, indexOf, lastIndexOf, min, max, sum and isSorted give what the model gives, and a wrong result is refused',
      doc: 2,
      section: 'Expression language inputs',
      place: LIST_PLACE,
      specRules: ['doc2/expression-language-inputs/libraries-community-libraries-plus-list-indexof'],
      level: 'MUST',
    },
    (t) => law(t, 'list'),
    { timeout: 180_000 },
  );

  conformance(
    {
      id: 'cel/law/regex-functions',
      title:
        'Law (regex library): for any string and pattern, find, findAll (with and without a limit) and matches give what the model gives, and a wrong result is refused',
      doc: 2,
      section: 'Expression language inputs',
      place: REGEX_PLACE,
      specRules: ['doc2/expression-language-inputs/libraries-community-libraries-plus-list-indexof'],
      level: 'MUST',
    },
    (t) => law(t, 'regex'),
    { timeout: 180_000 },
  );
});
