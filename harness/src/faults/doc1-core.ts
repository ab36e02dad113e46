// Faults against doc1's core rules, one per rule (each names the area that must catch it).
import type { Fault } from '../fault-proxy.ts';
import { DRY_RUN_WRITE_CASES, mapJson, STREAM_CASES } from './util.ts';

export const CORE_FAULTS: Fault[] = [
  {
    name: 'drop-continue',
    breaks:
      'doc1 § Chunked lists: metadata.continue is set when more remain (dropped from the chunks after the first)',
    area: 'chunking',
    catchers: ['chunking/law/continue-until-last', 'chunking/law/concatenation'],
    // a walk that stops early also leaves a remainingItemCount on its last chunk, and misses the
    // objects of the later chunks: the laws of both check the same tokens-until-the-end
    alsoFails: [
      'chunking/law/remaining-item-count',
      'chunking/law/snapshot-under-writes',
      'chunking/law/selectors',
    ],
    // narrowed: the first chunk keeps its token (the cases that need one token to run keep their
    // setup); a walk of three chunks or more stops early
    response: (r, res) =>
      r.url.searchParams.get('continue')
        ? mapJson(res, (j) =>
            j?.metadata?.continue ? { ...j, metadata: { ...j.metadata, continue: undefined } } : j,
          )
        : res,
  },
  {
    name: 'reorder-watch-events',
    breaks: 'doc1 § Events: the watch stream delivers changes in order',
    area: 'watch',
    catchers: ['watch/law/exactly-once-in-order'],
    // every case that compares a stream with exactly the events of its writes checks each of
    // the stream's rules (once, in order, the right type, the right version): see STREAM_CASES
    // (a held event that never gets a follower is sent at the end of the stream, too late for a case waiting for it)
    // the expiry cases read streams of their writes too (before and after the window passes)
    alsoFails: [...STREAM_CASES, 'watch/start/expired-error-event', 'watch/start/expired-gone'],
    watch: (s, line) => {
      if (line.includes('"BOOKMARK"') || line.includes('"ERROR"')) return [line];
      if (s.held === undefined) {
        s.held = line;
        return [];
      }
      const h = s.held;
      s.held = undefined;
      return [line, h];
    },
  },
  {
    name: 'drop-watch-events',
    breaks: 'doc1 § Watch recovery: no change is lost',
    area: 'watch',
    catchers: ['watch/law/restart-at-any-cut', 'watch/law/exactly-once-in-order'],
    // every case that compares a stream with exactly the events of its writes checks each of
    // the stream's rules (once, in order, the right type, the right version): see STREAM_CASES
    alsoFails: STREAM_CASES,
    watch: (s, line) =>
      line.includes('"MODIFIED"') && (s.dropped = ((s.dropped as number) ?? 0) + 1) % 2 === 1 ? [] : [line],
  },
  {
    name: 'ignore-dry-run',
    breaks: 'doc1 § Dry run: nothing is persisted',
    area: 'dry-run',
    catchers: [...DRY_RUN_WRITE_CASES, 'dry-run/generate-name', 'dry-run/watch/no-events'],
    // narrowed: a dryRun value other than All (or bare) is left alone (its refusal is another rule)
    request: (r) => {
      if (!['All', ''].includes(r.url.searchParams.get('dryRun') ?? 'unset')) return r;
      const url = new URL(r.url);
      url.searchParams.delete('dryRun');
      return { ...r, url };
    },
  },
  {
    name: 'stale-update-accepted',
    breaks: 'doc1 § Update mechanisms: a stale resourceVersion yields 409',
    area: 'crud',
    catchers: ['crud/update/stale-version-conflict'],
    request: async (r) => r,
    response: async (r, res, up) => {
      if (r.method !== 'PUT' || res.status !== 409) return res;
      const body = JSON.parse(r.body.toString('utf8'));
      const cur = await up.send({ ...r, method: 'GET', body: Buffer.alloc(0) });
      const rv = JSON.parse(cur.body.toString('utf8'))?.metadata?.resourceVersion;
      body.metadata = { ...body.metadata, resourceVersion: rv };
      return up.send({ ...r, body: Buffer.from(JSON.stringify(body)) });
    },
  },
  {
    name: 'strip-warnings',
    breaks: 'doc1 § Headers: Warning, one entry per dropped unknown or duplicate field',
    area: 'field-validation',
    catchers: ['field-validation/warn/', 'field-validation/custom/pruned-warn'],
    response: (_r, res) => {
      const headers = { ...res.headers };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'warning') delete headers[k];
      return { ...res, headers };
    },
  },
];
