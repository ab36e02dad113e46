// undici, loaded at the first call back to another server (an issuer, a webhook) rather than
// when the server starts: most servers never call out, and the library takes tens of
// milliseconds to load.
import type * as Undici from 'undici';

let loaded: Promise<typeof Undici> | undefined;

export function undici(): Promise<typeof Undici> {
  loaded ??= import('undici');
  return loaded;
}
