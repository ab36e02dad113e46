// The suite's CustomResourceDefinitions: one per group of rows, with the schema the rows make,
// created before the group's cases (and waited for until its resources are served) and deleted
// after; and the definitions a row expects to be refused, sent alone. A target that serves no
// definitions leaves `unavailable` set and the cases skip with it; a definition the target
// refuses leaves `refused` set and every case of the group fails with it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { capabilities, notServed } from '../../harness/src/capabilities.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { session } from '../../harness/src/session.ts';
import { CRD_GROUP_VERSION } from '../patch/custom-resource.ts';

export const CRD_PATH = `/apis/${CRD_GROUP_VERSION}/customresourcedefinitions`;
const PLURAL = 'checks';
const KIND = 'Check';

export interface Definition {
  group: string;
  apiVersion: string;
  kind: string;
  /** The definition's name. */
  name: string;
  collection(ns: string): string;
  one(ns: string, name: string): string;
  /** Why the cases cannot run (no definitions served); '' when they can. */
  unavailable: string;
  /** The target's answer when it refused the definition, or failed to serve it; '' when it is served. */
  refused: string;
}

export function newDefinition(prefix: string): Definition {
  const group = `cel${prefix}-${randomBytes(4).toString('hex')}.example.com`;
  const version = 'v1';
  return {
    group,
    apiVersion: `${group}/${version}`,
    kind: KIND,
    name: `${PLURAL}.${group}`,
    collection: (ns) => `/apis/${group}/${version}/namespaces/${ns}/${PLURAL}`,
    one: (ns, name) => `/apis/${group}/${version}/namespaces/${ns}/${PLURAL}/${name}`,
    unavailable: 'not set up yet',
    refused: '',
  };
}

/** The definition's body: one served and stored version v1 with this openAPIV3Schema. */
export function definitionBody(d: Definition, openAPIV3Schema: unknown): Record<string, unknown> {
  return {
    apiVersion: CRD_GROUP_VERSION,
    kind: 'CustomResourceDefinition',
    metadata: { name: d.name },
    spec: {
      group: d.group,
      scope: 'Namespaced',
      names: { plural: PLURAL, singular: 'check', kind: KIND, listKind: `${KIND}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

/** '' when the target serves definitions, otherwise why not. */
export async function definitionsUnavailable(c: Client): Promise<string> {
  const caps = await capabilities(c);
  return caps.resources.has(`${CRD_GROUP_VERSION}/customresourcedefinitions`)
    ? ''
    : notServed(`${CRD_GROUP_VERSION}/customresourcedefinitions`);
}

export function postDefinition(c: Client, d: Definition, openAPIV3Schema: unknown): Promise<Response> {
  // the group's objects are sent again on a 503 with Retry-After (its storage being replaced)
  c.retryUnavailableUnder(`/apis/${d.group}/`);
  return c.post(CRD_PATH, definitionBody(d, openAPIV3Schema));
}

export async function deleteDefinition(c: Client, d: Definition): Promise<void> {
  try {
    await c.delete(`${CRD_PATH}/${d.name}`, { timeoutMs: 5_000 });
  } catch {
    // best effort: the endpoint may be gone already
  }
}

/** Waits until the group version lists the resource (the definition is established); '' or why not. */
async function served(c: Client, d: Definition): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await c.get(`/apis/${d.apiVersion}`);
    if (r.status === 200 && (r.json?.resources ?? []).some((x: any) => x.name === PLURAL)) return '';
    if (Date.now() > deadline)
      return `${d.apiVersion}/${PLURAL} not served 15 s after its definition was created`;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** A definition with this schema for the cases of one group (created before, deleted after). */
export function useDefinition(prefix: string, openAPIV3Schema: () => unknown): Definition {
  const d = newDefinition(prefix);
  let created = false;
  beforeAll(async () => {
    const c = session();
    d.unavailable = await definitionsUnavailable(c);
    if (d.unavailable) return;
    const r = await postDefinition(c, d, openAPIV3Schema());
    if (r.status < 200 || r.status > 299) {
      d.refused = `the definition was refused: ${r.describe()}`;
      return;
    }
    created = true;
    d.refused = await served(c, d);
  }, 30_000);
  afterAll(async () => {
    if (created) await deleteDefinition(session(), d);
  });
  return d;
}
