// A small crash measurement (scripts/reliability/crash.ts): real server processes killed with
// SIGKILL during concurrent writes, twice per backend; on etcd also one kill of etcd and one of
// two servers on one etcd. Nothing acknowledged may be lost and no version may go back.
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { etcdBinary } from '../../reference/src/etcd-process.ts';
import { type CrashReport, runCrash } from '../reliability/crash/run.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Whether `serve` knows --etcd-servers (the etcd backend is built in). */
function serveHasEtcd(): boolean {
  const help = execFileSync(process.execPath, [join(ROOT, 'scripts/bin.mjs'), 'serve', '--help'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return help.includes('--etcd-servers');
}
const etcdReady = etcdBinary() !== undefined && serveHasEtcd();

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

  it.skipIf(!etcdReady)(
    'etcd: kill -9 of the server twice, of etcd once, of one of two servers once (needs etcd and serve --etcd-servers)',
    async () => {
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
    },
    110_000,
  );
});
