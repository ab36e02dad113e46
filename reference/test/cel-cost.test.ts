// Expression cost (doc2 "Limits", Kubernetes 1.28's units): a comparison costs 1, reading a
// variable or a field 1, a list literal a base of 40, a regular expression the product of the
// pattern length (x 0.25) and the input length (x 0.1); the static estimate takes lengths from
// maxLength (4 bytes a character) / maxItems, or from the 3 MiB request limit when unbounded, as
// Kubernetes 1.28 does; the runtime count uses the actual values.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/cel/compile.ts';
import { newEnvironment } from '../src/cel/environment.ts';
import { CostTracker } from '../src/cel/runtime-cost.ts';
import { declare, type MessageDeclaration } from '../src/cel/types.ts';
import { toCel } from '../src/cel/values.ts';
import type { ValueSchema } from '../src/schema/validate.ts';

const schema: ValueSchema = {
  type: 'object',
  properties: {
    a: { type: 'integer' },
    s: { type: 'string', maxLength: 100 },
    free: { type: 'string' },
    xs: { type: 'array', maxItems: 20, items: { type: 'integer' } },
  },
};

function program(rule: string) {
  const out: MessageDeclaration[] = [];
  const decl = declare(schema, 'Cost', out);
  const env = newEnvironment();
  for (const m of out) env.registerType(m.name, { ctor: m.ctor, fields: m.fields });
  env.registerVariable('self', decl.name);
  const c = compile(env, rule, new Map([['self', decl]]));
  if ('error' in c) throw new Error(c.error);
  return { p: c.program, decl };
}

function runtime(rule: string, value: Record<string, unknown>): number {
  const { p, decl } = program(rule);
  const t = new CostTracker(1_000_000);
  p.evaluate({ self: toCel(value, decl) }, t);
  return t.cost;
}

describe('static estimate', () => {
  it('a comparison costs 1, a variable and a field 1 each', () => {
    expect(program('self.a < 1').p.estimatedCost).toBe(3);
  });

  it('an equality costs by the size of its smaller side: 0 for a number read from the object (Kubernetes sizes it 0)', () => {
    expect(program('self.a == 1').p.estimatedCost).toBe(2);
    // 1 per 10 bytes of the shorter side: the literal
    expect(program("self.s == 'abc'").p.estimatedCost).toBe(3);
  });

  it('a list literal costs its base of 40', () => {
    expect(program('[1, 2, 3].size() == 3').p.estimatedCost).toBe(42);
  });

  it('a regex costs pattern length x 0.25 times input length x 0.1, from maxLength', () => {
    // maxLength 100 is 400 bytes: ceil((1 + 400) * 0.1) = 41, ceil(6 * 0.25) = 2
    expect(program("self.s.matches('[a-z]+')").p.estimatedCost).toBe(2 + 41 * 2);
  });

  it('an unbounded string takes its length from the 3 MiB request limit', () => {
    const bounded = program("self.s.matches('[a-z]+')").p.estimatedCost;
    const unbounded = program("self.free.matches('[a-z]+')").p.estimatedCost;
    // ceil((1 + 3 MiB - 2) * 0.1) * 2
    expect(unbounded).toBe(2 + Math.ceil((1 + 3 * 1024 * 1024 - 2) * 0.1) * 2);
    expect(unbounded).toBeGreaterThan(bounded);
  });

  it('a comprehension costs its body once per element of the largest list', () => {
    const one = program('self.xs.all(x, x > 0)').p.estimatedCost;
    const nested = program('self.xs.all(x, self.xs.all(y, x != y || x == y))').p.estimatedCost;
    expect(nested).toBeGreaterThan(one * 20);
  });
});

describe('runtime count', () => {
  it('counts the actual sizes: a 9-character input to a regex', () => {
    // ceil((1 + 9) * 0.1) = 1 times ceil(6 * 0.25) = 2, plus self and .s
    expect(runtime("self.s.matches('[a-z]+')", { s: 'abcdefghi' })).toBe(2 + 2);
  });

  it('counts each element a comprehension visits', () => {
    const none = runtime('self.xs.all(x, x > 0)', { xs: [] });
    const three = runtime('self.xs.all(x, x > 0)', { xs: [1, 2, 3] });
    const six = runtime('self.xs.all(x, x > 0)', { xs: [1, 2, 3, 4, 5, 6] });
    // each element: the variable x (1), the comparison (1), and what cel-go counts for the
    // expanded macro's iteration: the accumulator read twice and the loop condition (3)
    expect(three - none).toBe(3 * 5);
    expect(six - none).toBe(6 * 5);
  });

  it('stops an evaluation over its limit', () => {
    const { p, decl } = program('self.xs.all(x, self.xs.all(y, x != y || x == y))');
    const t = new CostTracker(50);
    expect(() =>
      p.evaluate({ self: toCel({ xs: Array.from({ length: 20 }, (_, i) => i) }, decl) }, t),
    ).toThrow('operation cancelled: actual cost limit exceeded');
  });
});
