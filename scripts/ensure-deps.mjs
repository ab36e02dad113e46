// Installs npm dependencies when they are missing or stale, so a fresh clone works
// with a single command (`npm test`, `npm run conformance`).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';
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
  const cmd = existsSync(lock) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund';
  execSync(cmd, { cwd: root, stdio: 'inherit' });
}
void readFileSync;
