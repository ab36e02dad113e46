// Bad expressions never crash the engine (doc2: bounded cost; the project's rule: bad input
// gets a clear error, never a 500): any text of the language's tokens either fails to compile
// with an error text, or compiles and then evaluates to a value or fails with an evaluation
// error or the cost limit, on a value of the schema's type.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { compile, EvaluationFailure } from '../src/cel/compile.ts';
import { newEnvironment } from '../src/cel/environment.ts';
import { CostLimitError } from '../src/cel/errors.ts';
import { CostTracker } from '../src/cel/runtime-cost.ts';
import { declare, type MessageDeclaration } from '../src/cel/types.ts';
import { toCel } from '../src/cel/values.ts';
import type { ValueSchema } from '../src/schema/validate.ts';

const schema: ValueSchema = {
  type: 'object',
  properties: {
    n: { type: 'integer' },
    s: { type: 'string', maxLength: 20 },
    xs: { type: 'array', maxItems: 5, items: { type: 'integer' } },
    m: {
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 5 },
      maxProperties: 3,
    } as ValueSchema,
    d: { type: 'string', format: 'duration' },
  },
};
const out: MessageDeclaration[] = [];
const decl = declare(schema, 'Fuzz', out);
const env = newEnvironment();
for (const m of out) env.registerType(m.name, { ctor: m.ctor, fields: m.fields });
env.registerVariable('self', decl.name);
const value = toCel({ n: 0, s: 'abc', xs: [1, 2, 3], m: { a: 'b' }, d: '1s' }, decl);

const TOKENS = [
  'self',
  '.n',
  '.s',
  '.xs',
  '.m',
  '.d',
  '.nope',
  '[0]',
  '[9]',
  "['a']",
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '?',
  '+',
  '-',
  '*',
  '/',
  '%',
  '==',
  '!=',
  '<',
  '>=',
  '&&',
  '||',
  '!',
  'in',
  '0',
  '1',
  '9223372036854775807',
  '1.5',
  "'x'",
  'b"y"',
  'true',
  'null',
  '.size()',
  '.all(x, x > 0)',
  '.exists(x, x == 1)',
  '.map(x, x * 2)',
  ".matches('[a-z]+')",
  ".find('a')",
  '.min()',
  '.sum()',
  '.indexOf(1)',
  "url('https://a.b/c')",
  '.getHost()',
  "duration('1h')",
  "timestamp('2020-01-01T00:00:00Z')",
  'has(',
  'int(',
  'string(',
  'size(',
  'dyn(',
  "'%d'.format([1])",
  '.lowerAscii()',
  ".split(',')",
];

describe('bad expressions', () => {
  fcTest.prop([fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 12 })], { numRuns: 600 })(
    'compile to an error or evaluate to a value, an evaluation error or the cost limit',
    (tokens) => {
      const source = tokens.join(' ');
      const c = compile(env, source, new Map([['self', decl]]));
      if ('error' in c) {
        expect(c.error).toMatch(/^ERROR: <input>:\d+:\d+: /);
        return;
      }
      try {
        c.program.evaluate({ self: value }, new CostTracker(10_000));
      } catch (e) {
        expect(e instanceof EvaluationFailure || e instanceof CostLimitError, `${source}: ${e}`).toBe(true);
      }
    },
  );
});
