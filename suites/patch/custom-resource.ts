// A custom resource type for the cases that need one (patch, field-validation, content-types):
// the file's case creates a CustomResourceDefinition of its own group (when the endpoint serves
// definitions), waits until its resources are served, and deletes it afterwards. A target
// without definitions leaves `reason` set and the cases skip with it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import type { Client } from '../../harness/src/client.ts';
import { session } from '../../harness/src/session.ts';

export const CRD_GROUP_VERSION = 'apiextensions.orch.io/v1';
const CRD_PATH = `/apis/${CRD_GROUP_VERSION}/customresourcedefinitions`;

/** Schemas the suites use for `spec` (the top-level schema wraps them). */
export const SPEC_SCHEMAS = {
  /** Unknown fields kept: `spec` is free-form. */
  preserve: { type: 'object', 'x-orch-preserve-unknown-fields': true },
  /** A closed schema: size (integer, required), color (string), tags (array of strings). */
  closed: {
    type: 'object',
    required: ['size'],
    properties: {
      size: { type: 'integer' },
      color: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  },
} as const;

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
}

export interface CustomResourceOptions {
  spec: keyof typeof SPEC_SCHEMAS;
  printerColumns?: PrinterColumn[];
}

export interface CustomResourceFixture {
  /** Why the cases cannot run (no definitions served, or the definition was refused); '' when ready. */
  reason: string;
  group: string;
  version: string;
  kind: string;
  plural: string;
  apiVersion: string;
  /** The namespaced collection path. */
  collection(ns: string): string;
  one(ns: string, name: string): string;
  object(name: string, spec: unknown): Record<string, unknown>;
}

/** Defines a custom resource type for the cases of one file (created before, deleted after). */
export function useCustomResource(prefix: string, o: CustomResourceOptions): CustomResourceFixture {
  const group = `${prefix}-${randomBytes(4).toString('hex')}.example.com`;
  const plural = 'widgets';
  const kind = 'Widget';
  const version = 'v1';
  const fx: CustomResourceFixture = {
    reason: 'not set up yet',
    group,
    version,
    kind,
    plural,
    apiVersion: `${group}/${version}`,
    collection: (ns) => `/apis/${group}/${version}/namespaces/${ns}/${plural}`,
    one: (ns, name) => `/apis/${group}/${version}/namespaces/${ns}/${plural}/${name}`,
    object: (name, spec) => ({ apiVersion: `${group}/${version}`, kind, metadata: { name }, spec }),
  };
  const name = `${plural}.${group}`;
  beforeAll(async () => {
    fx.reason = await define(session(), fx, o);
  });
  afterAll(async () => {
    try {
      await session().delete(`${CRD_PATH}/${name}`, { timeoutMs: 5_000 });
    } catch {
      // best effort
    }
  });
  return fx;
}

async function define(c: Client, fx: CustomResourceFixture, o: CustomResourceOptions): Promise<string> {
  const caps = await capabilities(c);
  if (!caps.resources.has(`${CRD_GROUP_VERSION}/customresourcedefinitions`))
    return notServed(`${CRD_GROUP_VERSION}/customresourcedefinitions`);
  const version: Record<string, unknown> = {
    name: fx.version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: SPEC_SCHEMAS[o.spec] } } },
  };
  if (o.printerColumns) version.additionalPrinterColumns = o.printerColumns;
  const r = await c.post(CRD_PATH, {
    apiVersion: CRD_GROUP_VERSION,
    kind: 'CustomResourceDefinition',
    metadata: { name: `${fx.plural}.${fx.group}` },
    spec: {
      group: fx.group,
      scope: 'Namespaced',
      names: { plural: fx.plural, singular: 'widget', kind: fx.kind, listKind: `${fx.kind}List` },
      versions: [version],
    },
  });
  if (r.status !== 201) throw new Error(`setup: cannot create the CustomResourceDefinition: ${r.describe()}`);
  c.retryUnavailableUnder(`/apis/${fx.group}/`);
  // served once the group version lists the resource (the definition is Established)
  const deadline = Date.now() + 15_000;
  for (;;) {
    const d = await c.get(`/apis/${fx.apiVersion}`);
    if (d.status === 200 && (d.json?.resources ?? []).some((x: any) => x.name === fx.plural)) return '';
    if (Date.now() > deadline)
      throw new Error(`setup: ${fx.apiVersion}/${fx.plural} not served 15 s after its definition`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
