// The `yaml` package, loaded at its first use rather than when the server starts: most
// servers read and write no YAML (clients send JSON), and the package's seventy modules
// take tens of milliseconds to load. Its Node build is CommonJS, so it loads synchronously
// where a request or a flag first needs it.
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const load = createRequire(import.meta.url);
let lib: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  lib ??= load('yaml') as typeof Yaml;
  return lib;
}
