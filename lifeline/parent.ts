// A process that ends with whoever started it: the counterpart of owned.ts for a process the
// project does not start itself (`npm run server` and `npm run conformance` are started by
// npm). Node has no parent-death signal, so the parent is watched: when this process's parent
// process changes (the parent ended, however it ended, and the process was handed to init or
// a subreaper), `onGone` is called once.

/** How often the parent is looked at. */
const POLL_MS = 250;

/** Calls `onGone` once the process that started this one has ended; returns what stops the watch. */
export function onParentGone(onGone: () => void, pollMs = POLL_MS): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, pollMs);
  // the watch alone never keeps the process alive
  timer.unref();
  return () => clearInterval(timer);
}
