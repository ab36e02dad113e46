// The ownership a create records from no entries (recordCreate, the path every create without
// managedFields takes) is the general Update bookkeeping's answer (recordUpdate from the kind's
// zero object and no entries), for every built-in kind and for objects with any content.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { encodeManagedFields } from '../src/apply/managed-fields.ts';
import { recordCreate, recordUpdate } from '../src/apply/updater.ts';
import { resetFields, zeroObject } from '../src/registry/field-manager.ts';
import { builtinKinds } from '../src/registry/kinds/index.ts';
import type { Registry } from '../src/registry/registry.ts';
import { schemaFor } from '../src/registry/types.ts';

const defs = builtinKinds(() => ({}) as Registry);
/** `group/kind/version` of every built-in kind's versions (the name a failing run prints). */
const kinds = defs.flatMap((def) => def.versions.map((v) => `${def.group}/${def.kind}/${v}`));
const kindOf = (k: string) => {
  const [group, kind, version] = k.split('/');
  return { def: defs.find((d) => d.group === group && d.kind === kind)!, version: version! };
};

// values shaped like objects of any kind: known field names of common kinds, keyed list
// items, sets, and free JSON, nested
const names = fc.constantFrom(
  'spec',
  'status',
  'metadata',
  'labels',
  'annotations',
  'finalizers',
  'containers',
  'ports',
  'name',
  'image',
  'containerPort',
  'protocol',
  'template',
  'replicas',
  'selector',
  'matchLabels',
  'data',
  'rules',
  'x',
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.dictionary(names, tie('value'), { maxKeys: 4 }),
    fc.array(
      fc.oneof(
        fc.record({
          name: fc.constantFrom('a', 'b'),
          containerPort: fc.constantFrom(80, 443),
          x: tie('value'),
        }),
        fc.constantFrom('a', 'b', 1),
      ),
      { maxLength: 3 },
    ),
  ),
}));

describe("ownership of a create (beyond the text: the fast path of Kubernetes' Update bookkeeping)", () => {
  fcTest.prop(
    [
      fc.constantFrom(...kinds),
      fc.dictionary(names, value, { maxKeys: 5 }),
      fc.dictionary(fc.constantFrom('name', 'labels', 'annotations', 'finalizers', 'uid'), value, {
        maxKeys: 3,
      }),
    ],
    { numRuns: 1000 },
  )('is what the general bookkeeping records from the zero object', (k, body, meta) => {
    const { def, version } = kindOf(k);
    const obj = { apiVersion: 'v1', kind: def.kind, ...body, metadata: { ...meta, name: 'n' } };
    const w = {
      schema: schemaFor(def, version),
      apiVersion: version,
      subresource: '',
      ignored: resetFields(def, ''),
      now: '2026-11-30T00:00:00Z',
    };
    const zero = zeroObject(def, version);
    const fast = recordCreate(zero, obj, 'writer', w);
    const general = encodeManagedFields(recordUpdate(zero, obj, new Map(), 'writer', w));
    expect(fast).toEqual(general);
  });
});
