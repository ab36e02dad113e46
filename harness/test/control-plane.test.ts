// The real control plane the project starts (harness/src/control-plane/): it is ready with
// etcd, kube-apiserver and the controller manager running, and everything it started ends
// with its starter, also when the starter is killed with SIGKILL (lifeline/reaper.mjs): checked
// with the operating system (kill -0 on each pid, the working directory's existence).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'start-control-plane.ts');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('control plane', () => {
  it('ends with its starter: kill -9 of the starter leaves no process and no directory within 5 s', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const ready = await new Promise<{ pids: Record<string, number>; dir: string; url: string }>(
      (resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          const nl = out.indexOf('\n');
          if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
        });
        child.on('exit', (c) =>
          reject(
            new Error(`the starter exited (${c}) before the control plane was ready: ${err.slice(-2000)}`),
          ),
        );
      },
    );
    expect(Object.keys(ready.pids).sort()).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager']);
    for (const [name, pid] of Object.entries(ready.pids)) expect(alive(pid), `${name} runs`).toBe(true);
    expect(existsSync(ready.dir)).toBe(true);

    child.kill('SIGKILL');
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (Object.values(ready.pids).some(alive) || existsSync(ready.dir)))
      await new Promise((r) => setTimeout(r, 100));
    const left = Object.entries(ready.pids).filter(([, pid]) => alive(pid));
    expect(left, 'processes still running 5 s after the starter was killed').toEqual([]);
    expect(existsSync(ready.dir), `${ready.dir} still there`).toBe(false);
  }, 120_000);
});
