// `--token-auth-file`: a CSV file of static bearer tokens, read once at start. Columns:
// token, user name, user uid, then optionally one field of comma-separated group names
// (quoted when it holds several: `"g1,g2"`); further columns are ignored. A record with
// fewer than three columns or a CSV syntax error makes the whole file unusable (a start-up
// error naming the file and line); a record with an empty token is skipped; a repeated
// token takes the later record. Empty group names (an empty groups field) are dropped.
//
// The CSV grammar is csv-parse's (RFC 4180: quoted fields may hold commas, quotes doubled,
// CRLF or LF line ends; a quote inside an unquoted field or text after a closing quote is
// an error; leading spaces of a field dropped), a maintained parser rather than our own.
import { readFileSync } from 'node:fs';
import { CsvError, parse } from 'csv-parse/sync';
import { ConfigurationError } from '../errors/config-error.ts';
import type { UserInfo } from '../registry/types.ts';

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
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
      ltrim: true,
      info: true,
    }) as unknown as typeof records;
  } catch (e) {
    if (e instanceof CsvError) throw new ConfigurationError(`--token-auth-file: ${path}: ${e.message}`);
    throw e;
  }
  const tokens = new Map<string, UserInfo>();
  for (const { record: fields, info } of records) {
    const line = info.lines;
    if (fields.length < 3)
      throw new ConfigurationError(
        `--token-auth-file: ${path} line ${line}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    const [token, username, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') continue;
    const user: UserInfo = {
      username,
      uid,
      groups: groups === undefined ? [] : groups.split(',').filter((g) => g !== ''),
    };
    tokens.set(token, user);
  }
  return tokens;
}
