// Faults against doc3's health endpoints, one rule each; suites/health must catch every one.
// The store and shutdown faults sit in front of the server processes the harness starts itself
// (`serverProcess`): a check that stays green when its part failed.
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';

const HEALTH = /^\/(healthz|livez|readyz)$/;

const text = (status: number, body: string): ProxiedResponse => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body: Buffer.from(body),
});

/** A failing health answer whose failed checks are all among `names`, answered as passing. */
function greenWhenOnly(names: string[]) {
  return (r: ProxiedRequest, res: ProxiedResponse): ProxiedResponse => {
    const m = HEALTH.exec(r.url.pathname);
    if (!m || res.status === 200) return res;
    const lines = res.body.toString('utf8').split('\n');
    const failed = lines.flatMap((l) => /^\[-\](\S+) /.exec(l)?.[1] ?? []);
    if (failed.length === 0 || !failed.every((n) => names.includes(n))) return res;
    if (!r.url.searchParams.has('verbose')) return text(200, 'ok');
    const green = lines
      .filter((l) => l !== '' && !/ check failed$/.test(l))
      .map((l) => l.replace(/^\[-\](\S+) .*$/, '[+]$1 ok'));
    return text(200, `${green.join('\n')}\n${m[1]} check passed\n`);
  };
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'health-exclude-ignored',
    request: (r) => {
      if (!HEALTH.test(r.url.pathname) || !r.url.searchParams.has('exclude')) return r;
      const url = new URL(r.url);
      url.searchParams.delete('exclude');
      return { ...r, url };
    },
  },
  {
    name: 'health-verbose-reduced-to-ok',
    response: (r, res) =>
      r.url.pathname === '/healthz' && r.url.searchParams.has('verbose') && res.status === 200
        ? text(200, 'ok')
        : res,
  },
  {
    name: 'health-store-check-stays-green',
    response: greenWhenOnly(['etcd', 'etcd-readiness']),
  },
  {
    name: 'health-ready-through-shutdown',
    response: greenWhenOnly(['shutdown']),
  },
];
