// Derives the Table columns of Kubernetes 1.28's built-in printers, with their descriptions, from
// the Kubernetes v1.28.0 source into reference/src/registry/kinds/printers-1.28.json. The kinds
// give each column its cell (registry/kinds/define.ts, `printed`); name, type, format, priority
// and description are these. The file is never edited by hand.
//
// The columns are the `[]metav1.TableColumnDefinition{...}` literals of
// pkg/printers/internalversion/printers.go (and of kube-aggregator's APIService storage). A
// description Kubernetes writes as `pkg.Type{}.SwaggerDoc()["field"]` is that field's documentation
// from the package's types_swagger_doc_generated.go, as the server answers it; a key the type's
// documentation lacks is the empty string there too. Words are the orch ones, as the harness's
// dialect maps what a Kubernetes server answers.
//
//   npx tsx scripts/gen-printer-columns.ts <kubernetes>           write the file
//   npx tsx scripts/gen-printer-columns.ts <kubernetes> --check   exit 1 when the file differs
//
// <kubernetes> is a checkout or git directory of Kubernetes v1.28.0 (read at HEAD); it defaults
// to ORCH_K8S_SOURCE.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dialect } from '../harness/src/dialect.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = join(ROOT, 'reference', 'src', 'registry', 'kinds', 'printers-1.28.json');

/** The sources of column definitions, and the name of the table each unnamed literal makes. */
const SOURCES: [path: string, unnamed?: string][] = [
  ['pkg/printers/internalversion/printers.go'],
  ['staging/src/k8s.io/kube-aggregator/pkg/registry/apiservice/etcd/etcd.go', 'apiService'],
];

interface Column {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
}

function reader(source: string): (path: string) => string {
  return (path) =>
    existsSync(join(source, path))
      ? readFileSync(join(source, path), 'utf8')
      : execFileSync('git', ['-C', source, 'show', `HEAD:${path}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** A Go interpreted string literal's value. */
const goString = (lit: string): string => JSON.parse(lit) as string;
const STRING = '"(?:[^"\\\\]|\\\\.)*"';

/** The import aliases of a Go file to their source directories. */
function imports(go: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of go.matchAll(/^\s*(\w+)?\s*"(k8s\.io\/[^"]+)"$/gm)) {
    const path = m[2]!;
    const dir = path.startsWith('k8s.io/kubernetes/')
      ? path.slice('k8s.io/kubernetes/'.length)
      : `staging/src/${path}`;
    out.set(m[1] ?? path.slice(path.lastIndexOf('/') + 1), dir);
  }
  return out;
}

/** The `SwaggerDoc()` maps of one package: type to field to documentation. */
function swaggerDocs(go: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const m of go.matchAll(/^var map_(\w+) = map\[string\]string\{\n([\s\S]*?)^\}/gm)) {
    const fields: Record<string, string> = {};
    for (const f of m[2]!.matchAll(new RegExp(`^\\s*(${STRING}):\\s*(${STRING}),$`, 'gm')))
      fields[goString(f[1]!)] = goString(f[2]!);
    out.set(m[1]!, fields);
  }
  return out;
}

/**
 * Reads the description expressions of one Go file: a literal, `pkg.Type{}.SwaggerDoc()["f"]`,
 * `pkg.Type{}.Field.SwaggerDoc()["f"]` or `alias["f"]`.
 */
function describer(path: string, go: string, read: (path: string) => string): (expr: string) => string {
  const pkgs = imports(go);
  // `var x = metav1.ObjectMeta{}.SwaggerDoc()`: x["field"] is that type's documentation
  const aliases = new Map<string, string[]>(
    [...go.matchAll(/^var (\w+) = (\w+\.\w+)\{\}\.SwaggerDoc\(\)$/gm)].map((m) => [m[1]!, [m[2]!]]),
  );
  return (expr) => {
    if (expr.startsWith('"')) return goString(expr);
    const typed = /^(\w+\.\w+)\{\}(?:\.(\w+))?\.SwaggerDoc\(\)\["(\w*)"\]$/.exec(expr)?.slice(1);
    const aliased = /^(\w+)\["(\w*)"\]$/.exec(expr);
    const [qualified, member, field] =
      typed ??
      (aliased && aliases.has(aliased[1]!) ? [aliases.get(aliased[1]!)![0], undefined, aliased[2]] : []);
    const [pkg, type] = qualified?.split('.') ?? [];
    const dir = pkg && pkgs.get(pkg);
    if (!dir || !type || field === undefined) throw new Error(`${path}: cannot read description ${expr}`);
    // a field's own type (`apiv1.Event{}.InvolvedObject.SwaggerDoc()`), as types.go declares it
    const of = member
      ? new RegExp(`^\\s*${member}\\s+\\*?(\\w+)\\b`, 'm').exec(read(`${dir}/types.go`))?.[1]
      : type;
    if (!of) throw new Error(`${dir}/types.go: no field ${member}`);
    return docOf(read, dir, of, field);
  };
}

const docs = new Map<string, Map<string, Record<string, string>>>();

/** The documentation of a type's field, `''` for a key the type's has not (as SwaggerDoc()[key]). */
function docOf(read: (path: string) => string, dir: string, type: string, field: string): string {
  if (!docs.has(dir)) docs.set(dir, swaggerDocs(read(`${dir}/types_swagger_doc_generated.go`)));
  const fields = docs.get(dir)!.get(type);
  if (!fields) throw new Error(`${dir}: no SwaggerDoc for ${type}`);
  return fields[field] ?? '';
}

/** The column definition literals of one Go file by table (`unnamed`: one not assigned to a variable). */
function tablesOf(path: string, read: (path: string) => string, unnamed?: string): Record<string, Column[]> {
  const go = read(path);
  const description = describer(path, go, read);
  const back = dialect('kubernetes').back;
  const tables: Record<string, Column[]> = {};
  let table: string | undefined;
  for (const line of go.split('\n')) {
    const start =
      /^\s*(\w+) :?= (?:append\(\w+, )?\[\]metav1\.TableColumnDefinition\{/.exec(line) ??
      /^\s*ColumnDefinitions: \[\]metav1\.TableColumnDefinition\{/.exec(line);
    if (start) {
      // `podColumnDefinitions` is `pod` (and printers.go's `networkPolicyColumnDefinitioins` too)
      table = (start[1] ?? unnamed)?.replace(/ColumnDef\w*$/, '');
      if (table && !line.includes(' append(')) tables[table] = [];
      continue;
    }
    const col = new RegExp(`^\\s*\\{Name: (${STRING}), (.*), Description: (.*)\\},$`).exec(line);
    if (!col) continue;
    if (!table) throw new Error(`${path}: a column outside a table: ${line}`);
    const c: Column = { name: goString(col[1]!), type: '', description: '' };
    for (const [, k, v] of col[2]!.matchAll(/(\w+): ("[^"]*"|\d+)/g)) {
      if (k === 'Type') c.type = goString(v!);
      else if (k === 'Format' && goString(v!)) c.format = goString(v!);
      else if (k === 'Priority' && Number(v)) c.priority = Number(v);
    }
    c.description = back(description(col[3]!.trim()));
    tables[table]!.push(c);
  }
  return tables;
}

export function generate(source: string): string {
  const read = reader(source);
  const tables = Object.assign({}, ...SOURCES.map(([path, unnamed]) => tablesOf(path, read, unnamed)));
  const lines = Object.entries(tables as Record<string, Column[]>).map(
    ([name, cols]) =>
      `  ${JSON.stringify(name)}: [\n${cols.map((c) => `    ${JSON.stringify(c)}`).join(',\n')}\n  ]`,
  );
  return `{\n${lines.join(',\n')}\n}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const source = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? process.env.ORCH_K8S_SOURCE;
  if (!source) {
    console.error('usage: gen-printer-columns.ts <Kubernetes v1.28.0 checkout or git dir> [--check]');
    process.exit(2);
  }
  const text = generate(source);
  if (process.argv.includes('--check')) {
    const have = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
    if (have !== text) {
      console.error(
        `${OUT} is not what ${source} gives: run npx tsx scripts/gen-printer-columns.ts ${source}`,
      );
      process.exit(1);
    }
    console.log('printer columns up to date');
  } else {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT} (${Object.keys(JSON.parse(text)).length} tables)`);
  }
}
