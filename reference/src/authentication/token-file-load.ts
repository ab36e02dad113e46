// `--token-auth-file`: a CSV file of static bearer tokens, read once at start. Columns:
// token, user name, user uid, then optionally one field of comma-separated group names
// (quoted when it holds several: `"g1,g2"`); further columns are ignored. A record with
// fewer than three columns or a CSV syntax error makes the whole file unusable (a start-up
// error naming the file and line); a record with an empty token is skipped; a repeated
// token takes the later record. Empty group names (an empty groups field) are dropped.
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../registry/types.ts';
import { CsvError, parseCsv } from '../util/csv.ts';
import { ConfigurationError } from '../errors/config-error.ts';

export function loadTokenFile(path: string): Map<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigurationError(`--token-auth-file: cannot read ${path}: ${(e as Error).message}`);
  }
  return parseTokenFile(text, path);
}

export function parseTokenFile(text: string, path: string): Map<string, UserInfo> {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvError) throw new ConfigurationError(`--token-auth-file: ${path}: ${e.message}`);
    throw e;
  }
  const tokens = new Map<string, UserInfo>();
  for (const { line, fields } of records) {
    if (fields.length < 3)
      throw new ConfigurationError(
        `--token-auth-file: ${path} line ${line}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    const [token, username, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') continue;
    const user: UserInfo = { username, uid, groups: groups === undefined ? [] : groups.split(',').filter((g) => g !== '') };
    tokens.set(token, user);
  }
  return tokens;
}
