// Derives the schemas of the built-in kinds from the OpenAPI v3 documents a real 1.28 server
// published (../shared/kubernetes-1.28/openapi-v3), in the orch words, into
// reference/src/schema/builtin/openapi-1.28.json. The reference reads that file
// (schema/builtin.ts) instead of schemas typed by hand. The captured documents are the exact
// 1.28 API; the npm packages of Kubernetes models track later releases (1.30 and up) whose
// fields differ.
//
//   npx tsx scripts/gen-builtin-schemas.ts           write the file
//   npx tsx scripts/gen-builtin-schemas.ts --check   exit 1 when the file is not what the fixture gives
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FACTS = process.env.ORCH_K8S_FACTS_DIR ?? join(ROOT, '..', 'shared', 'kubernetes-1.28');
export const OUT = join(ROOT, 'reference', 'src', 'schema', 'builtin', 'openapi-1.28.json');

type Json = Record<string, unknown>;

/** The orch words for Kubernetes' names (as the dialect mapping does). */
function orch(s: string): string {
  return s
    .replaceAll('io.k8s.', 'io.orch.')
    .replaceAll('k8s.io', 'orch.io')
    .replaceAll('kubernetes.io', 'orch.io');
}

const REF = '#/components/schemas/';

/**
 * One schema in the reference's shape: `$ref` for a named type (the `allOf: [$ref]` wrapper
 * folded), markers renamed `x-orch-*`; descriptions, `default: {}` struct markers and `enum`
 * lists dropped (1.28 validates built-in kinds in code, not against these: the strategies do).
 */
function convert(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description' || k === 'default' || k === 'enum' || k === 'readOnly') continue;
    if (k === 'x-kubernetes-group-version-kind' || k === 'x-kubernetes-unions') continue;
    if (k === 'allOf' && Array.isArray(v) && v.length === 1 && (v[0] as Json).$ref) {
      out.$ref = orch(((v[0] as Json).$ref as string).slice(REF.length));
    } else if (k === '$ref') out.$ref = orch((v as string).slice(REF.length));
    else if (k === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(v as Json).map(([p, ps]) => [p, convert(ps as Json)]),
      );
    } else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object'))
      out[k] = convert(v as Json);
    else if (k.startsWith('x-kubernetes-')) out[`x-orch-${k.slice('x-kubernetes-'.length)}`] = v;
    else out[k] = v;
  }
  return out;
}

export function generate(): string {
  const dir = join(FACTS, 'openapi-v3');
  const defs: Record<string, Json> = {};
  const kinds: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.json')) continue;
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json;
    const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
    // the group version this document serves (`apis_apps_v1.json`, `api_v1.json`)
    const m = /^(?:api_(v1)|apis_(.+)_(v[0-9a-z]+))\.json$/.exec(f);
    const servedGv = m ? (m[1] ?? `${m[2]}/${m[3]}`) : undefined;
    for (const [name, s] of Object.entries(schemas)) {
      defs[orch(name)] ??= convert(s);
      for (const gvk of (s['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? []) {
        const gv = gvk.group ? `${gvk.group}/${gvk.version}` : (gvk.version as string);
        // a kind's own document names it; shared types (DeleteOptions, WatchEvent, ...) list many
        if (gv !== servedGv || !s.properties || !(s.properties as Json).metadata) continue;
        if (name.endsWith('List') || name.includes('.apimachinery.')) continue;
        kinds[`${orch(gv)}/${gvk.kind}`] = orch(name);
      }
    }
  }
  const sorted = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify({ kinds: sorted(kinds), definitions: sorted(defs) })}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = generate();
  if (process.argv.includes('--check')) {
    let have = '';
    try {
      have = readFileSync(OUT, 'utf8');
    } catch {}
    if (have !== text) {
      console.error(
        `${OUT} is not what ${FACTS}/openapi-v3 gives: run npx tsx scripts/gen-builtin-schemas.ts`,
      );
      process.exit(1);
    }
    console.log('builtin schemas up to date');
  } else {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT} (${text.length} bytes)`);
  }
}
