// Puts back the package-lock.json entries npm 11 leaves out, so that `npm ci` accepts the lock.
//
// A package may list optional dependencies that the registry does not have at the pinned
// version. Biome 2.6.8 is one: its macOS, Windows, Android and musl binaries are missing, and
// only the glibc Linux ones are published. `npm install` skips such a dependency and writes no
// lock entry for it. `npm ci` (npm 11.16 and later) then builds the tree again, finds the
// dependency declared without an entry, and refuses the lock with "Missing:
// @biomejs/cli-darwin-arm64@ from lock file". Regenerating the lock gives the same result.
//
// The fix is an entry for each missing dependency: the exact version its parent pins, marked
// optional, with the os/cpu/libc fields of the newest published version of that package (a
// platform package keeps these from one version to the next). When the registry has no
// version at all (biome's Android binaries), the fields come from the package name
// (`cli-android-arm64`). `npm ci` then skips it on every machine whose platform does not
// match. Where the platform does match, npm fetches it and goes on without it if it cannot.
//
//   npm run lock:optional          add the missing entries, then let npm normalize the lock
//   npm run lock:optional -- --check   list them and exit 1 when there are any
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

export interface Lock {
  packages: Record<string, LockEntry>;
  [k: string]: unknown;
}

export interface MissingOptional {
  /** Where npm would place it: `node_modules/<name>` (hoisted). */
  path: string;
  name: string;
  version: string;
  /** The lock path of the package that declares it. */
  parent: string;
  dev: boolean;
}

const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Node's lookup from a package's folder: its own node_modules, then each one above it. */
function resolvesTo(lock: Lock, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

/** Optional dependencies declared by a locked package that have no entry the lock resolves to. */
export function missingOptional(lock: Lock): MissingOptional[] {
  const out = new Map<string, MissingOptional>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      if (resolvesTo(lock, path, name)) continue;
      const at = `node_modules/${name}`;
      const prev = out.get(at);
      out.set(at, {
        path: at,
        name,
        version: spec,
        parent: path,
        dev: (prev?.dev ?? true) && entry.dev === true,
      });
    }
  }
  return [...out.values()];
}

const OSES = [
  'aix',
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'openharmony',
  'sunos',
  'win32',
];
const CPUS = ['arm', 'arm64', 'ia32', 'loong64', 'mips64el', 'ppc64', 'riscv64', 's390x', 'wasm32', 'x64'];

/**
 * The platform a package's name spells, as platform packages are named (`cli-darwin-arm64`,
 * `linux-x64-musl`, `binding-win32-x64-msvc`): exactly one os word and one cpu word, and
 * `musl` or `gnu` for the C library. Anything else: undefined.
 */
export function platformFromName(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> | undefined {
  const words = (name.split('/').pop() ?? '').split('-');
  const os = words.filter((w) => OSES.includes(w));
  const cpu = words.filter((w) => CPUS.includes(w));
  if (os.length !== 1 || cpu.length !== 1) return undefined;
  const libc = words.includes('musl') ? ['musl'] : words.includes('gnu') ? ['glibc'] : undefined;
  return { os, cpu, ...(libc ? { libc } : {}) };
}

/** os/cpu/libc of the newest published version; the name's words when the registry has none. */
function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> | undefined {
  try {
    const text = execFileSync('npm', ['view', name, '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const m = JSON.parse(text) as { os?: string[]; cpu?: string[]; libc?: string[] };
    if (m.os || m.cpu || m.libc) return { os: m.os, cpu: m.cpu, libc: m.libc };
  } catch {
    // not published at all: fall back on the name
  }
  return platformFromName(name);
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const file = join(root, 'package-lock.json');
  const lock = JSON.parse(readFileSync(file, 'utf8')) as Lock;
  const missing = missingOptional(lock);
  for (const m of missing)
    console.log(`missing: ${m.name}@${m.version} (optional dependency of ${m.parent})`);
  if (process.argv.includes('--check')) process.exit(missing.length ? 1 : 0);
  for (const m of missing) {
    if (!EXACT.test(m.version))
      throw new Error(
        `${m.name}@${m.version}: only exact versions can be written without the registry's answer`,
      );
    const p = platformOf(m.name);
    if (!p)
      throw new Error(
        `${m.name}: no os/cpu published and none in its name; an entry without them would be installed everywhere`,
      );
    const entry: LockEntry = { version: m.version };
    if (p.cpu) entry.cpu = p.cpu;
    if (m.dev) entry.dev = true;
    if (p.libc) entry.libc = p.libc;
    entry.optional = true;
    if (p.os) entry.os = p.os;
    lock.packages[m.path] = entry;
  }
  if (missing.length === 0) return;
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  // npm keeps the entries and writes the lock in its own order
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
  });
  console.log(`added ${missing.length} entr${missing.length === 1 ? 'y' : 'ies'} to package-lock.json`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
