// Installs npm dependencies when they are missing or stale, so a fresh clone works
// with a single command (`npm test`, `npm run conformance`).
//
// No node_modules at all (a fresh clone, CI): `npm ci`, which installs exactly what
// package-lock.json pins and fails if the lock does not match package.json. node_modules
// present but older than the lock (someone changed the lock): `npm install`, which keeps
// the lock's pins and installs only what changed. `npm ci` would delete node_modules first,
// and node_modules may be a symlink to a tree shared with other checkouts.
import { execSync } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const marker = join(modules, '.package-lock.json');
const lock = join(root, 'package-lock.json');

/** lstat, so that a dangling symlink counts as present and is left alone. */
function present(p) {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

if (!present(modules)) {
  process.stderr.write('installing npm dependencies (npm ci) ...\n');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
} else {
  const stale =
    !existsSync(marker) ||
    (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000) ||
    !existsSync(join(modules, '.bin', 'vitest'));
  if (stale) {
    process.stderr.write('updating npm dependencies (npm install) ...\n');
    execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  }
}

// etcd (Debian's etcd-server) for the etcd storage backend's tests, `serve --etcd`, the
// reliability scripts and the benchmarks. Installed with apt-get where this process may (root,
// or sudo without a password); otherwise a clear message, and what needs etcd fails saying so.
const etcdCandidates = [
  process.env.ORCH_ETCD_BIN,
  ...(process.env.PATH ?? '').split(':').map((d) => d && join(d, 'etcd')),
  '/usr/bin/etcd',
];
if (!etcdCandidates.some((c) => c && existsSync(c))) {
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (cmd) =>
    execSync([...asRoot, cmd].join(' '), {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    process.stderr.write('installing etcd (Debian etcd-server) ...\n');
    run('apt-get update -qq');
    run('apt-get install -y -qq etcd-server');
  } catch (e) {
    process.stderr.write(
      `could not install etcd (apt-get install etcd-server needs root: ${String(e.stderr ?? e.message)
        .trim()
        .split('\n')
        .pop()}).\n` +
        'The etcd backend tests, `serve --etcd` and the etcd benchmarks will fail until it is installed\n' +
        '(apt-get install etcd-server, or ORCH_ETCD_BIN=/path/to/etcd).\n',
    );
  }
}
