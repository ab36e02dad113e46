// Facts captured from a real Kubernetes 1.28 API server (shared/kubernetes-1.28, beside the
// repository; ORCH_K8S_FACTS_DIR overrides), read by the tests that hold the reference server
// to what a 1.28 cluster answers. A missing fixture fails loudly: these tests never skip.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const FACTS_DIR = process.env.ORCH_K8S_FACTS_DIR ?? join(ROOT, '..', 'shared', 'kubernetes-1.28');

export function readFact(file: string): unknown {
  const p = join(FACTS_DIR, file);
  if (!existsSync(p))
    throw new Error(
      `${p} is missing: the Kubernetes 1.28 facts live in shared/kubernetes-1.28 beside the repository (set ORCH_K8S_FACTS_DIR to their folder)`,
    );
  return JSON.parse(readFileSync(p, 'utf8'));
}

/** One column as table-columns.json records it (descriptions were removed from the capture). */
export interface FixtureColumn {
  name: string;
  type: string;
  format: string;
  priority: number;
}

let columns: Record<string, FixtureColumn[]> | undefined;

/** The Table columns a 1.28 server answers, by `<group>/<version>/<resource>` (core: `v1/<resource>`). */
export function tableColumnFacts(): Record<string, FixtureColumn[]> {
  columns ??= readFact('table-columns.json') as Record<string, FixtureColumn[]>;
  return columns;
}

/** The fixture's key for a resource the reference serves: `orch.io` groups are Kubernetes' `k8s.io` ones. */
export function factKey(group: string, version: string, plural: string): string {
  const g = group.replace(/\.orch\.io$/, '.k8s.io');
  return g ? `${g}/${version}/${plural}` : `${version}/${plural}`;
}

/** The 1.28 columns of a resource; throws when the capture has none for it. */
export function columnsOf(group: string, version: string, plural: string): FixtureColumn[] {
  const key = factKey(group, version, plural);
  const cols = tableColumnFacts()[key];
  if (!cols) throw new Error(`table-columns.json has no entry ${key}`);
  return cols;
}

/** The headers kubectl prints for these columns: upper-cased names, priority 0 only unless wide. */
export function kubectlHeaders(cols: FixtureColumn[], wide: boolean): string[] {
  return cols.filter((c) => wide || c.priority === 0).map((c) => c.name.toUpperCase());
}
