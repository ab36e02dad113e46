// The command lines as one file each, for `orch-conformance serve` and `run`: started through
// tsx, a process spends most of its start resolving and loading its TypeScript modules one by
// one through the loader hooks (the reference's 430 modules: about 2.8 CPU seconds to its
// --help on this machine, against 1.2 from its bundle; the tests start a server process well
// over a hundred times in a CI run, and `run` dozens of times). esbuild bundles an entry's
// sources into one module (packages stay external and load from node_modules). What the sources
// load with `import()` only when a flag or a request needs it (the etcd client, the metrics
// library, ...) goes into chunks of its own, loaded at that `import()`: in one file, esbuild
// would hoist the packages those modules import to the bundle's top and load them at every
// start. A bundle is kept under node_modules/.cache (a folder a checkout) with the list of the
// files it was built from and their sizes and modification times; a change to any of them, or
// to this file, builds it again at the next start. Plain JavaScript: it runs before tsx is
// registered.
//
// ORCH_FROM_SOURCE=1 starts from the sources through tsx instead (also what happens when the
// bundle cannot be built or written, or while another process of this checkout builds it).
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mapStacksLazily } from './stack-map.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
/** One folder a checkout (worktrees may share node_modules). */
const CACHE = join(
  ROOT,
  'node_modules',
  '.cache',
  'orch-bundles',
  createHash('sha256').update(ROOT).digest('hex').slice(0, 12),
);
/** A build lock older than this was left by a process that died while building. */
const STALE_LOCK_MS = 60_000;
/**
 * A chunk the current build no longer names is removed once this old: a process started from
 * an earlier build may still load it at its first `import()` of it (chunks are named by their
 * content, so a chunk is never replaced by another of the same name).
 */
const OLD_CHUNK_MS = 24 * 3600 * 1000;

/**
 * The bundle of an entry (a path from the repository's root), the folder of its chunks and the
 * list of what it was built from.
 */
export function bundlePaths(entry) {
  const stem = join(CACHE, entry.replace(/[^A-Za-z0-9]+/g, '-'));
  return {
    file: `${stem}.mjs`,
    chunks: `${stem}.chunks`,
    inputs: `${stem}.inputs.json`,
    lock: `${stem}.lock`,
  };
}

const fingerprint = (file) => {
  const st = statSync(file);
  return `${st.size}:${st.mtimeMs}`;
};

/**
 * Whether the bundle was built from the files as they are now (each input, and this file) and
 * its chunks are all there.
 */
export function upToDate(entry) {
  const { file, chunks, inputs } = bundlePaths(entry);
  if (!existsSync(file) || !existsSync(inputs)) return false;
  try {
    const built = JSON.parse(readFileSync(inputs, 'utf8'));
    return (
      Object.entries(built.inputs).every(([f, print]) => fingerprint(join(ROOT, f)) === print) &&
      built.chunks.every((c) => existsSync(join(chunks, c)))
    );
  } catch {
    // an input is gone, or the list is damaged (or of an earlier form)
    return false;
  }
}

/**
 * A module's `import.meta.url`, `dirname` and `filename` are its source file's in the bundle
 * too (the sources read data files beside them: the published 1.28 schemas, the RBAC defaults,
 * Protobuf descriptors).
 */
const sourcePlaces = {
  name: 'source-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

/** Writes a file whole: a process loading it at the same time reads the old one or the new one. */
function writeWhole(path, contents) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/** What a build killed half-way left (the lock keeps out the other builders of this entry). */
const LEFT_OVER = /\.\d+\.tmp(\.mjs(\.map)?)?$/;

/** Removes an entry's left-overs, and the chunks no build of it has named for a while. */
function sweep(stem, chunks, keep) {
  for (const f of readdirSync(CACHE))
    if (f.startsWith(`${basename(stem)}.`) && LEFT_OVER.test(f)) rmSync(join(CACHE, f), { force: true });
  for (const f of readdirSync(chunks)) {
    const path = join(chunks, f);
    if (LEFT_OVER.test(f) || (!keep.has(f) && Date.now() - statSync(path).mtimeMs > OLD_CHUNK_MS))
      rmSync(path, { force: true });
  }
}

/** Builds an entry's bundle; false when another process of this checkout is building it. */
export async function build(entry) {
  const { file, chunks, inputs, lock } = bundlePaths(entry);
  mkdirSync(CACHE, { recursive: true });
  try {
    if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS)
      rmSync(lock, { force: true });
    closeSync(openSync(lock, 'wx'));
  } catch {
    return false;
  }
  try {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [join(ROOT, entry)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      splitting: true,
      outdir: CACHE,
      entryNames: basename(file, '.mjs'),
      chunkNames: `${basename(chunks)}/[name]-[hash]`,
      outExtension: { '.js': '.mjs' },
      write: false,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [sourcePlaces],
    });
    // esbuild's service process would live as long as this one (a server)
    await esbuild.stop();
    const built = { [relative(ROOT, SELF)]: fingerprint(SELF) };
    for (const f of Object.keys(result.metafile.inputs)) built[f] = fingerprint(join(ROOT, f));
    // the chunks first, the entry that imports them last
    mkdirSync(chunks, { recursive: true });
    const outputs = result.outputFiles.filter((o) => o.path !== file && o.path !== `${file}.map`);
    for (const o of outputs) writeWhole(o.path, o.contents);
    writeWhole(`${file}.map`, result.outputFiles.find((o) => o.path === `${file}.map`).contents);
    writeWhole(file, result.outputFiles.find((o) => o.path === file).contents);
    const named = outputs.map((o) => relative(chunks, o.path)).filter((c) => c.endsWith('.mjs'));
    writeWhole(inputs, JSON.stringify({ inputs: built, chunks: named }));
    sweep(file.slice(0, -'.mjs'.length), chunks, new Set(outputs.map((o) => basename(o.path))));
    return true;
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * An entry's module, from its bundle when it can be had, else from its sources through tsx.
 * Stack traces name the source files and lines: with `lazyStacks`, each bundle's source map is
 * read at the first stack trace through it (scripts/stack-map.mjs: a server's start does not
 * pay for it); else Node reads them all as the modules load (the run's vitest maps its own
 * frames on top of Node's).
 */
export async function load(entry, { lazyStacks = false } = {}) {
  if (process.env.ORCH_FROM_SOURCE !== '1') {
    let ready = upToDate(entry);
    try {
      ready ||= await build(entry);
    } catch {
      // not writable, or esbuild failed: the sources through tsx say what is wrong
    }
    if (ready) {
      if (lazyStacks) mapStacksLazily(CACHE);
      else process.setSourceMapsEnabled(true);
      return import(pathToFileURL(bundlePaths(entry).file).href);
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(ROOT, entry)).href);
}

/** The entries `orch-conformance` starts from their bundles. */
export const ENTRIES = ['reference/src/cli.ts', 'scripts/run.ts'];

// `node scripts/bundle.mjs`: build the bundles of the current sources now (npm test does, so
// the processes its tests start at once find them).
// `node scripts/bundle.mjs run ENTRY [ARGS]`: run an entry (a path from the repository's root)
// from its bundle, as `node --import tsx ENTRY ARGS` would (the tests' server fixtures).
if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  const [mode, entry, ...args] = process.argv.slice(2);
  if (mode === 'run' && entry) {
    process.argv = [process.execPath, join(ROOT, entry), ...args];
    await load(entry, { lazyStacks: true });
  } else if (mode === undefined) {
    for (const e of ENTRIES) {
      if (upToDate(e) || (await build(e))) process.stdout.write(`bundle: ${e}\n`);
      else process.stderr.write(`bundle: another process is building ${e}\n`);
    }
  } else {
    process.stderr.write('usage: node scripts/bundle.mjs [run ENTRY [ARGS]]\n');
    process.exit(2);
  }
}
