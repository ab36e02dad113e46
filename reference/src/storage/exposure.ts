// The moment a change leaves the process. The change log holds the records of a turn of the
// event loop back, to write them in one system call at the turn's end (storage/wal.ts); a
// kill -9 must still never take a change somebody outside has seen. So every way out of the
// process (an answer or a watch event on a socket, a request to a webhook, an audit event)
// calls beforeExposure() first, and a log with records held back writes them then.

const holding = new Set<() => void>();

/** `write` puts records held back into the file; it is called once, then forgotten (see release). */
export function holdUntilExposure(write: () => void): void {
  holding.add(write);
}

/** The records were written another way (the turn ended): nothing to do at the next exposure. */
export function release(write: () => void): void {
  holding.delete(write);
}

/** Writes every record held back; call it before anything leaves the process. */
export function beforeExposure(): void {
  if (holding.size === 0) return;
  for (const write of [...holding]) {
    holding.delete(write);
    write();
  }
}
