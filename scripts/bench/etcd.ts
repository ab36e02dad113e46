// The etcd side of the benchmark: one real etcd child (Debian's etcd-server, started by
// reference/src/etcd-process.ts) and what it did while a measurement ran: its CPU (from
// /proc) and its disk syncs (from its /metrics: WAL fsyncs and backend commits), so that a
// figure on etcd can say whether etcd's disk or the server's CPU was the limit.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { type EtcdProcess, etcdBinary, etcdVersion, startEtcd } from '../../reference/src/etcd-process.ts';

export interface EtcdBench {
  etcd: EtcdProcess;
  /** `3.4.23`, or `unknown`. */
  version: string;
  /** Filesystem type of the data directory (`tmpfs`, `ext4`, `overlay`, ...). */
  fsType: string;
  stats(): Promise<EtcdStats>;
  stop(): Promise<void>;
}

export interface EtcdStats {
  /** Wall clock, ms. */
  at: number;
  /** etcd's CPU time (user + system), seconds. */
  cpuSec: number;
  walFsyncs: number;
  walFsyncSec: number;
  commits: number;
  commitSec: number;
}

/** What etcd did between two `stats()`. */
export interface EtcdUse {
  /** etcd's CPU in cores over the span. */
  cores: number;
  walFsyncs: number;
  /** Mean WAL fsync latency, ms. */
  walFsyncMs: number;
  commits: number;
  commitMs: number;
}

export function etcdUse(a: EtcdStats, b: EtcdStats): EtcdUse {
  const fsyncs = b.walFsyncs - a.walFsyncs;
  const commits = b.commits - a.commits;
  return {
    cores: (b.cpuSec - a.cpuSec) / ((b.at - a.at) / 1000),
    walFsyncs: fsyncs,
    walFsyncMs: fsyncs > 0 ? ((b.walFsyncSec - a.walFsyncSec) / fsyncs) * 1000 : Number.NaN,
    commits,
    commitMs: commits > 0 ? ((b.commitSec - a.commitSec) / commits) * 1000 : Number.NaN,
  };
}

/** The filesystem type of the mount that holds `path` (longest mount point prefix in /proc/mounts). */
export function fsTypeOf(path: string): string {
  try {
    let best = { dir: '', type: 'unknown' };
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, dir, type] = line.split(' ');
      if (!dir || !type) continue;
      const d = dir.replace(/\\040/g, ' ');
      const inside = path === d || path.startsWith(d.endsWith('/') ? d : `${d}/`);
      if (inside && d.length >= best.dir.length) best = { dir: d, type };
    }
    return best.type;
  } catch {
    return 'unknown';
  }
}

/** A process's CPU time (user + system) in seconds, from /proc. */
export function cpuSecOf(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    // fields after the command name (which is in parentheses): utime is the 14th field, stime the 15th
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // clock ticks (USER_HZ = 100 on Linux)
  } catch {
    return Number.NaN;
  }
}

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

export async function startEtcdBench(): Promise<EtcdBench> {
  const etcd = await startEtcd();
  const bin = etcdBinary();
  const version = (bin && etcdVersion(bin)) || 'unknown';
  return {
    etcd,
    version,
    fsType: fsTypeOf(etcd.dataDir),
    async stats() {
      const r = await request(`${etcd.url}/metrics`, { headersTimeout: 10_000, bodyTimeout: 10_000 });
      const text = await r.body.text();
      return {
        at: performance.now(),
        cpuSec: cpuSecOf(etcd.pid()),
        walFsyncs: metric(text, 'etcd_disk_wal_fsync_duration_seconds_count'),
        walFsyncSec: metric(text, 'etcd_disk_wal_fsync_duration_seconds_sum'),
        commits: metric(text, 'etcd_disk_backend_commit_duration_seconds_count'),
        commitSec: metric(text, 'etcd_disk_backend_commit_duration_seconds_sum'),
      };
    },
    stop: () => etcd.stop(),
  };
}
