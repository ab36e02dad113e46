// A data file the sources read beside them (the published 1.28 schemas, the RBAC defaults, the
// printer columns), in the words of this build's dialect: the files say `orch` as the sources
// do, and are mapped once, when read, in the Kubernetes dialect's build.
import { readFileSync } from 'node:fs';
import { DIALECT } from './dialect.ts';
import { inKubernetesWords } from './words.ts';

export function dataFileText(url: URL): string {
  const text = readFileSync(url, 'utf8');
  return DIALECT === 'kubernetes' ? inKubernetesWords(text) : text;
}
