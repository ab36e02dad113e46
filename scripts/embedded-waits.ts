// The waits no case checks, as short as the servers this repository starts for the suites have
// them (the embedded run, scripts/embedded.ts, and the fault meta test's servers).

/** How long a read at a resource version not yet reached is held before its 504. */
export const FUTURE_RV_WAIT_MS = 250;
/** How long a deleted namespace waits before it is emptied. */
export const NAMESPACE_GRACE_MS = 500;
