// Error conditions from cases.yaml (validated by cases.schema.json when this file loads): for
// each row, the answer is a Status object with the row's code and reason; where the spec names
// the code, a case checks the code alone; for a refused write, the namespace's ConfigMaps are
// the same before and after.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, checkStatusObject, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { paths, useNamespace } from '../../harness/src/fixtures.ts';
import type { CaseDef } from '../../harness/src/spec.ts';
import { loadTableFile } from '../../harness/src/yaml-tables.ts';
import { PROVOCATIONS, RUN } from './provocations.ts';

interface Row {
  provoke: string;
  code: number;
  reason: string;
  causeField?: string;
  status: CaseDef;
  'code-case'?: CaseDef;
  unchanged?: CaseDef;
}

const HERE = dirname(fileURLToPath(import.meta.url));

function loadRows(): Row[] {
  return loadTableFile<{ rows: Row[] }>(join(HERE, 'cases.yaml'), join(HERE, 'cases.schema.json')).doc.rows;
}

interface Snap {
  uid: string;
  resourceVersion: string;
  data: unknown;
  labels: unknown;
}

/**
 * name -> {uid, resourceVersion, data, labels} of every ConfigMap of the provocations in the
 * namespace (their RUN label: what a refused write would leave behind carries it, and what
 * other writers put into the namespace, a live cluster's root-CA ConfigMap, does not).
 */
async function snapshot(client: Client, ns: string): Promise<Record<string, Snap>> {
  const r = await client.get(paths.configmaps(ns), { query: { labelSelector: `run=${RUN.run}` } });
  checkStatus(r, 200, undefined, `list the ConfigMaps of ${ns}`);
  const out: Record<string, Snap> = {};
  for (const o of r.json.items ?? [])
    out[o.metadata.name] = {
      uid: o.metadata.uid,
      resourceVersion: o.metadata.resourceVersion,
      data: o.data,
      labels: o.metadata.labels,
    };
  return out;
}

describe('errors: every error is a Status object', () => {
  const ns = useNamespace('errors');

  for (const row of loadRows()) {
    const p = PROVOCATIONS[row.provoke]!;

    conformance(row.status, async ({ client }) => {
      const prepared = await p.prepare?.(client, ns.name);
      const r = await p.send(client, ns.name, prepared);
      checkStatus(r, row.code, undefined, `the HTTP status of the ${row.provoke} request`);
      checkStatusObject(r);
      checkEqual(r.statusObj!.kind, 'Status', 'kind of the error body');
      checkEqual(r.statusObj!.reason, row.reason, 'Status.reason');
      if (row.causeField) {
        const causes = r.statusObj!.details?.causes ?? [];
        check(
          causes.some((c) => c.field === row.causeField),
          `details.causes with an entry for field ${row.causeField}`,
          show(r.statusObj!.details),
        );
      }
    });

    const codeCase = row['code-case'];
    if (codeCase)
      conformance(codeCase, async ({ client }) => {
        const prepared = await p.prepare?.(client, ns.name);
        checkStatus(await p.send(client, ns.name, prepared), row.code);
      });

    const unchanged = row.unchanged;
    if (unchanged)
      conformance(unchanged, async ({ client, step }) => {
        const prepared = await p.prepare?.(client, ns.name);
        const before = await step('list the namespace before the refused write', () =>
          snapshot(client, ns.name),
        );
        const r = await p.send(client, ns.name, prepared);
        check(r.status >= 400 && r.status < 500, `a 4xx refusal (${row.code})`, r.describe());
        const after = await step('list the namespace after it', () => snapshot(client, ns.name));
        checkEqual(after, before, `the ConfigMaps of the namespace after the refused ${row.provoke} request`);
      });
  }
});
