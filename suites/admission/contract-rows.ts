// Loads the webhook contract rows (rows/contract/*.yaml), validates them against
// contract.schema.json and against what a schema cannot say (ids unique across files, the
// webhooks an expectation names exist), and merges each webhook over its file's base, so a
// malformed row fails loudly when the suite loads and a new row is a new case without new code.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answer } from '../../harness/src/admission/callbacks.ts';
import type { WebhookKind } from '../../harness/src/admission/webhook-scope.ts';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, uniqueId } from '../../harness/src/yaml-tables.ts';

export type Resource = 'configmaps' | 'namespaces' | 'clusterroles' | 'events';
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'STATUS' | 'GET';

export interface RowWebhook {
  name: string;
  kind?: WebhookKind;
  answer?: Answer;
  answers?: Answer[];
  clientConfig?: 'refused' | 'untrusted';
  [field: string]: unknown;
}

export interface Expect {
  code?: number;
  refused?: true;
  reason?: string;
  message?: string[];
  calls?: Record<string, number>;
  review?: Record<string, unknown>;
  lastReview?: Record<string, unknown>;
  stored?: Record<string, unknown> | 'absent';
  answered?: Record<string, unknown>;
  warnings?: string[];
  noWarnings?: true;
  order?: string[];
  concurrent?: string[];
  withinSeconds?: number;
  audit?: { key: string; value?: Record<string, unknown>; text?: string }[];
  noAudit?: string[];
}

export interface ContractRow {
  id: string;
  title: string;
  section: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  webhooks: RowWebhook[];
  request: {
    resource?: Resource;
    operation?: Operation;
    dryRun?: boolean;
    labels?: Record<string, string>;
    oldLabels?: Record<string, string>;
    namespaceLabels?: Record<string, string>;
  };
  expect: Expect;
}

export interface LoadedContractRow extends ContractRow {
  /** Each webhook's own fields (without name, kind, answers) merged over the base, null fields left out. */
  fields: Record<string, unknown>[];
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const DIR = join(HERE, 'rows', 'contract');
const OWN = new Set(['name', 'kind', 'answer', 'answers', 'clientConfig']);

function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  for (const [k, v] of Object.entries(over)) {
    if (OWN.has(k)) continue;
    if (v === null) delete out[k];
    else out[k] = structuredClone(v);
  }
  return out;
}

export function loadContractRows(): LoadedContractRow[] {
  const out: LoadedContractRow[] = [];
  const ids = new Set<string>();
  for (const f of loadTableFiles<{ base: Record<string, unknown>; rows: ContractRow[] }>(
    DIR,
    join(HERE, 'contract.schema.json'),
  )) {
    for (const row of f.doc.rows) {
      uniqueId(ids, row.id, f.path);
      const names = new Set(row.webhooks.map((w) => w.name));
      const named = [
        ...Object.keys(row.expect.calls ?? {}),
        ...Object.keys(row.expect.review ?? {}),
        ...Object.keys(row.expect.lastReview ?? {}),
        ...(row.expect.order ?? []),
        ...(row.expect.concurrent ?? []),
      ];
      for (const n of named)
        if (!names.has(n))
          throw new Error(`${f.path}: ${row.id} expects of webhook "${n}", which it does not register`);
      out.push({ ...row, fields: row.webhooks.map((w) => merged(f.doc.base, w)), file: f.name });
    }
  }
  return out;
}
