// Stack traces of a bundled process named by the source files and lines, the source map of a
// bundle read only when a stack trace first passes through it. Node's own mapping
// (`process.setSourceMapsEnabled`) reads and indexes the map of every module as it loads it:
// for the server's bundle (1.3 MB, its map 1 MB) about 30 ms of a start that aims at half a
// second, paid whether or not a stack trace is ever printed. The maps are read with Node's own
// `SourceMap` (node:module); a frame outside the bundles, or one its map does not cover, is
// printed as V8 prints it. Plain JavaScript: it runs before tsx is registered.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Maps the frames of the modules under `dir` (a bundle's folder) from now on. */
export function mapStacksLazily(dir) {
  // a user's --enable-source-maps maps every frame already
  if (process.sourceMapsEnabled) return;
  const prefix = pathToFileURL(dir).href;
  /** file URL -> its map (null: none could be read) */
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      let map = null;
      try {
        const file = fileURLToPath(url);
        const payload = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
        map = { at: new SourceMap(payload), base: resolve(dirname(file), payload.sourceRoot ?? '') };
      } catch {
        // no map beside it: its frames stay as they are
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  const frame = (f) => {
    const text = `    at ${f}`;
    const url = f.getFileName();
    const line = f.getLineNumber();
    const column = f.getColumnNumber();
    if (!url?.startsWith(prefix) || !line || !column) return text;
    const map = mapOf(url);
    const hit = map?.at.findEntry(line - 1, column - 1);
    if (!hit?.originalSource) return text;
    const source = hit.originalSource.startsWith('file:')
      ? fileURLToPath(hit.originalSource)
      : resolve(map.base, hit.originalSource);
    return text.replace(
      `${url}:${line}:${column}`,
      `${source}:${hit.originalLine + 1}:${hit.originalColumn + 1}`,
    );
  };
  Error.prepareStackTrace = (error, frames) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return [head, ...frames.map(frame)].join('\n');
  };
}
