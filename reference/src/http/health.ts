// Health endpoints: /healthz (deprecated), /livez, /readyz, each with `verbose` and
// `exclude`, and /livez/<check>, /readyz/<check> for single checks.
import type { IncomingMessage, ServerResponse } from 'node:http';

const CHECKS = ['ping', 'log', 'etcd', 'poststarthook/start-apiextensions-controllers', 'poststarthook/crd-informer-synced'];

export function healthHandler(ready: () => boolean) {
  return (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(url.pathname);
    if (!m) return false;
    const kind = m[1]!;
    const single = m[2];
    const checks = kind === 'readyz' ? [...CHECKS, 'shutdown'] : CHECKS;
    const ok = (c: string) => (c === 'shutdown' ? ready() : true);
    if (single) {
      if (!checks.includes(single)) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
        return true;
      }
      const good = ok(single);
      res.writeHead(good ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(good ? 'ok' : `[-]${single} failed: reason withheld\n`);
      return true;
    }
    const excluded = new Set(url.searchParams.getAll('exclude'));
    const verbose = url.searchParams.has('verbose');
    let allOk = true;
    const lines: string[] = [];
    for (const c of checks) {
      if (excluded.has(c)) continue;
      const good = ok(c);
      if (!good) allOk = false;
      lines.push(good ? `[+]${c} ok` : `[-]${c} failed: reason withheld`);
    }
    for (const c of excluded) if (checks.includes(c)) lines.push(`[+]${c} excluded: ok`);
    const unknownExcluded = [...excluded].filter((c) => !checks.includes(c));
    if (unknownExcluded.length) lines.push(`warn: some health checks cannot be excluded: no matches for "${unknownExcluded.join('", "')}"`);
    let body: string;
    if (verbose || !allOk) body = `${lines.join('\n')}\n${kind} check ${allOk ? 'passed' : 'failed'}\n`;
    else body = 'ok';
    res.writeHead(allOk ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(body);
    void req;
    return true;
  };
}
