// The compactor of the etcd store (./store.ts): every interval it compacts etcd to the revision
// it saw one interval earlier, as Kubernetes does. The servers on one etcd coordinate through
// the compaction key: a server compacts only when it updates the key at the version it expects,
// so one compaction happens per interval however many servers run.
import type { Etcd3 } from 'etcd3';

/**
 * Starts compacting every `intervalMs` (and once now). `state.version` is the version of the
 * compaction key `ck` this server expects; the store's watch updates it too.
 */
export function startCompactor(
  client: Etcd3,
  ck: Buffer,
  state: { version: number },
  intervalMs: number,
  timeoutMs: number,
): ReturnType<typeof setInterval> {
  let lastRev = 0;
  const tick = async () => {
    try {
      const r = await client.kv.txn(
        {
          compare: [{ key: ck, target: 'Version', result: 'Equal', version: state.version }],
          success: [{ request_put: { key: ck, value: Buffer.from(String(lastRev)) } }],
          failure: [{ request_range: { key: ck } }],
        },
        { deadline: new Date(Date.now() + timeoutMs) },
      );
      const cur = Number(r.header.revision);
      if (r.succeeded) {
        state.version++;
        // already compacted further (another API's servers on the same etcd): nothing to do
        if (lastRev > 0)
          await client.kv.compact({ revision: lastRev }).catch((e: Error) => {
            if (!/compacted/.test(e.message)) throw e;
          });
      } else {
        const kv = r.responses[0]?.response_range?.kvs[0];
        state.version = kv ? Number(kv.version) : 0;
      }
      lastRev = cur;
    } catch (e) {
      console.error(`orch storage: etcd compaction failed: ${(e as Error).message}`);
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref?.();
  void tick();
  return timer;
}
