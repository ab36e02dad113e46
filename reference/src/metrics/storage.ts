// Storage metrics: the objects stored per resource, and the size of the durable store's files
// (1.28's deprecated `apiserver_storage_db_total_size_in_bytes` and its replacement
// `apiserver_storage_size_bytes`). Counted at scrape time only.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from '../registry/registry.ts';
import { bucketName } from '../registry/types.ts';
import type { Storage } from '../storage/types.ts';
import { STORAGE_DB_TOTAL_SIZE, STORAGE_OBJECTS, STORAGE_SIZE } from './catalog.ts';
import type { MetricsRegistry } from './registry.ts';

/** Kubernetes' GroupResource string: `configmaps`, `deployments.apps`. */
function groupResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

/** Bytes of the files in a directory (not recursive); undefined when it cannot be read. */
function directoryBytes(dir: string): number | undefined {
  try {
    let n = 0;
    for (const f of readdirSync(dir, { withFileTypes: true }))
      if (f.isFile()) n += statSync(join(dir, f.name)).size;
    return n;
  } catch {
    return undefined;
  }
}

export function registerStorageMetrics(
  reg: MetricsRegistry,
  registry: Registry,
  storage: Storage,
  /** The durable store's directory (none when the store is in memory). */
  storeDir: string | undefined,
): void {
  reg.gauge(STORAGE_OBJECTS, (emit) => {
    const seen = new Set<string>();
    for (const { def } of registry.all()) {
      // a kind kept in another's storage (events of two groups), and kinds never stored (reviews)
      if (def.storedAs || def.strategy.review) continue;
      const bucket = bucketName(def);
      if (seen.has(bucket)) continue;
      seen.add(bucket);
      emit([groupResource(def.group, def.plural)], storage.list(bucket, '').length);
    }
  });
  const size = () => (storeDir === undefined ? undefined : directoryBytes(storeDir));
  reg.gauge(STORAGE_DB_TOTAL_SIZE, (emit) => {
    const n = size();
    if (n !== undefined) emit([`file://${storeDir}`], n);
  });
  reg.gauge(STORAGE_SIZE, (emit) => {
    const n = size();
    if (n !== undefined) emit(['store-0'], n);
  });
}
