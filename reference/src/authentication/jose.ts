// jose (JWTs: decoding, verifying, signing), loaded at the first token that needs it rather
// than when the server starts: many servers never see a service-account token, and the
// library takes tens of milliseconds to load. Once loaded it is at hand synchronously, so an
// authenticator that has it answers without a turn of the event loop.
import type * as Jose from 'jose';

let loading: Promise<typeof Jose> | undefined;
let loaded: typeof Jose | undefined;

/** jose, loading it the first time. */
export function jose(): Promise<typeof Jose> {
  loading ??= import('jose').then((m) => (loaded = m));
  return loading;
}

/** jose when it is loaded already, else undefined (then: `await jose()`). */
export function joseLoaded(): typeof Jose | undefined {
  return loaded;
}
