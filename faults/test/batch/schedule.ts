// Runs jobs in order, at most `concurrency` at once; each job's promise is handed out at once,
// so tests can await the job they need while the rest go on.
export function inBatches<T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T>[] {
  const settle: { ok: (v: T) => void; fail: (e: unknown) => void }[] = [];
  const promises = jobs.map((_, i) => new Promise<T>((ok, fail) => (settle[i] = { ok, fail })));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      try {
        settle[i]!.ok(await jobs[i]!());
      } catch (e) {
        settle[i]!.fail(e);
      }
    }
  };
  for (let w = 0; w < Math.max(1, concurrency); w++) void worker();
  return promises;
}
