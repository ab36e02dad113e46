// Derives the Protobuf message descriptions of every built-in kind from a Kubernetes 1.28 source
// tree, into reference/src/content/protobuf/messages-1.28.json (the messages) and kinds-1.28.json
// (`<apiVersion>/<kind>` to its message, in the orch words). The codec
// (reference/src/content/protobuf/codec.ts) reads them at the first Protobuf message; the kinds
// file is small so that asking which kinds have a Protobuf form costs nothing at start.
//
// Facts come from two places in each API package: `generated.proto` (message names, field
// numbers and types) and the Go structs beside it (their `json` tags name the fields as JSON
// does, which differs from the Protobuf name in a few places such as `$ref`,
// `x-kubernetes-*`; a `*T` field is a pointer, written only when set; `omitempty` tells which
// zero values Go's JSON keeps; a `+k8s:deepcopy-gen:interfaces=...runtime.Object` marker
// makes a struct a kind). A field the Go structs do not describe keeps its Protobuf name.
//
//   npx tsx scripts/gen-protobuf-messages.ts [<kubernetes repo or checkout>] [--rev v1.28.0]
//   npx tsx scripts/gen-protobuf-messages.ts [<...>] --check   exit 1 when the files differ
//
// The argument is either a work tree (with staging/src/k8s.io) or a bare git repository, read
// at HEAD (or --rev) with `git show`; without it, $ORCH_K8S_SOURCE, else the mirror of the
// v1.28.0 tree beside this checkout (../.mirror/renoce+kubernetes-1.28.0-read/repo).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'reference', 'src', 'content', 'protobuf');
export const MESSAGES_OUT = join(OUT_DIR, 'messages-1.28.json');
export const KINDS_OUT = join(OUT_DIR, 'kinds-1.28.json');
export const DEFAULT_SOURCE =
  process.env.ORCH_K8S_SOURCE ?? join(ROOT, '..', '.mirror', 'renoce+kubernetes-1.28.0-read', 'repo');

/** The packages whose messages are read, under staging/src/k8s.io. */
const PACKAGE_ROOTS = [
  'api/',
  'apimachinery/pkg/',
  'apiextensions-apiserver/pkg/apis/',
  'kube-aggregator/pkg/apis/',
];
/** Packages left out: fixtures of Kubernetes' own tests. */
const SKIP = ['apimachinery/pkg/apis/testapigroup/'];

// ---------------------------------------------------------------- reading the tree

interface Tree {
  list(dir: string): string[];
  read(path: string): string;
}

function openTree(where: string, rev: string): Tree {
  if (existsSync(join(where, 'staging', 'src', 'k8s.io'))) {
    return {
      list(dir) {
        const out: string[] = [];
        const walk = (d: string) => {
          for (const f of readdirSync(join(where, d))) {
            const p = `${d}/${f}`;
            if (statSync(join(where, p)).isDirectory()) walk(p);
            else out.push(p);
          }
        };
        walk(dir);
        return out;
      },
      read: (path) => readFileSync(join(where, path), 'utf8'),
    };
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', where, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  return {
    list: (dir) => git('ls-tree', '-r', '--name-only', rev, `${dir}/`).split('\n').filter(Boolean),
    read: (path) => git('show', `${rev}:${path}`),
  };
}

// ---------------------------------------------------------------- the data files' shape

/** As reference/src/content/protobuf/schema.ts's FieldDef (see there), plus `inline`. */
interface FieldOut {
  json: string;
  no: number;
  type: string | { msg: string };
  repeated?: true;
  map?: true;
  ptr?: true;
  keep?: true;
  inline?: true;
}

interface MessageOut {
  name: string;
  /** How the message's JSON form differs from an object of its fields (codec.ts ADAPTERS). */
  adapt?: string;
  fields: FieldOut[];
}

/** Messages that stand for Go types with their own JSON form. */
const SPECIAL_TYPES: Record<string, string> = {
  'apimachinery/pkg/apis/meta/v1.Time': 'time',
  'apimachinery/pkg/apis/meta/v1.MicroTime': 'microtime',
  'apimachinery/pkg/apis/meta/v1.FieldsV1': 'fieldsV1',
};
const ADAPTED: Record<string, string> = {
  'apimachinery/pkg/api/resource.Quantity': 'quantity',
  'apimachinery/pkg/util/intstr.IntOrString': 'intOrString',
  'apimachinery/pkg/apis/meta/v1.Duration': 'duration',
  'apimachinery/pkg/runtime.RawExtension': 'rawJSON',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON': 'rawJSON',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON': 'rawJSON',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray': 'schemaOrArray',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrArray': 'schemaOrArray',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool': 'schemaOrBool',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrBool': 'schemaOrBool',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray': 'schemaOrStringArray',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrStringArray':
    'schemaOrStringArray',
};
const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

// ---------------------------------------------------------------- generated.proto

interface ProtoField {
  label: 'optional' | 'repeated' | 'map';
  type: string;
  name: string;
  no: number;
}
interface ProtoMessage {
  pkg: string;
  name: string;
  fields: ProtoField[];
}

/** `k8s.io.api.core.v1` -> `api/core/v1` (the import path without `k8s.io/`). */
function pkgPath(protoPkg: string, goPkg: string): string {
  if (goPkg) return goPkg.replace(/^k8s\.io\//, '');
  return protoPkg
    .replace(/^k8s\.io\./, '')
    .replaceAll('.', '/')
    .replaceAll('_', '-');
}

function parseProto(text: string): ProtoMessage[] {
  const protoPkg = /^package\s+([\w.]+);/m.exec(text)?.[1] ?? '';
  const goPkg = /^option\s+go_package\s*=\s*"([^";]+)(?:;\w+)?";/m.exec(text)?.[1] ?? '';
  const pkg = pkgPath(protoPkg, goPkg);
  const out: ProtoMessage[] = [];
  let cur: ProtoMessage | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    let r = /^message\s+(\w+)\s*\{$/.exec(line);
    if (r) {
      if (cur) throw new Error(`nested message ${r[1]} in ${pkg}`);
      cur = { pkg, name: r[1]!, fields: [] };
      continue;
    }
    if (line === '}') {
      if (cur) out.push(cur);
      cur = undefined;
      continue;
    }
    if (!cur) continue;
    r = /^(optional|repeated|required)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;$/.exec(line);
    if (r) {
      cur.fields.push({
        label: r[1] === 'repeated' ? 'repeated' : 'optional',
        type: r[2]!,
        name: r[3]!,
        no: Number(r[4]),
      });
      continue;
    }
    r = /^map<\s*string\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;$/.exec(line);
    if (r) {
      cur.fields.push({ label: 'map', type: r[1]!, name: r[2]!, no: Number(r[3]) });
      continue;
    }
    throw new Error(`${pkg}.${cur.name}: cannot read ${JSON.stringify(line)}`);
  }
  return out;
}

// ---------------------------------------------------------------- the Go structs

interface GoField {
  json: string;
  omitempty: boolean;
  inline: boolean;
  ptr: boolean;
}
interface GoPackage {
  /** `<struct>#<field number>` -> the Go field. */
  fields: Map<string, GoField>;
  /** Structs marked as kinds (runtime.Object). */
  kinds: Set<string>;
  /** `type X []T`: a message with one repeated `items` whose JSON form is the array. */
  slices: Set<string>;
  group: string | undefined;
}

function parseGo(files: string[]): GoPackage {
  const pkg: GoPackage = { fields: new Map(), kinds: new Set(), slices: new Set(), group: undefined };
  for (const text of files) {
    const g = /^const\s+GroupName\s*=\s*"([^"]*)"/m.exec(text);
    if (g) pkg.group = g[1];
    const lines = text.split('\n');
    let struct: string | undefined;
    let marker = false;
    for (const line of lines) {
      if (struct === undefined) {
        if (line.includes('+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object'))
          marker = true;
        const s = /^type\s+(\w+)\s+struct\s*\{/.exec(line);
        if (s) {
          struct = s[1]!;
          if (marker) pkg.kinds.add(struct);
          marker = false;
          if (line.trimEnd().endsWith('}')) struct = undefined;
          continue;
        }
        const sl = /^type\s+(\w+)\s+\[\]\w+\s*$/.exec(line);
        if (sl) pkg.slices.add(sl[1]!);
        if (/^(type|func|var|const)\b/.test(line)) marker = false;
        continue;
      }
      if (/^\}/.test(line)) {
        struct = undefined;
        continue;
      }
      const f = /^\s+(?:(\w+)\s+)?(\*?[\w.[\]*]+)\s+`([^`]*)`/.exec(line);
      if (!f) continue;
      const tags = f[3]!;
      const pb = /protobuf:"[a-z0-9]+,(\d+),/.exec(tags);
      if (!pb) continue;
      const json = /json:"([^"]*)"/.exec(tags)?.[1];
      const [jsonName = '', ...opts] = (json ?? '').split(',');
      pkg.fields.set(`${struct}#${pb[1]}`, {
        json: jsonName,
        omitempty: opts.includes('omitempty'),
        inline: opts.includes('inline'),
        ptr: f[2]!.startsWith('*'),
      });
    }
  }
  return pkg;
}

// ---------------------------------------------------------------- conversion

/** The orch words for a group (as the dialect mapping reverses). */
function orchGroup(g: string): string {
  return g.replace(/\.k8s\.io$/, '.orch.io').replace(/\.kubernetes\.io$/, '.orch.io');
}
/** The orch words for a JSON name (`x-kubernetes-*` markers). */
function orchJson(n: string): string {
  return n.startsWith('x-kubernetes-') ? `x-orch-${n.slice('x-kubernetes-'.length)}` : n;
}

export function generate(where: string, rev: string): { messages: string; kinds: string; notes: string[] } {
  const tree = openTree(where, rev);
  const base = 'staging/src/k8s.io';
  const all = PACKAGE_ROOTS.flatMap((r) => tree.list(`${base}/${r.replace(/\/$/, '')}`));
  const protos = all
    .filter((p) => p.endsWith('/generated.proto'))
    .filter((p) => !SKIP.some((s) => p.startsWith(`${base}/${s}`)))
    .sort();
  const messages = new Map<string, { msg: ProtoMessage; go: GoPackage }>();
  const notes: string[] = [];
  const kinds: Record<string, string> = {};
  for (const proto of protos) {
    const dir = proto.slice(0, -'/generated.proto'.length);
    const goFiles = all
      .filter((p) => dirname(p) === dir && p.endsWith('.go'))
      .filter((p) => !/(_test|generated\.pb|zz_generated\.\w+|_swagger_doc_generated)\.go$/.test(p))
      .map((p) => tree.read(p));
    const go = parseGo(goFiles);
    for (const msg of parseProto(tree.read(proto))) {
      const name = `${msg.pkg}.${msg.name}`;
      messages.set(name, { msg, go });
      if (msg.pkg.startsWith('apimachinery/') || go.group === undefined || !go.kinds.has(msg.name)) continue;
      const version = msg.pkg.slice(msg.pkg.lastIndexOf('/') + 1);
      const group = orchGroup(go.group);
      kinds[`${group ? `${group}/` : ''}${version}/${msg.name}`] = name;
    }
  }

  const resolveType = (pkg: string, t: string): string => {
    if (SCALARS.has(t)) return t;
    if (!t.includes('.')) return `${pkg}.${t}`;
    const i = t.lastIndexOf('.');
    return `${pkgPath(t.slice(0, i), '')}.${t.slice(i + 1)}`;
  };

  const out: MessageOut[] = [];
  for (const [name, { msg, go }] of [...messages].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (SPECIAL_TYPES[name]) continue;
    const m: MessageOut = { name, fields: [] };
    const adapt = ADAPTED[name] ?? (go.slices.has(msg.name) ? 'array' : undefined);
    if (adapt) m.adapt = adapt;
    for (const pf of msg.fields) {
      const full = resolveType(msg.pkg, pf.type);
      if (!SCALARS.has(full) && !SPECIAL_TYPES[full] && !messages.has(full))
        throw new Error(`${name}.${pf.name}: unknown type ${pf.type}`);
      const type: FieldOut['type'] = SCALARS.has(full) ? full : (SPECIAL_TYPES[full] ?? { msg: full });
      const g = go.fields.get(`${msg.name}#${pf.no}`);
      if (!g && !adapt) notes.push(`${name}.${pf.name} (${pf.no}): no Go field; JSON name kept`);
      // `json:"-"` (a type with its own JSON form): the codec's adapter names the field
      const jsonName = g?.json && g.json !== '-' ? g.json : pf.name;
      const f: FieldOut = { json: orchJson(jsonName), no: pf.no, type };
      if (g?.inline) {
        if (typeof type !== 'object') throw new Error(`${name}.${pf.name}: inline scalar`);
        f.inline = true;
        f.json = pf.name;
      }
      if (pf.label === 'repeated') f.repeated = true;
      if (pf.label === 'map') f.map = true;
      if (pf.label === 'optional' && g?.ptr) f.ptr = true;
      const scalar = SCALARS.has(full) && full !== 'bytes';
      if (pf.label === 'optional' && g && !g.ptr && !g.omitempty && !g.inline && scalar) f.keep = true;
      // a kind's (or list's) metadata is always in the JSON form, as Go writes it
      if (pf.label === 'optional' && g && f.json === 'metadata' && go.kinds.has(msg.name)) f.keep = true;
      m.fields.push(f);
    }
    out.push(m);
  }
  const sortedKinds = Object.fromEntries(
    Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return {
    messages: `${JSON.stringify({ source: `Kubernetes ${rev} generated.proto and Go structs`, messages: out })}\n`,
    kinds: `${JSON.stringify(sortedKinds, null, 1)}\n`,
    notes,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const where =
    args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--rev') ??
    (existsSync(DEFAULT_SOURCE) ? DEFAULT_SOURCE : undefined);
  const rev = args.includes('--rev') ? args[args.indexOf('--rev') + 1]! : 'HEAD';
  if (!where) {
    console.error('usage: gen-protobuf-messages.ts <kubernetes repo or checkout> [--rev REV] [--check]');
    process.exit(2);
  }
  const { messages, kinds, notes } = generate(where, rev);
  for (const n of notes) console.error(`note: ${n}`);
  const count = JSON.parse(messages).messages.length;
  if (args.includes('--check')) {
    const same = readFileSync(MESSAGES_OUT, 'utf8') === messages && readFileSync(KINDS_OUT, 'utf8') === kinds;
    console.log(same ? 'up to date' : 'the Protobuf message files differ from the source');
    process.exit(same ? 0 : 1);
  }
  writeFileSync(MESSAGES_OUT, messages);
  writeFileSync(KINDS_OUT, kinds);
  console.log(`${count} messages, ${Object.keys(JSON.parse(kinds)).length} kinds`);
}
