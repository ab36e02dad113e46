// A small crash measurement (scripts/reliability/crash.ts): real server processes killed with
// SIGKILL during concurrent writes, twice per backend; on etcd also one kill of etcd and one of
// two servers on one etcd. Nothing acknowledged may be lost and no version may go back.
import { describe, expect, it } from 'vitest';
import { ETCD_MISSING, etcdBinary } from '../../reference/src/etcd-process.ts';
import { type CrashReport, runCrash } from '../reliability/crash/run.ts';

function expectClean(report: CrashReport): void {
  const findings = report.rounds.flatMap((r) =>
    r.findings.map((f) => `${r.backend} ${r.phase} ${r.round}: ${f.kind} ${f.name ?? ''} ${f.detail}`),
  );
  expect(findings).toEqual([]);
  for (const s of report.summary) {
    expect(s.lost).toBe(0);
    expect(s.regressions).toBe(0);
    // the faults struck while writes were acknowledged
    expect(s.acked).toBeGreaterThan(s.rounds * 4);
    // a killed server's watchers reconnected (through an etcd outage the watches may stay open)
    if (s.phase !== 'etcd-kill') expect(s.resumed + s.gone).toBeGreaterThanOrEqual(s.rounds * 2);
    // while etcd was down the writes were answered (a Status), none went unanswered
    else {
      expect(Object.keys(s.failures).some((k) => /^5\d\d /.test(k))).toBe(true);
      expect(
        Object.keys(s.failures).filter((k) => k.startsWith('no answer') || k.includes('(not a Status)')),
      ).toEqual([]);
    }
  }
  expect(report.ok).toBe(true);
}

describe('crash measurement', () => {
  it('wal: kill -9 of the server twice, nothing acknowledged lost, no version back', async () => {
    const report = await runCrash({ backends: ['wal'], rounds: 2, writers: 4, watchers: 2, seed: 14 });
    expect(report.summary.map((s) => `${s.backend}/${s.phase}/${s.rounds}`)).toEqual(['wal/server-kill/2']);
    expectClean(report);
  }, 110_000);

  it('etcd: kill -9 of the server twice, of etcd once, of one of two servers once (needs etcd)', async () => {
    expect(etcdBinary(), ETCD_MISSING).toBeDefined();
    const report = await runCrash({
      backends: ['etcd'],
      rounds: 2,
      writers: 4,
      watchers: 2,
      etcdRounds: 1,
      peerRounds: 1,
      etcdDownMs: 2000,
      seed: 14,
    });
    expect(report.summary.map((s) => `${s.phase}/${s.rounds}`)).toEqual([
      'server-kill/2',
      'etcd-kill/1',
      'peer-kill/1',
    ]);
    expectClean(report);
  }, 110_000);
});
