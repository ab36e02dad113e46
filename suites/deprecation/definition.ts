// The suite's multi-version custom definition: versions v1 (stored), v1beta1 (deprecated, no
// warning text of its own) and v1alpha1 (deprecated, with a deprecationWarning), all served,
// conversion None, `spec` free-form. Made on the target a case runs against and deleted after.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { checkStatus } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';
import { session } from '../../harness/src/session.ts';

export const CRD_COLLECTION = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
export const PLURAL = 'gizmos';
export const KIND = 'Gizmo';
export const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

export interface MultiVersionDefinition {
  group: string;
  name: string;
  /** The warning text v1alpha1 declares. */
  alphaWarning: string;
  collection(version: string, ns: string): string;
  close(): Promise<void>;
}

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
  },
};

/** Creates the definition on `c` and waits until every version is served. */
export async function makeDefinition(c: Client): Promise<MultiVersionDefinition> {
  const id = randomBytes(4).toString('hex');
  const group = `dep${id}.example.com`;
  const name = `${PLURAL}.${group}`;
  const alphaWarning = `${group}/v1alpha1 ${KIND} is going away ${id}: use ${group}/v1`;
  const r = await c.post(CRD_COLLECTION, {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: PLURAL, singular: 'gizmo', kind: KIND, listKind: `${KIND}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
        {
          name: 'v1alpha1',
          served: true,
          storage: false,
          deprecated: true,
          deprecationWarning: alphaWarning,
          schema,
        },
      ],
    },
  });
  checkStatus(r, 201, undefined, 'the suite creates a multi-version custom definition');
  c.retryUnavailableUnder(`/apis/${group}/`);
  const d: MultiVersionDefinition = {
    group,
    name,
    alphaWarning,
    collection: (v, ns) => `/apis/${group}/${v}/namespaces/${ns}/${PLURAL}`,
    close: async () => {
      await c.delete(`${CRD_COLLECTION}/${name}`).catch(() => undefined);
    },
  };
  const deadline = Date.now() + 15_000;
  for (const v of VERSIONS)
    for (;;) {
      const g = await c.get(`/apis/${group}/${v}`);
      if (g.status === 200 && (g.json?.resources ?? []).some((x: any) => x.name === PLURAL)) break;
      if (Date.now() > deadline) {
        await d.close();
        throw new Error(`${group}/${v} ${PLURAL} not served 15 s after the definition was created`);
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  return d;
}

/**
 * The definition for the cases of the enclosing `describe`: made on the session's target before
 * them, deleted after. The returned function gives it, or throws when it could not be made.
 */
export function useDefinition(): () => MultiVersionDefinition {
  let d: MultiVersionDefinition | undefined;
  beforeAll(async () => {
    d = await makeDefinition(session());
  }, 30_000);
  afterAll(async () => {
    await d?.close();
  });
  return () => {
    if (!d) throw new Error('the multi-version custom definition was not made (see the file setup)');
    return d;
  };
}
