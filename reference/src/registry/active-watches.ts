// The watches a server has open, so a graceful shutdown can end each of them cleanly: a watch
// that asked for bookmarks gets a last BOOKMARK at the revision it has seen everything up to
// (the client resumes from there without a relist), then every stream ends as a timeout ends
// it, rather than being cut with its connection.
export class ActiveWatches {
  private readonly enders = new Set<() => void>();

  /** Registers a watch's way to end; returns the function that forgets it (when it ends by itself). */
  add(end: () => void): () => void {
    this.enders.add(end);
    return () => {
      this.enders.delete(end);
    };
  }

  get size(): number {
    return this.enders.size;
  }

  /** Ends every open watch. */
  endAll(): void {
    for (const end of [...this.enders]) end();
    this.enders.clear();
  }
}
