// Profiles: which levels of requirement a run checks. `must` runs the MUST cases only (a
// report can then say "conformant to the MUST sentences"), `should` adds the SHOULD cases,
// `all` (the default) runs every case, MAY and beyond the text included.
import type { Level } from './spec.ts';

export type Profile = 'must' | 'should' | 'all';

export const PROFILES: readonly Profile[] = ['must', 'should', 'all'];

/** The run's profile reaches the suites in this variable (`run --level`). */
export const LEVEL_ENV = 'ORCH_LEVEL';

const LEVELS: Record<Profile, readonly Level[]> = {
  must: ['MUST'],
  should: ['MUST', 'SHOULD'],
  all: ['MUST', 'SHOULD', 'MAY', 'BEYOND'],
};

export function isProfile(s: string): s is Profile {
  return (PROFILES as readonly string[]).includes(s);
}

/** The levels a profile checks. */
export function profileLevels(p: Profile): readonly Level[] {
  return LEVELS[p];
}

export function inProfile(level: Level, p: Profile): boolean {
  return LEVELS[p].includes(level);
}

/** The profile named by the environment; `all` when unset, an error when it names none. */
export function profileFromEnv(env: NodeJS.ProcessEnv): Profile {
  const v = env[LEVEL_ENV];
  if (v === undefined || v === '') return 'all';
  if (!isProfile(v)) throw new Error(`${LEVEL_ENV}="${v}" is not one of ${PROFILES.join(', ')}`);
  return v;
}

/** The profile in words, for reports: "must (MUST cases only)". */
export function describeProfile(p: Profile): string {
  return p === 'all' ? 'all (every level)' : `${p} (${LEVELS[p].join(' and ')} cases only)`;
}
