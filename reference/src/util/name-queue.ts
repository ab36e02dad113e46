// A controller's work queue: names handled one at a time, in the order they were queued (a
// name queued again while it waits is handled once), starting on the next turn of the event
// loop. After stop() nothing more is handled.
export class NameQueue {
  private readonly names = new Set<string>();
  private running = false;
  private stopped = false;

  /**
   * `handle` deals with its own failures (logs or retries them); `idle` runs each time the
   * queue has run dry.
   */
  constructor(
    private readonly handle: (name: string) => Promise<void>,
    private readonly idle: () => void = () => {},
  ) {}

  get size(): number {
    return this.names.size;
  }

  add(name: string): void {
    this.names.add(name);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.drain());
    }
  }

  stop(): void {
    this.stopped = true;
  }

  private async drain(): Promise<void> {
    try {
      while (this.names.size && !this.stopped) {
        const name = this.names.values().next().value as string;
        this.names.delete(name);
        await this.handle(name);
      }
    } finally {
      this.running = false;
      if (this.names.size === 0) this.idle();
      if (this.names.size && !this.stopped) this.add(this.names.values().next().value as string);
    }
  }
}
