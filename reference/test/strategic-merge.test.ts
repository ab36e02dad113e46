// Strategic merge patch: table-driven unit cases whose expected results were worked out by
// hand from Kubernetes' documented semantics (the "Update API Objects in Place Using
// kubectl patch" task page, the strategic-merge-patch and preserve-order design notes),
// checked a second time against Kubernetes' own implementation through `kubectl patch
// --local` (kubectl is required: kubectl-bin.ts), then over HTTP on ConfigMaps, Pods and a
// Pod-shaped test kind.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusError } from '../src/errors/status.ts';
import { applyStrategicMergePatch } from '../src/patch/strategic.ts';
import { objectSchema } from '../src/schema/meta.ts';
import { configMap, makeNamespace, startServer, type TestServer, uniqueName } from './helpers.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';
import { WIDGETS, widget, widgetDef, widgetSchema } from './patch-kinds.ts';

type J = Record<string, unknown>;

const c = (name: string, extra: J = {}) => ({ name, ...extra });
const spec = (s: J) => ({ spec: s });

interface Case {
  name: string;
  original: J;
  patch: J;
  expected: J;
}

const cases: Case[] = [
  // ---- maps
  {
    name: 'maps merge key by key; null deletes a key',
    original: { metadata: { labels: { a: '1', b: '2' }, annotations: { x: 'y' } } },
    patch: { metadata: { labels: { b: '3', c: '4', a: null } } },
    expected: { metadata: { labels: { b: '3', c: '4' }, annotations: { x: 'y' } } },
  },
  {
    name: 'null for a key that is not there changes nothing',
    original: { metadata: { labels: { a: '1' } } },
    patch: { metadata: { labels: { zz: null } } },
    expected: { metadata: { labels: { a: '1' } } },
  },
  {
    name: 'a new map is added without the nulls it carries',
    original: { metadata: { name: 'w' } },
    patch: spec({ nodeSelector: { a: '1', b: null } }),
    expected: { metadata: { name: 'w' }, spec: { nodeSelector: { a: '1' } } },
  },
  {
    name: 'null on a whole map removes it',
    original: spec({ nodeSelector: { a: '1' }, tolerations: [] }),
    patch: spec({ nodeSelector: null }),
    expected: spec({ tolerations: [] }),
  },
  {
    name: '$patch: replace in a map takes the map as sent',
    original: spec({ nodeSelector: { a: '1', b: '2' } }),
    patch: spec({ nodeSelector: { $patch: 'replace', z: '9' } }),
    expected: spec({ nodeSelector: { z: '9' } }),
  },
  {
    // Kubernetes 1.28 drops such a map altogether (any new value carrying $patch is removed);
    // the directive says "take this map as sent", which is what is done here
    name: '$patch: replace on a map the object lacks takes it as sent (absent map with replace)',
    original: spec({ tolerations: [] }),
    patch: spec({ nodeSelector: { $patch: 'replace', z: '9' } }),
    expected: spec({ tolerations: [], nodeSelector: { z: '9' } }),
  },
  {
    name: '$patch: delete in a map removes the map',
    original: spec({ nodeSelector: { a: '1' }, tolerations: [{ key: 'k' }] }),
    patch: spec({ nodeSelector: { $patch: 'delete' } }),
    expected: spec({ tolerations: [{ key: 'k' }] }),
  },
  {
    name: 'a map field with patch strategy replace is replaced whole',
    original: spec({ atomicMap: { a: '1', b: '2' } }),
    patch: spec({ atomicMap: { b: '3' } }),
    expected: spec({ atomicMap: { b: '3' } }),
  },
  {
    name: 'scalars are replaced',
    original: spec({ strategy: { type: 'Recreate' } }),
    patch: spec({ strategy: { type: 'RollingUpdate' } }),
    expected: spec({ strategy: { type: 'RollingUpdate' } }),
  },
  {
    name: 'a value of another type replaces the original',
    original: spec({ extra: { a: [1, 2] } }),
    patch: spec({ extra: { a: { b: 1 } } }),
    expected: spec({ extra: { a: { b: 1 } } }),
  },
  // ---- lists of objects with patch strategy merge
  {
    name: 'containers merge by name: the matching item is merged',
    original: spec({ containers: [c('a', { image: 'a1' }), c('b', { image: 'b1', args: ['x'] })] }),
    patch: spec({ containers: [c('b', { image: 'b2' })] }),
    expected: spec({ containers: [c('a', { image: 'a1' }), c('b', { image: 'b2', args: ['x'] })] }),
  },
  {
    // a patch item the live list does not have has no live position to sort by, so it
    // comes before the server-only items (the kubectl patch task page shows the added
    // container first)
    name: 'a container with a new name is added in front of the live ones',
    original: spec({ containers: [c('a', { image: 'a1' }), c('b', { image: 'b1' })] }),
    patch: spec({ containers: [c('c', { image: 'c1' })] }),
    expected: spec({
      containers: [c('c', { image: 'c1' }), c('a', { image: 'a1' }), c('b', { image: 'b1' })],
    }),
  },
  {
    name: 'a new container after a live one it names follows it',
    // patch [a, c]: a is live (position 0), b (server only) is placed before the first patch
    // item that comes after it live; c has no live position
    original: spec({ containers: [c('a', { image: 'a1' }), c('b', { image: 'b1' })] }),
    patch: spec({ containers: [c('a', { image: 'a2' }), c('c', { image: 'c1' })] }),
    expected: spec({
      containers: [c('a', { image: 'a2' }), c('c', { image: 'c1' }), c('b', { image: 'b1' })],
    }),
  },
  {
    name: 'patch items keep the patch order; a server-only item follows the live order',
    // live [a, b]; patch [c, a]: c then a (patch order), b stays after a (it follows a live)
    original: spec({ containers: [c('a', { image: 'a1' }), c('b', { image: 'b1' })] }),
    patch: spec({ containers: [c('c', { image: 'c1' }), c('a', { image: 'a2' })] }),
    expected: spec({
      containers: [c('c', { image: 'c1' }), c('a', { image: 'a2' }), c('b', { image: 'b1' })],
    }),
  },
  {
    name: 'nested merge lists merge too (env by name inside a container)',
    original: spec({
      containers: [
        c('a', {
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        }),
      ],
    }),
    patch: spec({
      containers: [
        c('a', {
          env: [
            { name: 'Y', value: '3' },
            { name: 'Z', value: '4' },
          ],
        }),
      ],
    }),
    expected: spec({
      containers: [
        c('a', {
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '3' },
            { name: 'Z', value: '4' },
          ],
        }),
      ],
    }),
  },
  {
    name: 'merge key of another type (ports by containerPort, an integer)',
    original: spec({ containers: [c('a', { ports: [{ containerPort: 80, name: 'http' }] })] }),
    patch: spec({
      containers: [c('a', { ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }] })],
    }),
    expected: spec({
      containers: [
        c('a', { ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }] }),
      ],
    }),
  },
  {
    name: 'a primitive list without a strategy inside a merged item is replaced',
    original: spec({ containers: [c('a', { args: ['x', 'y'] })] }),
    patch: spec({ containers: [c('a', { args: ['z'] })] }),
    expected: spec({ containers: [c('a', { args: ['z'] })] }),
  },
  {
    name: 'null inside a merged item deletes that field',
    original: spec({ containers: [c('a', { image: 'a1', args: ['x'] })] }),
    patch: spec({ containers: [c('a', { args: null })] }),
    expected: spec({ containers: [c('a', { image: 'a1' })] }),
  },
  {
    name: '$patch: delete as a list item removes the item with that key',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [{ name: 'a', $patch: 'delete' }] }),
    expected: spec({ containers: [c('b')] }),
  },
  {
    name: '$patch: delete removes every item carrying the key',
    original: spec({ containers: [c('a', { image: '1' }), c('b'), c('a', { image: '2' })] }),
    patch: spec({ containers: [{ $patch: 'delete', name: 'a' }] }),
    expected: spec({ containers: [c('b')] }),
  },
  {
    name: '$patch: delete of a key that is not there changes nothing',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [{ $patch: 'delete', name: 'zz' }] }),
    expected: spec({ containers: [c('a')] }),
  },
  {
    name: '$patch: replace as a list item makes the other items the whole list',
    original: spec({ containers: [c('a', { image: 'a1' }), c('b')] }),
    patch: spec({ containers: [c('x', { image: 'x1' }), { $patch: 'replace' }] }),
    expected: spec({ containers: [c('x', { image: 'x1' })] }),
  },
  {
    name: 'a list sent where there was none keeps its items, without directive items',
    original: { metadata: { name: 'w' } },
    patch: spec({ containers: [c('a'), { $patch: 'delete', name: 'b' }, c('c', { image: null })] }),
    expected: { metadata: { name: 'w' }, spec: { containers: [c('a'), c('c')] } },
  },
  {
    name: 'an empty patch list changes nothing in a merge list',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [] }),
    expected: spec({ containers: [c('a')] }),
  },
  {
    name: 'null on a merge list removes the list',
    original: spec({ containers: [c('a')], nodeSelector: {} }),
    patch: spec({ containers: null }),
    expected: spec({ nodeSelector: {} }),
  },
  // ---- lists without a strategy
  {
    name: 'a list of objects without a patch strategy is replaced whole',
    original: spec({ tolerations: [{ key: 'a' }, { key: 'b' }] }),
    patch: spec({ tolerations: [{ key: 'c' }] }),
    expected: spec({ tolerations: [{ key: 'c' }] }),
  },
  {
    name: 'a list under a free-form field is replaced whole',
    original: spec({ extra: { list: [1, 2, 3] } }),
    patch: spec({ extra: { list: [4] } }),
    expected: spec({ extra: { list: [4] } }),
  },
  // ---- primitive lists with patch strategy merge (metadata.finalizers)
  {
    name: 'a primitive merge list is a union (live items first when the patch follows them)',
    original: { metadata: { finalizers: ['a', 'b'] } },
    patch: { metadata: { finalizers: ['b', 'c'] } },
    expected: { metadata: { finalizers: ['a', 'b', 'c'] } },
  },
  {
    name: 'a primitive union keeps the patch order for the items it sends',
    // merged {a, b, c}; patch order c, a; b (server only) after a, as live
    original: { metadata: { finalizers: ['a', 'b'] } },
    patch: { metadata: { finalizers: ['c', 'a'] } },
    expected: { metadata: { finalizers: ['c', 'a', 'b'] } },
  },
  {
    name: 'duplicates are not added twice',
    original: { metadata: { finalizers: ['a'] } },
    patch: { metadata: { finalizers: ['a', 'a'] } },
    expected: { metadata: { finalizers: ['a'] } },
  },
  {
    name: '$deleteFromPrimitiveList removes values (design doc example)',
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'c'] } },
    expected: { metadata: { finalizers: ['a'] } },
  },
  {
    name: '$deleteFromPrimitiveList on a missing list changes nothing',
    original: { metadata: { name: 'x' } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
    expected: { metadata: { name: 'x' } },
  },
  // ---- $setElementOrder
  {
    name: '$setElementOrder reorders a primitive list (design doc example)',
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'] } },
    expected: { metadata: { finalizers: ['b', 'c', 'a'] } },
  },
  {
    name: '$setElementOrder reorders a list of objects by merge key (design doc example)',
    original: spec({ containers: [c('a', { image: '1' }), c('b', { image: '2' }), c('c', { image: '3' })] }),
    patch: spec({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }] }),
    expected: spec({ containers: [c('b', { image: '2' }), c('c', { image: '3' }), c('a', { image: '1' })] }),
  },
  {
    name: '$setElementOrder with a patch list: new item placed where the order says',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({
      '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }],
      containers: [c('c', { image: 'c1' })],
    }),
    expected: spec({ containers: [c('b'), c('c', { image: 'c1' }), c('a')] }),
  },
  {
    name: 'kubectl apply style: order, delete and add in one primitive list',
    // union {a, b, c} ordered b, c with a (server only) before b as live; then a deleted
    original: { metadata: { finalizers: ['a', 'b'] } },
    patch: {
      metadata: {
        '$setElementOrder/finalizers': ['b', 'c'],
        '$deleteFromPrimitiveList/finalizers': ['a'],
        finalizers: ['c'],
      },
    },
    expected: { metadata: { finalizers: ['b', 'c'] } },
  },
  {
    name: 'kubectl apply style: change one container, delete another',
    original: spec({ containers: [c('a', { image: 'a1' }), c('b', { image: 'b1' })] }),
    patch: spec({
      '$setElementOrder/containers': [{ name: 'a' }],
      containers: [c('a', { image: 'a2' }), { $patch: 'delete', name: 'b' }],
    }),
    expected: spec({ containers: [c('a', { image: 'a2' })] }),
  },
  {
    name: 'a server-only item goes before the first ordered item that follows it live',
    // order c, a; live a, b, c: b is before c live, so b comes first, then c, a
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: { metadata: { '$setElementOrder/finalizers': ['c', 'a'] } },
    expected: { metadata: { finalizers: ['b', 'c', 'a'] } },
  },
  // ---- $retainKeys
  {
    name: '$retainKeys clears the fields it does not list (union type)',
    original: spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } }),
    patch: spec({ strategy: { $retainKeys: ['type'], type: 'Recreate' } }),
    expected: spec({ strategy: { type: 'Recreate' } }),
  },
  {
    name: '$retainKeys keeps listed fields the patch does not send',
    original: spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } }),
    patch: spec({ strategy: { $retainKeys: ['type', 'rollingUpdate'], rollingUpdate: { maxSurge: 2 } } }),
    expected: spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2 } } }),
  },
  {
    name: '$retainKeys in an item of a merge,retainKeys list (volume source switch)',
    original: spec({
      volumes: [
        { name: 'v', hostPath: { path: '/x' } },
        { name: 'w', emptyDir: {} },
      ],
    }),
    patch: spec({
      volumes: [{ name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: { medium: 'Memory' } }],
    }),
    expected: spec({
      volumes: [
        { name: 'v', emptyDir: { medium: 'Memory' } },
        { name: 'w', emptyDir: {} },
      ],
    }),
  },
  // ---- metadata lists
  {
    name: 'ownerReferences merge by uid',
    original: {
      metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'A', name: 'a', uid: '1' }] },
    },
    patch: {
      metadata: {
        ownerReferences: [
          { uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2' },
        ],
      },
    },
    expected: {
      metadata: {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2' },
        ],
      },
    },
  },
  // ---- whole object
  {
    name: '$patch: replace at the top replaces the whole object',
    original: { metadata: { name: 'x' }, spec: { nodeSelector: { a: '1' } } },
    patch: { $patch: 'replace', metadata: { name: 'x' } },
    expected: { metadata: { name: 'x' } },
  },
  {
    name: 'an empty patch changes nothing',
    original: { metadata: { name: 'x' }, spec: { containers: [c('a')] } },
    patch: {},
    expected: { metadata: { name: 'x' }, spec: { containers: [c('a')] } },
  },
];

describe('strategic merge patch (unit)', () => {
  it.each(cases)('$name', ({ original, patch, expected }) => {
    const before = structuredClone(original);
    const patchBefore = structuredClone(patch);
    expect(applyStrategicMergePatch(original, patch, widgetSchema)).toEqual(expected);
    // inputs are never changed
    expect(original).toEqual(before);
    expect(patch).toEqual(patchBefore);
  });

  it('keys named like Object.prototype members are plain fields; __proto__ is ignored', () => {
    const patch = JSON.parse(
      '{"__proto__":{"polluted":1},"metadata":{"labels":{"toString":"x","constructor":"y"}}}',
    );
    const r = applyStrategicMergePatch({ metadata: { name: 'n' } }, patch, widgetSchema) as J;
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect((r as { polluted?: unknown }).polluted).toBeUndefined();
    expect(r).toEqual({ metadata: { name: 'n', labels: { toString: 'x', constructor: 'y' } } });
  });

  it('without a schema every list is replaced and maps still merge', () => {
    const r = applyStrategicMergePatch(
      { spec: { containers: [c('a')], m: { a: 1 } } },
      { spec: { containers: [c('b')], m: { b: 2 } } },
      undefined,
    );
    expect(r).toEqual({ spec: { containers: [c('b')], m: { a: 1, b: 2 } } });
  });

  it('the ConfigMap schema (objectSchema) merges finalizers and replaces nothing else', () => {
    const schema = objectSchema({});
    const r = applyStrategicMergePatch(
      { metadata: { finalizers: ['x'], labels: { a: 'b' } }, data: { k: 'v' } },
      { metadata: { finalizers: ['y'] }, data: { k2: 'v2' } },
      schema,
    );
    // y has no live position: it goes before the server-only x
    expect(r).toEqual({
      metadata: { finalizers: ['y', 'x'], labels: { a: 'b' } },
      data: { k: 'v', k2: 'v2' },
    });
  });

  interface Bad {
    name: string;
    original: J;
    patch: unknown;
    code: number;
    message: string;
  }
  const bad: Bad[] = [
    {
      name: '$patch: merge in a map (a struct-tag strategy, not a patch directive)',
      original: spec({ nodeSelector: { a: '1' } }),
      patch: spec({ nodeSelector: { $patch: 'merge', b: '2' } }),
      code: 400,
      message: 'unknown patch type',
    },
    {
      name: 'an unknown $patch value in a map',
      original: spec({ nodeSelector: { a: '1' } }),
      patch: spec({ nodeSelector: { $patch: 'bogus' } }),
      code: 400,
      message: 'unknown patch type: "bogus"',
    },
    {
      name: '$patch: merge as a list item',
      original: spec({ containers: [c('a')] }),
      patch: spec({ containers: [{ $patch: 'merge' }] }),
      code: 400,
      message: 'merging lists cannot yet be specified in the patch',
    },
    {
      name: 'an unknown $patch value as a list item',
      original: spec({ containers: [c('a')] }),
      patch: spec({ containers: [{ $patch: 'remove', name: 'a' }] }),
      code: 400,
      message: 'unknown patch type: "remove"',
    },
    {
      name: 'a merge list item without its merge key',
      original: spec({ containers: [c('a')] }),
      patch: spec({ containers: [{ image: 'x' }] }),
      code: 400,
      message: 'does not contain declared merge key: name',
    },
    {
      name: '$patch: delete without the merge key',
      original: spec({ containers: [c('a')] }),
      patch: spec({ containers: [{ $patch: 'delete' }] }),
      code: 400,
      message: 'does not contain declared merge key: name',
    },
    {
      name: '$retainKeys that is not a list',
      original: spec({ strategy: { type: 'Recreate' } }),
      patch: spec({ strategy: { $retainKeys: 'type', type: 'Recreate' } }),
      code: 400,
      message: 'invalid patch format of retainKeys',
    },
    {
      name: '$retainKeys that leaves out a field the patch sets',
      original: spec({ strategy: { type: 'Recreate' } }),
      patch: spec({ strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 1 } } }),
      code: 400,
      message: 'invalid patch format of retainKeys',
    },
    {
      name: '$deleteFromPrimitiveList without a field name',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
      code: 400,
      message: 'invalid patch format of primitive list',
    },
    {
      name: '$setElementOrder that is not a list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { '$setElementOrder/finalizers': 'a' } },
      code: 400,
      message: 'invalid patch format of setElementOrder list',
    },
    {
      name: '$setElementOrder without a field name',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { '$setElementOrder/': ['a'] } },
      code: 400,
      message: 'invalid patch format of setElementOrder list',
    },
    {
      name: '$setElementOrder whose order contradicts the patch list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c'], finalizers: ['c', 'b'] } },
      code: 400,
      message: 'does not match',
    },
    {
      name: '$setElementOrder of a patch item it does not name',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['a'], finalizers: ['z'] } },
      code: 400,
      message: 'does not match',
    },
    {
      name: '$setElementOrder items without the merge key',
      original: spec({ containers: [c('a')] }),
      patch: spec({ '$setElementOrder/containers': [{ image: 'x' }] }),
      code: 400,
      message: 'does not contain declared merge key: name',
    },
    {
      name: 'items of different types in one merge list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { finalizers: ['b', { $patch: 'replace' }] } },
      code: 400,
      message: 'list element types are not identical',
    },
    {
      name: 'a list of lists in a merge list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { finalizers: [['b']] } },
      code: 422,
      message: 'the server rejected our request',
    },
    {
      name: 'a patch that is not an object',
      original: {},
      patch: [1],
      code: 400,
      message: 'must be a JSON object',
    },
  ];

  it.each(bad)('rejects $name', ({ original, patch, code, message }) => {
    let err: unknown;
    try {
      applyStrategicMergePatch(original, patch, widgetSchema);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(code);
    expect(`${(err as StatusError).message} ${JSON.stringify((err as StatusError).details ?? {})}`).toContain(
      code === 422 ? 'lists of lists' : message,
    );
    expect((err as StatusError).message).toContain(message);
  });
});

// ------------------------------------------------------------------------------ kubectl

// A second opinion from Kubernetes' own code: `kubectl patch --local` applies a strategic
// merge patch to a Pod on the client with the apimachinery implementation. The cases whose
// fields a Pod has (the test kind copies the Pod's patch strategies) must come out the same.
// kubectl is found as kubectl-bin.ts says ($KUBECTL, the Cloud SDK's kubectl.1.28, then PATH,
// where .ci/run installs Debian's); without one these tests fail, saying how to install it.
const KUBECTL = findKubectl();

const POD_FIELDS: Record<string, string[]> = {
  metadata: ['name', 'labels', 'annotations', 'finalizers', 'ownerReferences'],
  spec: ['containers', 'volumes', 'tolerations', 'nodeSelector'],
};

function podShaped(...docs: J[]): boolean {
  return docs.every((d) =>
    Object.entries(d).every(([k, v]) => {
      if (k.startsWith('$') || !POD_FIELDS[k]) return false;
      return Object.keys(v as J).every((f) => POD_FIELDS[k]!.some((p) => f === p || f.endsWith(`/${p}`)));
    }),
  );
}

/** What a typed Pod cannot tell apart: empty lists and empty maps of map-typed fields. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') {
    const out: J = {};
    for (const [k, x] of Object.entries(v)) {
      if (Array.isArray(x) && x.length === 0) continue;
      if (
        ['labels', 'annotations', 'nodeSelector', 'spec', 'metadata'].includes(k) &&
        x &&
        Object.keys(x).length === 0
      )
        continue;
      out[k] = normalize(x);
    }
    return out;
  }
  return v;
}

describe(`strategic merge patch agrees with kubectl (Pod; ${KUBECTL ?? 'no kubectl'})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-smp-'));
  beforeAll(() => {
    const why = kubectlMissing(KUBECTL);
    if (why) throw new Error(why);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function kubectlPatch(original: J, patch: J): { ok: true; value: J } | { ok: false; error: string } {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      ...original,
      metadata: { name: 'p', ...((original.metadata as J) ?? {}) },
    };
    const file = join(dir, 'pod.json');
    writeFileSync(file, JSON.stringify(pod));
    try {
      const out = execFileSync(
        KUBECTL!,
        ['patch', '--local', '-f', file, '--type', 'strategic', '-p', JSON.stringify(patch), '-o', 'json'],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, KUBECONFIG: '/dev/null' },
        },
      );
      const { apiVersion: _a, kind: _k, status: _s, ...rest } = JSON.parse(out) as J;
      return { ok: true, value: rest };
    } catch (e) {
      return { ok: false, error: String((e as { stderr?: string }).stderr ?? e) };
    }
  }

  const eligible = cases.filter(
    (c) => podShaped(c.original, c.patch) && !c.name.includes('absent map with replace'),
  );
  it('covers enough cases', () => {
    expect(eligible.length).toBeGreaterThanOrEqual(20);
  });

  it.each(eligible)('$name', ({ original, patch }) => {
    const base = { ...original, metadata: { name: 'p', ...((original.metadata as J) ?? {}) } };
    const theirs = kubectlPatch(original, patch);
    expect(theirs.ok, theirs.ok ? '' : theirs.error).toBe(true);
    const ours = applyStrategicMergePatch(base, patch, widgetSchema);
    expect(normalize(ours)).toEqual(normalize((theirs as { value: J }).value));
  });

  const failing: [string, J, J][] = [
    [
      '$patch: merge in a map',
      spec({ nodeSelector: { a: '1' } }),
      spec({ nodeSelector: { $patch: 'merge' } }),
    ],
    ['$patch: merge in a list', spec({ containers: [c('a')] }), spec({ containers: [{ $patch: 'merge' }] })],
    ['no merge key', spec({ containers: [c('a')] }), spec({ containers: [{ image: 'x' }] })],
    [
      'delete without merge key',
      spec({ containers: [c('a')] }),
      spec({ containers: [{ $patch: 'delete' }] }),
    ],
    [
      'bad primitive list key',
      { metadata: { finalizers: ['a'] } },
      { metadata: { $deleteFromPrimitiveList: ['a'] } },
    ],
    [
      'order contradicting the patch',
      { metadata: { finalizers: ['a'] } },
      { metadata: { '$setElementOrder/finalizers': ['b', 'c'], finalizers: ['c', 'b'] } },
    ],
  ];
  it.each(failing)('both refuse: %s', (_n, original, patch) => {
    expect(kubectlPatch(original, patch).ok).toBe(false);
    expect(() => applyStrategicMergePatch(original, patch, widgetSchema)).toThrow(StatusError);
  });
});

// ------------------------------------------------------------------------------ HTTP

const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('strategic merge patch over HTTP', () => {
  let srv: TestServer;
  let ns: string;

  beforeAll(async () => {
    srv = await startServer();
    srv.server.registry.add(widgetDef);
    ns = await makeNamespace(srv, 'smp');
  });
  afterAll(async () => {
    await srv?.close();
  });

  const wpath = (name: string) => `${WIDGETS}/${ns}/widgets/${name}`;

  async function createWidget(name: string, s: J): Promise<J> {
    const r = await srv.req('POST', `${WIDGETS}/${ns}/widgets`, widget(name, s));
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  it('merges containers by name, env by name, and replaces atomic lists (Pod shape)', async () => {
    await createWidget('pod1', {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 8080 }] },
        { name: 'sidecar', image: 'side:1' },
      ],
      tolerations: [{ key: 'a' }, { key: 'b' }],
      nodeSelector: { disk: 'ssd' },
    });
    const r = await srv.req(
      'PATCH',
      wpath('pod1'),
      {
        spec: {
          containers: [
            { name: 'app', image: 'app:2', env: [{ name: 'B', value: '2' }] },
            { name: 'log', image: 'log:1' },
          ],
          tolerations: [{ key: 'c' }],
          nodeSelector: { zone: 'z1' },
        },
      },
      SMP,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec).toEqual({
      containers: [
        {
          name: 'app',
          image: 'app:2',
          // B is new, A only on the server: B first
          env: [
            { name: 'B', value: '2' },
            { name: 'A', value: '1' },
          ],
          ports: [{ containerPort: 8080 }],
        },
        // log is new (no live position): it follows app, the patch item before it; sidecar is
        // after app live but before no other patch item
        { name: 'log', image: 'log:1' },
        { name: 'sidecar', image: 'side:1' },
      ],
      tolerations: [{ key: 'c' }],
      nodeSelector: { disk: 'ssd', zone: 'z1' },
    });
    const g = await srv.req('GET', wpath('pod1'));
    expect(g.json.spec).toEqual(r.json.spec);
    expect(g.json.metadata.resourceVersion).toBe(r.json.metadata.resourceVersion);
  });

  it('the same body as a merge patch replaces the containers list (the difference SMP makes)', async () => {
    await createWidget('pod2', {
      containers: [
        { name: 'app', image: 'app:1' },
        { name: 'sidecar', image: 'side:1' },
      ],
    });
    const r = await srv.req(
      'PATCH',
      wpath('pod2'),
      { spec: { containers: [{ name: 'app', image: 'app:2' }] } },
      MERGE,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.containers).toEqual([{ name: 'app', image: 'app:2' }]);
  });

  it('deletes a container with $patch: delete and reorders with $setElementOrder', async () => {
    await createWidget('pod3', {
      containers: [
        { name: 'a', image: 'a' },
        { name: 'b', image: 'b' },
        { name: 'c', image: 'c' },
      ],
    });
    const r = await srv.req(
      'PATCH',
      wpath('pod3'),
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
          containers: [{ $patch: 'delete', name: 'b' }],
        },
      },
      SMP,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.containers).toEqual([
      { name: 'c', image: 'c' },
      { name: 'a', image: 'a' },
    ]);
  });

  it('switches a volume source with $retainKeys', async () => {
    await createWidget('pod4', { volumes: [{ name: 'data', hostPath: { path: '/srv' } }] });
    const r = await srv.req(
      'PATCH',
      wpath('pod4'),
      { spec: { volumes: [{ name: 'data', $retainKeys: ['name', 'emptyDir'], emptyDir: {} }] } },
      SMP,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
  });

  it('a malformed directive is a 400 and the object does not change', async () => {
    const before = await createWidget('pod5', { containers: [{ name: 'a', image: 'a' }] });
    for (const body of [
      { spec: { containers: [{ $patch: 'merge' }] } },
      { spec: { containers: [{ image: 'no-name' }] } },
      { spec: { nodeSelector: { $patch: 'sideways' } } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': 'x', $deleteFromPrimitiveList: ['y'] } },
    ]) {
      const r = await srv.req('PATCH', wpath('pod5'), body, SMP);
      expect(r.status, r.text).toBe(400);
      expect(r.json.kind).toBe('Status');
      expect(r.json.reason).toBe('BadRequest');
    }
    const g = await srv.req('GET', wpath('pod5'));
    expect(g.json.metadata.resourceVersion).toBe((before.metadata as J).resourceVersion);
    expect(g.json.spec).toEqual(before.spec);
  });

  it('Pod: a container image changes in place, where a merge patch would drop the other container', async () => {
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const c = await srv.req('POST', pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: {
        containers: [
          { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'side:1' },
        ],
      },
    });
    expect(c.status, c.text).toBe(201);
    const body = {
      metadata: { labels: { tier: 'web' } },
      spec: { containers: [{ name: 'app', image: 'app:2' }] },
    };
    // as a merge patch the list is replaced: the sidecar would go, which a pod update may not do
    const mp = await srv.req('PATCH', `${pods}/web`, body, MERGE);
    expect(mp.status, mp.text).toBe(422);
    const r = await srv.req('PATCH', `${pods}/web`, body, SMP);
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.labels).toEqual({ tier: 'web' });
    expect(r.json.spec.containers.map((x: J) => [x.name, x.image])).toEqual([
      ['app', 'app:2'],
      ['sidecar', 'side:1'],
    ]);
    expect(r.json.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('ConfigMap: finalizers union, $deleteFromPrimitiveList, label removal, ownerReferences by uid', async () => {
    const name = uniqueName('cm');
    const cr = await srv.req(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap(
        name,
        { a: '1' },
        { metadata: { labels: { keep: 'y', drop: 'y' }, finalizers: ['x.io/a', 'x.io/b'] } },
      ),
    );
    expect(cr.status, cr.text).toBe(201);
    const p = `/api/v1/namespaces/${ns}/configmaps/${name}`;
    let r = await srv.req(
      'PATCH',
      p,
      {
        metadata: {
          labels: { drop: null, add: 'z' },
          finalizers: ['x.io/c'],
          ownerReferences: [{ apiVersion: 'v1', kind: 'Thing', name: 'o', uid: 'u-1' }],
        },
        data: { b: '2' },
      },
      SMP,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.labels).toEqual({ keep: 'y', add: 'z' });
    expect(r.json.metadata.finalizers).toEqual(['x.io/c', 'x.io/a', 'x.io/b']);
    expect(r.json.data).toEqual({ a: '1', b: '2' });
    r = await srv.req(
      'PATCH',
      p,
      {
        metadata: {
          '$deleteFromPrimitiveList/finalizers': ['x.io/a', 'x.io/c'],
          ownerReferences: [{ uid: 'u-1', controller: true }],
        },
      },
      SMP,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['x.io/b']);
    expect(r.json.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Thing', name: 'o', uid: 'u-1', controller: true },
    ]);
  });
});
