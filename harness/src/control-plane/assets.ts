// The binaries of a Kubernetes control plane, found in one folder the way envtest's
// KUBEBUILDER_ASSETS holds them (etcd, kube-apiserver, and here kube-controller-manager too).
// A folder of xz-compressed binaries (../shared/kubernetes-1.28/bin) is decompressed once into
// .orch/kubernetes-assets/ (ignored by git), checked against the SHA256SUMS beside them.
// etcd may also come from ORCH_ETCD_BIN or PATH (Debian's etcd-server).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ASSETS_ENV = 'ORCH_KUBERNETES_ASSETS';
export const ENVTEST_ASSETS_ENV = 'KUBEBUILDER_ASSETS';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The shared folder beside the repository that holds Kubernetes 1.28's binaries. */
export const SHARED_ASSETS = resolve(ROOT, '..', 'shared', 'kubernetes-1.28', 'bin');
const UNPACKED = join(ROOT, '.orch', 'kubernetes-assets');

export interface Assets {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  /** `Kubernetes v1.28.0` */
  version: string;
  /** The admission plugins the API server has on by default, and all it knows (its --help says). */
  admissionPlugins: { defaults: string[]; all: string[] };
}

export const HOW_TO_GET_ASSETS = `point --kubernetes-assets (or ${ASSETS_ENV}, or envtest's ${ENVTEST_ASSETS_ENV}) at a folder holding kube-apiserver and kube-controller-manager (plain or .xz), and etcd unless Debian's etcd-server is installed (apt-get install etcd-server): this repository's ../shared/kubernetes-1.28/bin, or the folder \`setup-envtest use 1.28.x -p path\` prints with the kube-controller-manager of the same release added`;

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The sums a SHA256SUMS file beside the binaries lists, by file name. */
function sums(dir: string): Map<string, string> {
  const f = join(dir, 'SHA256SUMS');
  const out = new Map<string, string>();
  if (!existsSync(f)) return out;
  for (const line of readFileSync(f, 'utf8').split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S+)$/.exec(line.trim());
    if (m) out.set(m[2]!, m[1]!);
  }
  return out;
}

/** `dir/name`, or `dir/name.xz` decompressed once into .orch/kubernetes-assets. */
export function unpackedBinary(dir: string, name: string): string | undefined {
  const plain = join(dir, name);
  if (executable(plain)) return plain;
  const xz = `${plain}.xz`;
  if (!existsSync(xz)) return undefined;
  // one folder per source folder; a changed .xz (size, time) is decompressed anew
  const key = createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 16);
  const out = join(UNPACKED, key, `${name}-${statSync(xz).size}-${Math.trunc(statSync(xz).mtimeMs)}`);
  if (executable(out)) return out;
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    execFileSync('sh', ['-c', 'xz -dc "$1" > "$2" && chmod 755 "$2"', 'unxz', xz, tmp], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`cannot decompress ${xz} (is xz installed?): ${(e as Error).message}`);
  }
  const want = sums(dir).get(name);
  if (want && sha256(tmp) !== want)
    throw new Error(`${xz} decompressed to a binary whose SHA-256 is not the one SHA256SUMS lists`);
  renameSync(tmp, out);
  return out;
}

function etcdBinary(dir: string): string | undefined {
  const here = unpackedBinary(dir, 'etcd');
  if (here) return here;
  const env = process.env.ORCH_ETCD_BIN;
  if (env && executable(env)) return env;
  for (const d of (process.env.PATH ?? '').split(':').filter(Boolean))
    if (executable(join(d, 'etcd'))) return join(d, 'etcd');
  return executable('/usr/bin/etcd') ? '/usr/bin/etcd' : undefined;
}

/** The folder a run was pointed at: the flag, else ORCH_KUBERNETES_ASSETS, else KUBEBUILDER_ASSETS. */
export function assetsDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const d = flag ?? (env[ASSETS_ENV] || env[ENVTEST_ASSETS_ENV] || undefined);
  return d ? resolve(d) : undefined;
}

/** The binaries in `dir`, or an error that says what is missing and how to get it. */
export function resolveAssets(dir: string): Assets {
  if (!existsSync(dir)) throw new Error(`no folder ${dir}: ${HOW_TO_GET_ASSETS}`);
  const kubeApiserver = unpackedBinary(dir, 'kube-apiserver');
  const kubeControllerManager = unpackedBinary(dir, 'kube-controller-manager');
  const etcd = etcdBinary(dir);
  const missing = [
    kubeApiserver ? '' : 'kube-apiserver',
    kubeControllerManager ? '' : 'kube-controller-manager',
    etcd ? '' : 'etcd',
  ].filter(Boolean);
  if (missing.length) throw new Error(`${dir} lacks ${missing.join(', ')}: ${HOW_TO_GET_ASSETS}`);
  const version = execFileSync(kubeApiserver!, ['--version'], { encoding: 'utf8', timeout: 20_000 }).trim();
  return {
    etcd: etcd!,
    kubeApiserver: kubeApiserver!,
    kubeControllerManager: kubeControllerManager!,
    version,
    admissionPlugins: admissionPlugins(kubeApiserver!),
  };
}

/** The plugin lists of `--enable-admission-plugins` in the API server's own help. */
function admissionPlugins(bin: string): { defaults: string[]; all: string[] } {
  // --help exits 0 and prints to standard output
  const help = execFileSync(bin, ['--help'], { encoding: 'utf8', timeout: 20_000, maxBuffer: 8 << 20 });
  const line = help.split('\n').find((l) => l.trim().startsWith('--enable-admission-plugins')) ?? '';
  const names = (s: string | undefined) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => /^[A-Z][A-Za-z]+$/.test(x));
  const defaults = names(/default enabled ones \(([^)]*)\)/.exec(line)?.[1]);
  const all = names(/list of admission plugins: ([^.]*)\./.exec(line)?.[1]);
  if (!defaults.length || !all.length)
    throw new Error(`${bin} --help does not list its admission plugins as kube-apiserver 1.28 does`);
  return { defaults, all };
}
