// YAML request bodies that mean the same to every YAML reader. Kubernetes reads YAML 1.1
// (where `y`, `on`, `no`, `0x10`, `1_000` and `012` are booleans and numbers), JavaScript
// libraries read YAML 1.2 (where `0o12` is a number): every string, key or value, is written
// double-quoted, so no reader resolves it to anything else.
import { stringify } from 'yaml';

export function portableYaml(value: unknown): string {
  return stringify(value, {
    version: '1.1',
    defaultStringType: 'QUOTE_DOUBLE',
    defaultKeyType: 'QUOTE_DOUBLE',
  });
}
