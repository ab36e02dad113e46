// The `yaml` package, loaded at its first use (lazy-package.ts): most servers read and write
// no YAML (clients send JSON), and the package's seventy modules take tens of milliseconds
// to load.
import type * as Yaml from 'yaml';
import { lazyPackage } from './lazy-package.ts';

export const yaml = lazyPackage<typeof Yaml>('yaml');
