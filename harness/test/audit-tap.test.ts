// The rewritten copy of an audit log the fault meta test hands a suite (harness/src/audit-tap.ts).
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAuditTap } from '../src/audit-tap.ts';

describe('startAuditTap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-tap-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the events written after it starts, each rewritten, a line split across writes once whole', async () => {
    const src = join(dir, 'server.jsonl');
    const dest = join(dir, 'copy.jsonl');
    writeFileSync(src, `${JSON.stringify({ auditID: 'before' })}\n`);
    const tap = startAuditTap(src, dest, (e) => (e.auditID === 'drop' ? undefined : { ...e, seen: true }));
    appendFileSync(
      src,
      `${JSON.stringify({ auditID: 'a' })}\n${JSON.stringify({ auditID: 'drop' })}\n{"auditID":`,
    );
    await new Promise((r) => setTimeout(r, 120));
    appendFileSync(src, '"b"}\n');
    await new Promise((r) => setTimeout(r, 120));
    tap.close();
    const lines = readFileSync(dest, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { auditID: 'a', seen: true },
      { auditID: 'b', seen: true },
    ]);
  });
});
