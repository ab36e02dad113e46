// What the health cases share: the section, the places they quote, and the verbose listing
// read back as check names and states.
import { check, show } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';

export const SECTION = 'Health';
export const STATUS_RULE =
  'Status 200 means healthy, live or ready depending on the endpoint; machines rely only on the status code';
export const VERBOSE_RULE =
  'Query `verbose` prints each check as `[+]<name> ok` (or a failure marker) and ends with a line saying the check passed';
export const EXCLUDE_RULE =
  '`exclude=<check-name>` skips a check and prints it as `excluded: ok`; the two can be combined';
export const SINGLE_ROW =
  'GET `/livez/<check-name>`, GET `/readyz/<check-name>` | single check; alpha in 1.28; for operators, not machines';
export const FLAGS_RULE =
  'Server flags: `--livez-grace-period` (startup duration), `--shutdown-delay-duration` (graceful shutdown, observed through `/readyz`)';

export const ENDPOINTS = ['healthz', 'livez', 'readyz'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface Listing {
  status: number;
  lines: string[];
  /** `[+]name ok` lines, by name. */
  passed: string[];
  /** `[+]name excluded: ok` lines, by name. */
  excluded: string[];
  /** `[-]name ...` lines, by name. */
  failed: string[];
  last: string;
  text: string;
}

export function parseListing(status: number, text: string): Listing {
  const lines = text.split('\n').filter((l) => l !== '');
  const names = (re: RegExp) => lines.flatMap((l) => (re.exec(l) ? [re.exec(l)![1]!] : []));
  return {
    status,
    lines,
    passed: names(/^\[\+\](\S+) ok$/),
    excluded: names(/^\[\+\](\S+) excluded: ok$/),
    failed: names(/^\[-\](\S+) /),
    last: lines.at(-1) ?? '',
    text,
  };
}

/** GET /<endpoint>?verbose (with exclude=... for each name given). */
export async function verbose(client: Client, endpoint: Endpoint, exclude: string[] = []): Promise<Listing> {
  const r = await client.get(`/${endpoint}`, {
    query: { verbose: 'true', ...(exclude.length ? { exclude } : {}) },
  });
  return parseListing(r.status, r.text);
}

/** The listing of a healthy server names at least one passing check. */
export function checkSomeChecks(l: Listing, endpoint: Endpoint): void {
  check(
    l.status === 200 && l.passed.length > 0,
    `200 and at least one "[+]<name> ok" line from /${endpoint}?verbose`,
    `${l.status}: ${show(l.text.slice(0, 600))}`,
    'the case needs the checks a healthy server lists',
  );
}
