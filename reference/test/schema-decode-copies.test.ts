// What the schema decode copies. A body just parsed (owned) is kept where nothing is dropped,
// and only the objects and lists on the way to a dropped field are new; any other value (a
// patched object that may share parts with a stored one) comes back sharing nothing with its
// input. Both give the same value and the same findings.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { builtinSchema } from '../src/schema/builtin.ts';
import { decodeWithSchema } from '../src/schema/decode.ts';
import type { Schema } from '../src/schema/types.ts';

const deployment = builtinSchema('apps/v1', 'Deployment');

/** Every object and array inside `v`, the top included. */
function containers(v: unknown, out = new Set<object>()): Set<object> {
  if (v !== null && typeof v === 'object') {
    out.add(v);
    for (const c of Object.values(v)) containers(c, out);
  }
  return out;
}

const body = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels: { app: 'a' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'a' } },
    template: {
      metadata: { labels: { app: 'a' } },
      spec: {
        containers: [
          { name: 'c', image: 'i', ports: [{ containerPort: 80 }] },
          { name: 'd', image: 'j' },
        ],
      },
    },
  },
});

describe('schema decode: what is copied', () => {
  it('an owned body with nothing to drop comes back as it is', () => {
    const b = body();
    const r = decodeWithSchema(b, deployment, true);
    expect(r.unknown).toEqual([]);
    expect(r.value).toBe(b);
  });

  it('an owned body with a field to drop: new objects on the way to it, the rest kept', () => {
    const b = body() as any;
    b.spec.template.spec.containers[1].bogus = 1;
    const before = structuredClone(b);
    const r = decodeWithSchema(b, deployment, true);
    const v = r.value as any;
    expect(r.unknown).toEqual(['spec.template.spec.containers[1].bogus']);
    // the input is left as it was
    expect(b).toEqual(before);
    // the way down is new
    for (const [got, was] of [
      [v, b],
      [v.spec, b.spec],
      [v.spec.template, b.spec.template],
      [v.spec.template.spec, b.spec.template.spec],
      [v.spec.template.spec.containers, b.spec.template.spec.containers],
      [v.spec.template.spec.containers[1], b.spec.template.spec.containers[1]],
    ])
      expect(got).not.toBe(was);
    // what is beside it is kept
    expect(v.metadata).toBe(b.metadata);
    expect(v.spec.selector).toBe(b.spec.selector);
    expect(v.spec.template.metadata).toBe(b.spec.template.metadata);
    expect(v.spec.template.spec.containers[0]).toBe(b.spec.template.spec.containers[0]);
    expect(v.spec.template.spec.containers[1]).toEqual({ name: 'd', image: 'j' });
  });

  it('a value not owned comes back sharing no object or list with its input', () => {
    const b = body();
    const r = decodeWithSchema(b, deployment);
    expect(r.value).toEqual(b);
    const mine = containers(b);
    for (const c of containers(r.value)) expect(mine.has(c)).toBe(false);
  });

  // values shaped like a Deployment's, with unknown and wrongly typed fields among them
  const names = fc.constantFrom(
    'spec',
    'template',
    'containers',
    'name',
    'image',
    'ports',
    'metadata',
    'labels',
    'x',
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue({ maxDepth: 1 }),
      fc.dictionary(names, tie('value'), { maxKeys: 4 }),
      fc.array(tie('value'), { maxLength: 3 }),
    ),
  }));
  const objects = fc.dictionary(names, value, { maxKeys: 5 });

  fcTest.prop([objects], { numRuns: 500 })(
    'owned or not, the same value and findings; owned leaves its input as it was',
    (o) => {
      const schema: Schema = deployment;
      const copied = decodeWithSchema(structuredClone(o), schema);
      const input = structuredClone(o);
      const kept = decodeWithSchema(input, schema, true);
      expect(kept.value).toEqual(copied.value);
      expect(kept.unknown).toEqual(copied.unknown);
      expect(kept.typeErrors).toEqual(copied.typeErrors);
      expect(input).toEqual(o);
    },
  );
});
