// A controller's work queue: keys handled one at a time (a key queued again while it waits is
// handled once). A key whose handling fails is tried again later, each time waiting twice as
// long (from 50 ms up to 10 s, as Kubernetes' rate-limited queues back off); a success forgets
// its failures. After stop() nothing more is handled and no timer is left.
import { NameQueue } from '../util/name-queue.ts';

const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 10_000;

export class WorkQueue {
  private readonly queue: NameQueue;
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly due = new Map<string, number>();
  private stopped = false;

  /** `handle` throws (or rejects) to have the key tried again. */
  constructor(
    readonly name: string,
    handle: (key: string) => Promise<void>,
  ) {
    this.queue = new NameQueue(async (key) => {
      if (this.stopped) return;
      try {
        await handle(key);
        this.failures.delete(key);
      } catch (e) {
        if (!this.stopped) this.retry(key, e);
      }
    });
  }

  add(key: string): void {
    if (!this.stopped) this.queue.add(key);
  }

  /** Queues `key` after `ms` (a key already waiting keeps the earlier time). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const due = Date.now() + ms;
    const waiting = this.timers.get(key);
    if (waiting && (this.due.get(key) ?? 0) <= due) return;
    clearTimeout(waiting);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.due.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.set(key, t);
    this.due.set(key, due);
  }

  private retry(key: string, e: unknown): void {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    const wait = Math.min(FIRST_RETRY_MS * 2 ** (n - 1), MAX_RETRY_MS);
    // the first failure of a key is told, then every hundredth (a controller refused for good keeps trying quietly)
    if (n % 100 === 1)
      console.error(
        `${this.name}: syncing ${key} failed (tried again in ${wait} ms): ${String((e as Error)?.message ?? e)}`,
      );
    this.addAfter(key, wait);
  }

  stop(): void {
    this.stopped = true;
    this.queue.stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
