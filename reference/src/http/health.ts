// Health endpoints: /healthz (deprecated), /livez, /readyz, each with `verbose` and
// `exclude`, and /livez/<check>, /readyz/<check> for single checks. The checks come from the
// health stage's registry; this file only renders them.
import type { ServerResponse } from 'node:http';
import type { HealthChecks, HealthEndpoint } from '../health/checks.ts';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

export function healthHandler(checks: HealthChecks) {
  return async (res: ServerResponse, url: URL): Promise<boolean> => {
    const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(url.pathname);
    if (!m) return false;
    const endpoint = m[1] as HealthEndpoint;
    const single = m[2];
    const list = checks.for(endpoint);
    if (single) {
      const c = list.find((x) => x.name === single);
      // no such check: the path is none of these endpoints' (the caller answers 404 with a Status)
      if (!c) return false;
      const why = await checks.run(c, endpoint);
      res.writeHead(why === undefined ? 200 : 500, TEXT);
      res.end(why === undefined ? 'ok' : `internal server error: ${why}\n`);
      return true;
    }
    const excluded = new Set(url.searchParams.getAll('exclude'));
    const verbose = url.searchParams.has('verbose');
    const results = await Promise.all(
      list.map(
        async (c) => [c.name, excluded.has(c.name) ? undefined : await checks.run(c, endpoint)] as const,
      ),
    );
    let allOk = true;
    const lines: string[] = [];
    for (const [name, why] of results) {
      if (excluded.has(name)) continue;
      if (why !== undefined) allOk = false;
      lines.push(why === undefined ? `[+]${name} ok` : `[-]${name} failed: reason withheld`);
    }
    const names = list.map((c) => c.name);
    for (const c of excluded) if (names.includes(c)) lines.push(`[+]${c} excluded: ok`);
    const unknownExcluded = [...excluded].filter((c) => !names.includes(c));
    if (unknownExcluded.length)
      lines.push(
        `warn: some health checks cannot be excluded: no matches for "${unknownExcluded.join('", "')}"`,
      );
    const body =
      verbose || !allOk ? `${lines.join('\n')}\n${endpoint} check ${allOk ? 'passed' : 'failed'}\n` : 'ok';
    res.writeHead(allOk ? 200 : 500, TEXT);
    res.end(body);
    return true;
  };
}
