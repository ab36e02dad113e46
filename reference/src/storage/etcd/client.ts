// The etcd client of the store (./store.ts) and what its parts share: the options, the
// store's own keys, the encoding of objects as values, and the errors etcd's failures become.
import { readFileSync } from 'node:fs';
import { noop } from 'cockatiel';
import { Etcd3, type IKeyValue } from 'etcd3';
import { StatusError } from '../../errors/status.ts';
import type { KObject } from '../types.ts';

export interface EtcdStoreOptions {
  /** Client URLs of the etcd members (`http://host:port` or `https://...`). */
  servers: string[];
  /** Key prefix of this API's objects (default `/registry`). */
  prefix?: string;
  /** PEM files for TLS: the CA that signed etcd's certificate, and this client's certificate and key. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Compaction interval in ms (default 5 minutes; 0: this server never compacts). */
  compactionIntervalMs?: number;
  /** How long one etcd call may take before the request fails with 503 (default 10 s). */
  requestTimeoutMs?: number;
  /** The watch cache's history window and clock (as the in-memory store's). */
  historyMs?: number;
  historyMax?: number;
  now?: () => number;
}

export const COMPACT_KEY = '~compact';
export const SYNC_KEY = '~sync';

/** A client of the etcd members in `opts`, each call failing after `timeoutMs`. */
export function etcdClient(opts: EtcdStoreOptions, timeoutMs: number): Etcd3 {
  const tls = opts.caFile || opts.certFile || opts.keyFile;
  return new Etcd3({
    hosts: opts.servers,
    ...(tls
      ? {
          credentials: {
            rootCertificate: opts.caFile ? readFileSync(opts.caFile) : Buffer.alloc(0),
            ...(opts.keyFile ? { privateKey: readFileSync(opts.keyFile) } : {}),
            ...(opts.certFile ? { certChain: readFileSync(opts.certFile) } : {}),
          },
        }
      : {}),
    // no retries inside the client: a retried transaction could report its own success as a
    // conflict; the caller (or its client) retries
    faultHandling: { global: noop, host: () => noop },
    dialTimeout: timeoutMs,
  });
}

/** An object's value in etcd: its JSON without resourceVersion (that is the mod revision). */
export function encode(obj: KObject): Buffer {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  return Buffer.from(JSON.stringify({ ...obj, metadata: meta }));
}

/** The object of a value in etcd, at resource version `rv`. */
export function decode(kv: IKeyValue, rv: number): KObject {
  const obj = JSON.parse(kv.value.toString()) as KObject;
  obj.metadata.resourceVersion = String(rv);
  return obj;
}

/** Storage unavailable: etcd does not answer. A 503 the client may retry. */
export function storageUnavailable(cause: unknown): StatusError {
  const why = (cause as Error)?.message ?? String(cause);
  return new StatusError(
    503,
    'ServiceUnavailable',
    `storage is unavailable (etcd: ${why}); retry later`,
    {
      retryAfterSeconds: 1,
    },
    { 'retry-after': '1' },
  );
}

/** The error of an etcd call that failed: 413 for an object larger than etcd takes, else undefined (etcd is unavailable). */
export function tooLarge(e: unknown): StatusError | undefined {
  // etcd refuses a request larger than its --max-request-bytes: the object is too large
  // for this store, which says nothing about etcd's health
  if (/request is too large|received message larger than max/.test((e as Error).message))
    return new StatusError(
      413,
      'RequestEntityTooLarge',
      `the object is too large for the store (etcd: ${(e as Error).message})`,
    );
  return undefined;
}

/** The end of the key range of every key starting with `p`. */
export function prefixEnd(p: Buffer): Buffer {
  const end = Buffer.from(p);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}
