// The store: etcd (--etcd-servers), memory (--in-memory) or the write-ahead log in the data
// directory; then the registry of served resources on it, with the built-in kinds.
import { join } from 'node:path';
import type { ServerOptions } from '../config.ts';
import { ActiveWatches } from '../registry/active-watches.ts';
import { installBuiltins } from '../registry/kinds/index.ts';
import { Registry } from '../registry/registry.ts';
import { MemoryStore } from '../storage/memory.ts';
import { WriteAheadLog } from '../storage/wal.ts';

export interface StorageSetup {
  storage: MemoryStore;
  /** The write-ahead log's directory (undefined on etcd or in memory). */
  storeDir?: string;
}

export async function openStorage(options: ServerOptions): Promise<StorageSetup> {
  const storeOpts = { historyMs: options.historySeconds * 1000, now: options.clock };
  const storage: MemoryStore = options.etcdServers?.length
    ? // the etcd client (grpc) loads only for a server on etcd
      await (await import('../storage/etcd/store.ts')).EtcdStore.open({
        ...storeOpts,
        servers: options.etcdServers,
        prefix: options.etcdPrefix,
        caFile: options.etcdCaFile,
        certFile: options.etcdCertFile,
        keyFile: options.etcdKeyFile,
        compactionIntervalMs: options.etcdCompactionIntervalMs,
      })
    : options.inMemory
      ? new MemoryStore(storeOpts)
      : WriteAheadLog.open({
          ...storeOpts,
          dir: join(options.dataDir, 'store'),
          sync: options.fsync,
          compactBytes: options.compactBytes,
        });
  const storeDir =
    options.etcdServers?.length || options.inMemory ? undefined : join(options.dataDir, 'store');
  return { storage, storeDir };
}

export interface RegistrySetup {
  registry: Registry;
  /** The watches being served (graceful shutdown ends them). */
  watches: ActiveWatches;
}

export function wireRegistry(options: ServerOptions, storage: MemoryStore): RegistrySetup {
  const watches = new ActiveWatches();
  const registry = new Registry(storage, {
    watches,
    futureRvWaitMs: options.futureRvWaitMs,
    continueTtlMs: options.continueTtlSeconds * 1000,
    watchTimeoutSeconds: options.watchTimeoutSeconds,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    gates: {
      WatchList: options.featureGates.WatchList,
      APIListChunking: options.featureGates.APIListChunking,
    },
    now: options.clock,
  });
  installBuiltins(registry);
  return { registry, watches };
}
