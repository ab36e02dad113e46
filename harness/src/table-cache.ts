// The documents of the suites' table files, kept as JSON between runs. Parsing the YAML and
// compiling its schema take about half a second in a fresh worker, and every suite run (above
// all each fault run of the meta test, a fresh worker each) starts with them. A document is
// kept under the hash of everything it was made from (the file's text, its schema's text, the
// YAML library's version), so any change to them makes it again; only a document that passed
// its checks is kept, and only one JSON carries unchanged. Kept in node_modules/.cache (where build tools keep theirs); when that
// cannot be written, every run parses as before. The case list collected from the suites
// (scripts/manifest.ts) is kept the same way.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const DIR = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'orch-tables');
const YAML_VERSION: string = createRequire(import.meta.url)('yaml/package.json').version;

/** `make()`'s document for `inputs`, from the cache when it was made from the same inputs before. */
export function cachedDocument(inputs: string[], make: () => unknown): unknown {
  const h = createHash('sha256').update(YAML_VERSION);
  for (const x of inputs) h.update('\0').update(x);
  const file = join(DIR, `${h.digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // not kept yet (or unreadable): made below
  }
  const doc = make();
  const json = JSON.stringify(doc);
  // a document JSON cannot carry as it is (.inf, a Date) is made afresh each time
  if (!isDeepStrictEqual(JSON.parse(json), doc)) return doc;
  try {
    mkdirSync(DIR, { recursive: true });
    // written whole, then renamed: a worker reading at the same time sees all of it or nothing
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, json);
    renameSync(tmp, file);
  } catch {
    // a read-only install: nothing kept
  }
  return doc;
}
