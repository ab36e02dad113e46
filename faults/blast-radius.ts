// The blast radius of each fault: the cases other than its catchers that fail when it is
// injected (they check the same rule, or stand on it), as the meta test last observed them.
// Generated, never written by hand: `npm run faults:update` (faults/test/meta.test.ts with
// ORCH_FAULTS_UPDATE=1) writes blast-radius.json for the faults it ran, and the meta test fails
// when a fault's radius is not what the file says (a case outside it failed, or a case in it
// no longer did), so a change of what a fault breaks is seen and committed, like the manifest.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RADIUS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'blast-radius.json');

/** Each fault's radius (exact case ids), by fault name. */
export type BlastRadius = Record<string, string[]>;

export function readRadius(file = RADIUS_FILE): BlastRadius {
  return JSON.parse(readFileSync(file, 'utf8')) as BlastRadius;
}

/** Writes the radii, faults and case ids sorted (so a change shows as a small diff). */
export function writeRadius(r: BlastRadius, file = RADIUS_FILE): void {
  const sorted = Object.fromEntries(
    Object.keys(r)
      .sort()
      .map((k) => [k, [...new Set(r[k])].sort()]),
  );
  writeFileSync(file, `${JSON.stringify(sorted, null, 1)}\n`);
}
