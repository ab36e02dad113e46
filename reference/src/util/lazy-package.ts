// Packages loaded at their first use rather than when the server starts: CommonJS packages,
// required synchronously where a request or a flag first needs them (YAML, JSON patches,
// Protobuf messages). Many servers never need some of them, and each takes milliseconds to
// tens of milliseconds to load.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** The package `id` (its CommonJS build), loaded at the first call. */
export function lazyPackage<T>(id: string): () => T {
  let lib: T | undefined;
  return () => {
    lib ??= load(id) as T;
    return lib;
  };
}
