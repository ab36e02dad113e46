// The reference in another dialect's words: the same sources bundled once more, with every
// string literal, template literal and regular expression literal put through the dialect's
// word table (../util/words.ts) as the bundle is built, and ../util/dialect.ts saying which
// dialect it is. The words are chosen when the bundle is built, never per request: a Protobuf
// type name, a discovery document, an error message, a metric label and an audit annotation
// come out in the dialect's words because the code that makes them says them.
//
// The bundle is kept under node_modules/.cache/orch-dialects, in a folder named by the dialect
// and a digest of every source file's path, size and modification time: a changed source builds
// it anew at the next start. Builders write a folder of their own and rename it into place, so
// two processes building at once both succeed (the second finds the first's).
//
// Hand-written, not a library: the one library that maps literals in TypeScript is its
// compiler (its parser finds them here; esbuild bundles).
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DialectName } from '../util/dialect.ts';
import { inKubernetesWords, KUBERNETES_PAIRS, kubernetesIdentifier } from '../util/words.ts';

/** The module of reference/src/index.ts (typed by the caller: this module does not import it). */
type Index = Record<string, unknown>;

/** reference/src */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(SRC, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'orch-dialects');
/** Modules the build leaves as written: the table itself, and the dialect's name (replaced). */
const WORDS_MODULE = join(SRC, 'util', 'words.ts');
const DIALECT_MODULE = join(SRC, 'util', 'dialect.ts');
/** A build folder older than this is another source state's, or a builder's that died. */
const OLD_BUILD_MS = 24 * 3600 * 1000;

const loaded = new Map<DialectName, Promise<Index>>();

/** The reference's module (its `build()`) in `dialect`'s words, built at the first call. */
export function dialectBuild(dialect: DialectName): Promise<Index> {
  let p = loaded.get(dialect);
  if (!p) {
    p = load(dialect);
    loaded.set(dialect, p);
    p.catch(() => loaded.delete(dialect));
  }
  return p;
}

async function load(dialect: DialectName): Promise<Index> {
  const dir = join(CACHE, `${dialect}-${sourceDigest()}`);
  const entry = join(dir, 'index.mjs');
  if (!existsSync(entry)) await bundle(dialect, dir);
  return (await import(pathToFileURL(entry).href)) as Index;
}

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Every source and data file of reference/src, by path, size and modification time. */
function sourceDigest(): string {
  const h = createHash('sha256');
  for (const f of [...files(SRC)].sort()) {
    const st = statSync(f);
    h.update(`${relative(SRC, f)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return h.digest('hex').slice(0, 16);
}

async function bundle(dialect: DialectName, dir: string): Promise<void> {
  const [esbuild, ts] = await Promise.all([import('esbuild'), import('typescript')]);
  const mapper = literalMapper(ts.default ?? ts, dialect);
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { index: join(SRC, 'index.ts') },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    splitting: true,
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: `words-${dialect}`,
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, (args) => {
            const text = readFileSync(args.path, 'utf8');
            const mapped =
              args.path === DIALECT_MODULE
                ? text.replace(/DIALECT: DialectName = 'orch'/, `DIALECT: DialectName = '${dialect}'`)
                : args.path === WORDS_MODULE || !args.path.startsWith(SRC)
                  ? text
                  : mapper(text, args.path);
            // a module's import.meta.url stays its source's: the sources read data files beside them
            return { contents: sourcePlaces(mapped, args.path), loader: 'ts' };
          });
        },
      },
    ],
  });
  await esbuild.stop();
  for (const o of result.outputFiles) {
    mkdirSync(dirname(o.path), { recursive: true });
    writeFileSync(o.path, o.contents);
  }
  try {
    renameSync(tmp, dir);
  } catch (e) {
    // another process put its build there first: the same sources, the same bundle
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(dir, 'index.mjs'))) throw e;
  }
  sweep(dir);
}

/**
 * `import.meta` spelled so that no bundler's rewriting of it touches this module's own text (the
 * command line's bundle of these sources rewrites it the same way).
 */
const META = ['import', 'meta', ''].join('.');

function sourcePlaces(text: string, path: string): string {
  if (!text.includes(META)) return text;
  return text
    .replaceAll(`${META}url`, JSON.stringify(pathToFileURL(path).href))
    .replaceAll(`${META}dirname`, JSON.stringify(dirname(path)))
    .replaceAll(`${META}filename`, JSON.stringify(path));
}

/** Removes the builds of earlier source states once they are old. */
function sweep(keep: string): void {
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (path !== keep && Date.now() - statSync(path).mtimeMs > OLD_BUILD_MS)
      rmSync(path, { recursive: true, force: true });
  }
}

type TS = typeof import('typescript');

/**
 * A function that maps the words of a TypeScript module's literals: strings and template parts
 * (the text between their quotes), regular expressions (where a word is written with its dots
 * and slashes escaped), and identifiers that are a word whole (configuration fields read as
 * properties). Module specifiers stay as written.
 */
export function literalMapper(ts: TS, dialect: DialectName): (text: string, path: string) => string {
  if (dialect === 'orch') return (text) => text;
  const words = inKubernetesWords;
  const escaped = (s: string) => s.replace(/[./]/g, (c) => `\\${c}`);
  const regexPairs = KUBERNETES_PAIRS.map(([o, k]) => [escaped(o), escaped(k)] as const).sort(
    (a, b) => b[0].length - a[0].length,
  );
  const inRegex = (s: string) => {
    let out = '';
    for (let i = 0; i < s.length; ) {
      const hit = regexPairs.find(([o]) => s.startsWith(o, i));
      if (hit) {
        out += hit[1];
        i += hit[0].length;
      } else out += s[i++];
    }
    return out;
  };
  const K = ts.SyntaxKind;
  return (text, path) => {
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const edits: { start: number; end: number; text: string }[] = [];
    const visit = (node: import('typescript').Node): void => {
      switch (node.kind) {
        case K.StringLiteral:
        case K.NoSubstitutionTemplateLiteral:
        case K.TemplateHead:
        case K.TemplateMiddle:
        case K.TemplateTail: {
          if (isModuleSpecifier(ts, node)) return;
          const start = node.getStart(sf);
          const raw = text.slice(start, node.end);
          const mapped = words(raw);
          if (mapped !== raw) edits.push({ start, end: node.end, text: mapped });
          return;
        }
        case K.Identifier: {
          // a configuration field read as a property (`block.orchConfigFile`): renamed
          // wherever it appears, so declarations and uses still agree
          const mapped = kubernetesIdentifier((node as import('typescript').Identifier).text);
          if (mapped) edits.push({ start: node.getStart(sf), end: node.end, text: mapped });
          return;
        }
        case K.RegularExpressionLiteral: {
          const start = node.getStart(sf);
          const raw = text.slice(start, node.end);
          const mapped = inRegex(raw);
          if (mapped !== raw) edits.push({ start, end: node.end, text: mapped });
          return;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    let out = text;
    for (const e of edits.sort((a, b) => b.start - a.start))
      out = out.slice(0, e.start) + e.text + out.slice(e.end);
    return out;
  };
}

function isModuleSpecifier(ts: TS, node: import('typescript').Node): boolean {
  const p = node.parent;
  if (!p) return false;
  if ((ts.isImportDeclaration(p) || ts.isExportDeclaration(p)) && p.moduleSpecifier === node) return true;
  if (ts.isExternalModuleReference(p)) return true;
  if (ts.isLiteralTypeNode(p) && ts.isImportTypeNode(p.parent)) return true;
  return ts.isCallExpression(p) && p.expression.kind === ts.SyntaxKind.ImportKeyword;
}
