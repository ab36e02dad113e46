// Faults against doc1's core rules, one per rule (each names the area that must catch it).
import type { Fault } from '../fault-proxy.ts';
import { mapJson } from './util.ts';

export const CORE_FAULTS: Fault[] = [
  {
    name: 'drop-continue',
    breaks: 'doc1 § Chunked lists: metadata.continue is set when more remain',
    area: 'chunking',
    response: (_r, res) => mapJson(res, (j) => (j?.metadata?.continue ? { ...j, metadata: { ...j.metadata, continue: undefined } } : j)),
  },
  {
    name: 'reorder-watch-events',
    breaks: 'doc1 § Events: the watch stream delivers changes in order',
    area: 'watch',
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
    watch: (s, line) => (line.includes('"MODIFIED"') && (s.dropped = ((s.dropped as number) ?? 0) + 1) % 2 === 1 ? [] : [line]),
  },
  {
    name: 'ignore-dry-run',
    breaks: 'doc1 § Dry run: nothing is persisted',
    area: 'dry-run',
    request: (r) => {
      const url = new URL(r.url);
      url.searchParams.delete('dryRun');
      return { ...r, url };
    },
  },
  {
    name: 'stale-update-accepted',
    breaks: 'doc1 § Update mechanisms: a stale resourceVersion yields 409',
    area: 'crud',
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
    response: (_r, res) => {
      const headers = { ...res.headers };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'warning') delete headers[k];
      return { ...res, headers };
    },
  },
];
