// The reaper: one small process beside each process that starts children (owned.ts). Its
// standard input is a pipe from that starter, on which the starter names, one JSON line at a
// time, the process groups it started and the directories they use ({"pid":N},
// {"dir":"/tmp/..."}, and {"gone":N} / {"kept":"/tmp/..."} when it took care of one itself).
// When the pipe closes the starter is gone, however it ended (exit, exception, signal,
// SIGKILL): the reaper sends each group still named SIGTERM, SIGKILL after a grace period,
// removes the directories, and exits. Plain JavaScript so that it starts without a loader.
import { rmSync } from 'node:fs';

const GRACE_MS = Number(process.env.ORCH_REAPER_GRACE_MS) || 3000;
const groups = new Set();
const dirs = new Set();
let pending = '';

function alive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid, sig) {
  try {
    process.kill(-pid, sig);
  } catch {
    // already gone
  }
}

async function reap() {
  for (const pid of groups) signal(pid, 'SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  while ([...groups].some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of groups) if (alive(pid)) signal(pid, 'SIGKILL');
  // a killed group lets go of its files at once; give the kernel a moment before removing
  const until = Date.now() + 1000;
  while ([...groups].some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
  process.exit(0);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl = pending.indexOf('\n');
  while (nl >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    nl = pending.indexOf('\n');
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      continue;
    }
    if (Number.isInteger(m.pid) && m.pid > 1) groups.add(m.pid);
    if (Number.isInteger(m.gone)) groups.delete(m.gone);
    if (typeof m.dir === 'string' && m.dir.length > 1) dirs.add(m.dir);
    if (typeof m.kept === 'string') dirs.delete(m.kept);
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
// the starter's own Ctrl-C or SIGTERM must not take the reaper before the starter is gone
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => undefined);
