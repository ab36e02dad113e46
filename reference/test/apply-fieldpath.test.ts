// The field path, field set and typed-value modules of server-side apply, without a server:
// the fieldsV1 keys Kubernetes writes (`f:`, `k:`, `v:`, `i:`, `.`), the path form of
// conflicts, set algebra (checked as properties against a model of sets of path strings),
// and the typed walks (field sets of values, comparison, merge order of keyed lists).
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { comparePe, FieldSet, type Path, parsePeKey, pathString, peKey } from '../src/apply/fieldpath.ts';
import { compare } from '../src/apply/compare.ts';
import { identifier, managerFor } from '../src/apply/managed-fields.ts';
import { merge } from '../src/apply/merge.ts';
import { toFieldSet, TypedError } from '../src/apply/typed.ts';
import { keyedList, obj, setOf, str, int, mapOf, arr } from '../src/schema/dsl.ts';

const f = (field: string) => ({ field });

describe("path elements and paths (beyond the text: Kubernetes' fieldsV1 keys)", () => {
  it('writes field, key, value and index elements as Kubernetes does', () => {
    expect(peKey(f('replicas'))).toBe('f:replicas');
    expect(
      peKey({
        key: [
          ['containerPort', 80],
          ['protocol', 'TCP'],
        ],
      }),
    ).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(peKey({ value: 'example.com/x' })).toBe('v:"example.com/x"');
    expect(peKey({ value: 3 })).toBe('v:3');
    expect(peKey({ index: 2 })).toBe('i:2');
  });

  it('reads them back, sorting key fields by name', () => {
    expect(parsePeKey('k:{"protocol":"TCP","containerPort":80}')).toEqual({
      key: [
        ['containerPort', 80],
        ['protocol', 'TCP'],
      ],
    });
    expect(parsePeKey('v:true')).toEqual({ value: true });
    expect(parsePeKey('i:0')).toEqual({ index: 0 });
    expect(() => parsePeKey('x:1')).toThrow();
    expect(() => parsePeKey('i:-1')).toThrow();
    expect(() => parsePeKey('k:[1]')).toThrow();
  });

  it('prints a path as conflicts name it: `.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]`', () => {
    const p: Path = [
      f('spec'),
      f('containers'),
      { key: [['name', 'a']] },
      f('ports'),
      {
        key: [
          ['containerPort', 80],
          ['protocol', 'TCP'],
        ],
      },
    ];
    expect(pathString(p)).toBe('.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]');
    expect(pathString([f('metadata'), f('finalizers'), { value: 'x' }])).toBe('.metadata.finalizers[="x"]');
    expect(pathString([f('args'), { index: 1 }])).toBe('.args[1]');
  });
});

describe('fieldsV1', () => {
  it('a node that is a member and a parent carries `.`; entries are sorted (fields, keys, values, indices)', () => {
    const s = FieldSet.of(
      [f('data')],
      [f('data'), f('b')],
      [f('data'), f('a')],
      [f('list'), { index: 1 }],
      [f('list'), { value: 'x' }],
      [f('list'), { key: [['k', 'v']] }],
    );
    const v1 = s.toFieldsV1();
    expect(v1).toEqual({
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:list': { 'k:{"k":"v"}': {}, 'v:"x"': {}, 'i:1': {} },
    });
    expect(Object.keys(v1['f:data'] as object)).toEqual(['.', 'f:a', 'f:b']);
    expect(Object.keys(v1['f:list'] as object)).toEqual(['k:{"k":"v"}', 'v:"x"', 'i:1']);
    expect(FieldSet.fromFieldsV1(v1).equals(s)).toBe(true);
  });

  it('refuses malformed sets', () => {
    expect(() => FieldSet.fromFieldsV1([])).toThrow();
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow();
    expect(() => FieldSet.fromFieldsV1({ 'q:a': {} })).toThrow();
  });
});

// ------------------------------------------------------------------ set algebra as properties

const segment = fc.oneof(
  fc.constantFrom('a', 'b', 'c').map((x): Path[number] => f(x)),
  fc.constantFrom('x', 'y').map((x): Path[number] => ({ value: x })),
  fc.constantFrom(1, 2).map((n): Path[number] => ({ key: [['id', n]] })),
);
const pathArb = fc.array(segment, { minLength: 1, maxLength: 3 });
const pathsArb = fc.array(pathArb, { maxLength: 8 });
const text = (p: Path) => p.map(peKey).join('/');
const model = (ps: Path[]) => new Set(ps.map(text));
const members = (s: FieldSet) => new Set(s.paths().map(text));

describe('set algebra: properties against a model of member paths (seed and path printed on failure)', () => {
  fcTest.prop([pathsArb])('fieldsV1 round-trips every set', (ps) => {
    const s = FieldSet.of(...ps);
    expect(members(FieldSet.fromFieldsV1(s.toFieldsV1()))).toEqual(model(ps));
  });

  fcTest.prop([pathsArb, pathsArb])(
    'union, intersection and difference are those of the member paths',
    (a, b) => {
      const sa = FieldSet.of(...a);
      const sb = FieldSet.of(...b);
      const ma = model(a);
      const mb = model(b);
      expect(members(sa.union(sb))).toEqual(new Set([...ma, ...mb]));
      expect(members(sa.intersection(sb))).toEqual(new Set([...ma].filter((x) => mb.has(x))));
      expect(members(sa.difference(sb))).toEqual(new Set([...ma].filter((x) => !mb.has(x))));
    },
  );

  fcTest.prop([pathsArb, pathsArb])(
    'recursive difference also drops what lies below a removed member',
    (a, b) => {
      const mb = model(b);
      const kept = [...model(a)].filter((x) => {
        const parts = x.split('/');
        for (let i = 1; i <= parts.length; i++) if (mb.has(parts.slice(0, i).join('/'))) return false;
        return true;
      });
      expect(members(FieldSet.of(...a).recursiveDifference(FieldSet.of(...b)))).toEqual(new Set(kept));
    },
  );
});

// ------------------------------------------------------------------ typed values

const port = obj({ containerPort: int(), protocol: str({ default: 'TCP' }), name: str() });
const schema = obj({
  spec: obj({
    ports: keyedList(port, ['containerPort', 'protocol']),
    tags: setOf(str()),
    args: arr(str()),
    labels: mapOf(str()),
    selector: obj({ a: str() }, { 'x-orch-map-type': 'atomic' }),
  }),
});

describe('typed values', () => {
  it('the field set of an intent: leaves, keyed items (missing keys from defaults), set values, atomic lists whole', () => {
    const v = {
      spec: {
        ports: [{ containerPort: 80 }],
        tags: ['t'],
        args: ['x', 'y'],
        labels: { l: 'v' },
        selector: { a: '1' },
      },
    };
    expect(toFieldSet(v, schema, true).toFieldsV1()).toEqual({
      'f:spec': {
        'f:args': {},
        'f:labels': { 'f:l': {} },
        'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
        'f:selector': {},
        'f:tags': { 'v:"t"': {} },
      },
    });
  });

  it('refuses duplicate items and keyed items without their keys in an intent', () => {
    expect(() => toFieldSet({ spec: { tags: ['a', 'a'] } }, schema, true)).toThrow(TypedError);
    expect(() => toFieldSet({ spec: { tags: ['a', 'a'] } }, schema, true)).toThrow(
      '.spec.tags: duplicate entries for key [="a"]',
    );
    const noKey = keyedList(obj({ name: str() }), ['name']);
    expect(() => toFieldSet({ l: [{}] }, obj({ l: noKey }), true)).toThrow(
      '.l: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });

  it('compare: a created map is added itself and with its entries; a changed leaf is modified; a dropped item removed', () => {
    const c = compare(
      { spec: { ports: [{ containerPort: 80, protocol: 'TCP' }], tags: ['a'] } },
      { spec: { tags: ['a', 'b'], labels: { x: '1' }, ports: [] } },
      schema,
    );
    expect(c.added.toFieldsV1()).toEqual({
      'f:spec': { 'f:labels': { '.': {}, 'f:x': {} }, 'f:tags': { 'v:"b"': {} } },
    });
    expect(c.removed.toFieldsV1()).toEqual({
      'f:spec': {
        'f:ports': {
          'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
        },
      },
    });
    expect(c.modified.isEmpty()).toBe(true);
  });

  it('merge: leaves and atomic lists from the intent, maps by key, sets and keyed lists by item', () => {
    const live = { spec: { args: ['a'], labels: { x: '1' }, tags: ['a', 'b'], selector: { a: '1' } } };
    const intent = { spec: { args: ['b'], labels: { y: '2' }, tags: ['c'], selector: {} } };
    expect(merge(live, intent, schema)).toEqual({
      spec: { args: ['b'], labels: { x: '1', y: '2' }, tags: ['a', 'b', 'c'], selector: {} },
    });
  });

  it('merge order of a set: items of the intent in its order, the others kept where they were', () => {
    // structured-merge-diff: an item only on the left stays in place, shared items follow the intent
    expect(merge({ t: ['a', 'b', 'c'] }, { t: ['c', 'a'] }, obj({ t: setOf(str()) }))).toEqual({
      t: ['b', 'c', 'a'],
    });
    expect(merge({ t: ['a', 'b'] }, { t: ['x', 'a'] }, obj({ t: setOf(str()) }))).toEqual({
      t: ['x', 'a', 'b'],
    });
  });
});

describe('managedFields entry identity', () => {
  // Kubernetes keys an entry by the JSON of {manager, operation, apiVersion (Update only), subresource}, empty ones left out
  fcTest.prop([fc.string(), fc.constantFrom('Apply' as const, 'Update' as const), fc.string(), fc.string()])(
    'is the JSON of the identifying fields that are set',
    (manager, operation, apiVersion, subresource) => {
      const id: Record<string, string> = {};
      if (manager) id.manager = manager;
      id.operation = operation;
      if (operation === 'Update' && apiVersion) id.apiVersion = apiVersion;
      if (subresource) id.subresource = subresource;
      expect(identifier({ manager, operation, apiVersion, subresource })).toBe(JSON.stringify(id));
    },
  );
});

describe('fieldsV1 key order', () => {
  const name = fc.oneof(
    fc.constantFrom('a', 'B', 'b', 'aa', 'é', '\u{1F600}', '\uFF5E', 'z'),
    fc.string({ maxLength: 3 }),
  );
  const element = fc.oneof(
    { weight: 4, arbitrary: name.map((field): Path[number] => ({ field })) },
    fc.constantFrom('x', 'y').map((x): Path[number] => ({ value: x })),
    fc.integer({ min: 0, max: 3 }).map((index): Path[number] => ({ index })),
  );
  // structured-merge-diff writes each level's keys in its path element order (fields by name, in code point order)
  fcTest.prop([fc.array(fc.array(element, { minLength: 1, maxLength: 3 }), { maxLength: 12 })])(
    "follows the path elements' order at every level",
    (paths) => {
      const check = (o: Record<string, unknown>) => {
        const keys = Object.keys(o).filter((k) => k !== '.');
        for (let i = 1; i < keys.length; i++)
          expect(comparePe(parsePeKey(keys[i - 1]!), parsePeKey(keys[i]!))).toBeLessThan(0);
        for (const k of keys) check(o[k] as Record<string, unknown>);
      };
      check(FieldSet.of(...paths).toFieldsV1());
    },
  );
});

describe('the manager of a non-apply write', () => {
  // Kubernetes: the User-Agent before its first '/', unprintable characters (Go's unicode.IsPrint) dropped, cut at 128 bytes
  const model = (ua: string) => {
    let out = '';
    for (const ch of ua.split('/')[0]!) {
      if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) continue;
      if (Buffer.byteLength(out + ch) > 128) break;
      out += ch;
    }
    return out;
  };
  fcTest.prop([
    fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 150 }),
      fc.string({ unit: 'binary', maxLength: 150 }),
      // long ones, around the byte limit
      fc
        .tuple(fc.integer({ min: 100, max: 200 }), fc.constantFrom('a', 'é', '😀', ' ', '\u0007', '~'))
        .map(([n, ch]) => ch.repeat(n)),
    ),
  ])('is the User-Agent up to its first slash, printable and within 128 bytes', (ua) => {
    expect(managerFor(undefined, ua)).toBe(model(ua));
  });
});
