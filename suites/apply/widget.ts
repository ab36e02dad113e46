// The suite's custom resource type, Widget: its spec carries one field per merge strategy marker
// of doc2 (§ Merge strategy markers), and fields without markers for the rule that custom
// resources are unstructured by default. A definition is created per test file (and per
// topology scenario, whose schema changes), waited for, and deleted afterwards.
import { randomBytes } from 'node:crypto';
import { check } from '../../harness/src/assert.ts';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import type { Client } from '../../harness/src/client.ts';

export const CRD_GROUP_VERSION = 'apiextensions.orch.io/v1';
const CRD_PATH = `/apis/${CRD_GROUP_VERSION}/customresourcedefinitions`;

const str = { type: 'string' };
const strMap = (mapType: 'atomic' | 'granular') => ({
  type: 'object',
  additionalProperties: str,
  'x-orch-map-type': mapType,
});

/** spec of a Widget: every marker of doc2's table, and fields that carry none. */
export function widgetSpecSchema(topo?: 'atomic' | 'set'): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    granular: strMap('granular'),
    atomicMap: strMap('atomic'),
    struct: { type: 'object', properties: { a: str, b: str } },
    atomicStruct: { type: 'object', properties: { a: str, b: str }, 'x-orch-map-type': 'atomic' },
    atomicList: { type: 'array', items: str, 'x-orch-list-type': 'atomic' },
    setList: { type: 'array', items: str, 'x-orch-list-type': 'set' },
    mapList: {
      type: 'array',
      'x-orch-list-type': 'map',
      'x-orch-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: str, value: str, extra: str } },
    },
    multiKeyList: {
      type: 'array',
      'x-orch-list-type': 'map',
      'x-orch-list-map-keys': ['port', 'protocol'],
      items: {
        type: 'object',
        required: ['port', 'protocol'],
        properties: { port: { type: 'integer' }, protocol: str, value: str },
      },
    },
    // no markers: lists are atomic, objects act like structs
    plainList: { type: 'array', items: { type: 'object', properties: { name: str, value: str } } },
    plainStrings: { type: 'array', items: str },
    free: { type: 'object', 'x-orch-preserve-unknown-fields': true },
    text: str,
    count: { type: 'integer' },
  };
  if (topo) properties.topo = { type: 'array', items: str, 'x-orch-list-type': topo };
  return { type: 'object', properties };
}

/** Lists whose order the spec leaves open (sets and map lists): compared as multisets. */
export const WIDGET_UNORDERED = ['.spec.setList', '.spec.mapList', '.spec.multiKeyList'];

export interface WidgetType {
  group: string;
  version: string;
  kind: string;
  plural: string;
  apiVersion: string;
  crdName: string;
  collection(ns: string): string;
  one(ns: string, name: string): string;
}

export function widgetType(prefix: string): WidgetType {
  const group = `${prefix}-${randomBytes(4).toString('hex')}.example.com`;
  const version = 'v1';
  const plural = 'widgets';
  return {
    group,
    version,
    kind: 'Widget',
    plural,
    apiVersion: `${group}/${version}`,
    crdName: `${plural}.${group}`,
    collection: (ns) => `/apis/${group}/${version}/namespaces/${ns}/${plural}`,
    one: (ns, name) => `/apis/${group}/${version}/namespaces/${ns}/${plural}/${name}`,
  };
}

function definition(w: WidgetType, topo?: 'atomic' | 'set'): Record<string, unknown> {
  return {
    apiVersion: CRD_GROUP_VERSION,
    kind: 'CustomResourceDefinition',
    metadata: { name: w.crdName },
    spec: {
      group: w.group,
      scope: 'Namespaced',
      names: { plural: w.plural, singular: 'widget', kind: w.kind, listKind: `${w.kind}List` },
      versions: [
        {
          name: w.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: widgetSpecSchema(topo) } } },
        },
      ],
    },
  };
}

/** Why Widgets cannot be used on this endpoint, or '' when definitions are served. */
export async function widgetsUnavailable(c: Client): Promise<string> {
  const caps = await capabilities(c);
  return caps.resources.has(`${CRD_GROUP_VERSION}/customresourcedefinitions`)
    ? ''
    : notServed(`${CRD_GROUP_VERSION}/customresourcedefinitions`);
}

/** Creates the definition and waits until its resources are served. */
export async function defineWidget(c: Client, w: WidgetType, topo?: 'atomic' | 'set'): Promise<void> {
  const r = await c.post(CRD_PATH, definition(w, topo));
  if (r.status !== 201)
    throw new Error(`setup: cannot create the CustomResourceDefinition ${w.crdName}: ${r.describe()}`);
  c.retryUnavailableUnder(`/apis/${w.group}/`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const d = await c.get(`/apis/${w.apiVersion}`);
    if (d.status === 200 && (d.json?.resources ?? []).some((x: any) => x.name === w.plural)) return;
    if (Date.now() > deadline)
      throw new Error(`setup: ${w.apiVersion}/${w.plural} not served 15 s after its definition`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export async function deleteWidget(c: Client, w: WidgetType): Promise<void> {
  try {
    await c.delete(`${CRD_PATH}/${w.crdName}`, { timeoutMs: 5_000 });
  } catch {
    // best effort
  }
}

/**
 * Changes the list type of spec.topo and waits until it is in force: a set refuses duplicate
 * items, an atomic list takes them (probed with a dry-run create). doc2 says what such a schema
 * change does to existing objects, so a target that refuses it fails the case (never a skip).
 */
export async function changeTopology(
  c: Client,
  w: WidgetType,
  ns: string,
  topo: 'atomic' | 'set',
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const cur = await c.get(`${CRD_PATH}/${w.crdName}`);
    if (cur.status !== 200)
      throw new Error(`read the CustomResourceDefinition ${w.crdName}: ${cur.describe()}`);
    const body = cur.json;
    body.spec.versions[0].schema.openAPIV3Schema.properties.spec = widgetSpecSchema(topo);
    const r = await c.put(`${CRD_PATH}/${w.crdName}`, body);
    if (r.status === 200) break;
    check(
      r.status !== 422,
      `the definition updated (200): doc2 § States and transitions says what a field topology change (a schema change) does to existing objects`,
      r.describe(),
      `change the list type of spec.topo to ${topo}`,
    );
    if (r.status !== 409 || attempt > 5)
      throw new Error(`update the CustomResourceDefinition ${w.crdName}: ${r.describe()}`);
  }
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = await c.post(
      w.collection(ns),
      {
        apiVersion: w.apiVersion,
        kind: w.kind,
        metadata: { name: 'topology-probe' },
        spec: { topo: ['d', 'd'] },
      },
      { query: { dryRun: 'All' } },
    );
    const accepted = probe.status === 201 || probe.status === 200;
    if ((topo === 'atomic') === accepted) return;
    if (Date.now() > deadline)
      throw new Error(
        `the list type ${topo} of spec.topo is not in force 15 s after the definition changed (a dry-run create with duplicate items answered ${probe.status})`,
      );
    await new Promise((res) => setTimeout(res, 100));
  }
}
