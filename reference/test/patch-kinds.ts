// Test-only kinds for the patch tests: `Widget` (test.orch.io/v1), shaped like a Pod where
// strategic merge patch matters (containers merged by name, env by name, ports by
// containerPort, volumes by name with retainKeys, a retainKeys union, an atomic list, a
// map replaced whole) plus a status subresource; `Gadget`, the same as a custom resource.
import { ALL_VERBS } from '../src/registry/kinds/common.ts';
import type { ResourceDef } from '../src/registry/types.ts';
import { arr, freeform, int, intOrString, keyedList, mapOf, obj, str } from '../src/schema/dsl.ts';
import { objectSchema } from '../src/schema/meta.ts';
import type { Schema } from '../src/schema/types.ts';

export const containerSchema: Schema = obj(
  {
    name: str(),
    image: str(),
    args: arr(str()),
    env: keyedList(obj({ name: str(), value: str() }), ['name']),
    ports: keyedList(obj({ containerPort: int(), protocol: str(), name: str() }), ['containerPort']),
  },
  { required: ['name'] },
);

export const volumeSchema: Schema = obj({
  name: str(),
  hostPath: obj({ path: str() }),
  emptyDir: obj({ medium: str() }),
  configMap: obj({ name: str() }),
});

export const widgetSchema: Schema = objectSchema({
  spec: obj({
    containers: keyedList(containerSchema, ['name']),
    volumes: arr(volumeSchema, {
      'x-orch-patch-strategy': 'merge,retainKeys',
      'x-orch-patch-merge-key': 'name',
    }),
    tolerations: arr(obj({ key: str(), effect: str() })),
    nodeSelector: mapOf(str()),
    strategy: obj(
      { type: str(), rollingUpdate: obj({ maxSurge: intOrString() }) },
      { 'x-orch-patch-strategy': 'retainKeys' },
    ),
    atomicMap: obj({ a: str(), b: str() }, { 'x-orch-patch-strategy': 'replace' }),
    extra: freeform(),
  }),
  status: obj({ phase: str(), message: str() }),
});

export const widgetDef: ResourceDef = {
  group: 'test.orch.io',
  versions: ['v1'],
  kind: 'Widget',
  listKind: 'WidgetList',
  plural: 'widgets',
  singular: 'widget',
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: ['status'],
  schema: widgetSchema,
  strategy: { allowUnconditionalUpdate: true },
};

export const gadgetDef: ResourceDef = {
  ...widgetDef,
  kind: 'Gadget',
  listKind: 'GadgetList',
  plural: 'gadgets',
  singular: 'gadget',
  custom: true,
};

export const WIDGETS = '/apis/test.orch.io/v1/namespaces';

export function widget(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'test.orch.io/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}
