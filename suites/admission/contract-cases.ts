// doc3 § Webhook contract (server calls the webhook), and the rules of § Webhook configuration
// objects, § States and transitions, § Events, § Errors, § Limits and § Versioning about calling
// webhooks, as rows (rows/contract/*.yaml, validated by contract.schema.json when loaded): each
// row registers webhooks the harness serves, answering as the row scripts, sends one request and
// checks the answer, the reviews the webhooks got and the object stored. One test file per rows
// file (contract-<topic>.test.ts), so each runs on its own.
import { describe } from 'vitest';
import { conformance } from '../../harness/src/case.ts';
import { rowCase } from '../../harness/src/spec.ts';
import { loadContractRows } from './contract-rows.ts';
import { runContractRow } from './contract-runner.ts';

/** The cases of one rows file (`20-response.yaml`). */
export function contractCases(file: string): void {
  const rows = loadContractRows().filter((r) => r.file.split('/').pop() === file);
  if (!rows.length) throw new Error(`no contract rows in rows/contract/${file}`);
  describe(`admission: webhook contract (${file})`, () => {
    for (const row of rows) {
      const def = rowCase(row, 3, row.section);
      // a row on the audit event runs against a target whose audit log the suites read
      const audit = !!(row.expect.audit || row.expect.noAudit);
      conformance(def, (t) => runContractRow(row, t), {
        timeout: 60_000,
        ...(audit ? { needs: { auditLog: true } } : {}),
      });
    }
  });
}
