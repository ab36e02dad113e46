// The end of `.ci/run`: nothing the run started may outlive it.
// `node scripts/ci-leftovers.mjs [--grace=SECONDS] RUN_ID TMP [ALLOWED...]` lists the processes
// whose environment carries ORCH_CI_RUN=RUN_ID (every process the run started inherits it,
// whoever its parent is now) other than itself and the shell that called it, and the entries left in TMP (the run's private TMPDIR) other than the
// ALLOWED name prefixes (a tool's cache). It names each leftover with its command line, ends
// the processes and removes the entries (so one run's leak does not reach the next), and exits
// 1 when there was any. With --grace, what it finds may still go within that many seconds (a
// child has that long to follow its starter): it looks again every 100 ms until nothing is left
// or the grace is over, so a clean run does not wait. Plain JavaScript: it must run when
// nothing else can.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const grace = /^--grace=(\d+(?:\.\d+)?)$/.exec(argv[0] ?? '');
if (grace) argv.shift();
const [runId, tmp, ...allowed] = argv;
if (!runId || !tmp) {
  process.stderr.write(
    'usage: node scripts/ci-leftovers.mjs [--grace=SECONDS] RUN_ID TMP [ALLOWED_PREFIX...]\n',
  );
  process.exit(2);
}
const mark = `ORCH_CI_RUN=${runId}`;
const self = new Set([process.pid, process.ppid]);

/** The run's processes still there, and what is left in its temporary directory. */
function scan() {
  const left = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || self.has(pid)) continue;
    let env;
    let cmd;
    try {
      env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (env.includes(mark)) left.push({ pid, cmd });
  }
  let files = [];
  try {
    files = readdirSync(tmp).filter((name) => !allowed.some((p) => name.startsWith(p)));
  } catch {
    files = [];
  }
  return { left, files };
}

const until = Date.now() + (grace ? Number(grace[1]) * 1000 : 0);
let { left, files } = scan();
while ((left.length || files.length) && Date.now() < until) {
  await new Promise((r) => setTimeout(r, 100));
  ({ left, files } = scan());
}

for (const p of left) process.stderr.write(`left running: pid ${p.pid}: ${p.cmd}\n`);
for (const f of files) process.stderr.write(`left in the run's temporary directory: ${join(tmp, f)}\n`);
for (const p of left) {
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    // ended meanwhile
  }
}
for (const f of files) rmSync(join(tmp, f), { recursive: true, force: true });
if (left.length || files.length) {
  process.stderr.write(
    `CI: ${left.length} process(es) and ${files.length} temporary entr${files.length === 1 ? 'y' : 'ies'} outlived the run that started them\n`,
  );
  process.exit(1);
}
process.stdout.write('CI: no process and no temporary directory outlived the run\n');
