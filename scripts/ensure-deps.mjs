// Installs npm dependencies when they are missing or stale, so a fresh clone works
// with a single command (`npm test`, `npm run conformance`).
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const stale =
  !existsSync(marker) ||
  (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000) ||
  !existsSync(join(root, 'node_modules', '.bin', 'vitest'));
if (stale) {
  process.stderr.write('installing npm dependencies ...\n');
  // `npm install` keeps the versions the lock file pins; `npm ci` is not used because npm 11
  // refuses a lock file that lacks other platforms' optional packages (biome's binaries).
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
