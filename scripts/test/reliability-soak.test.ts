// A short soak through its command on each backend (12 s of writes, 20 watchers that resume
// every few seconds, bookmarks every 2 s): no event lost, duplicated or reordered, and the page written.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SoakResult } from '../reliability/soak/run.ts';
import { cleanEnv, ROOT } from './helpers.ts';

const out = mkdtempSync(join(tmpdir(), 'orch-soak-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function soak(args: string[]): Promise<{ code: number; text: string }> {
  return new Promise((res) => {
    const c = spawn(
      process.execPath,
      // from a bundle of its sources, as `npm run reliability:soak` would through tsx
      [join(ROOT, 'scripts/bundle.mjs'), 'run', 'scripts/reliability/soak.ts', ...args],
      {
        cwd: ROOT,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let text = '';
    c.stdout.on('data', (d) => (text += d));
    c.stderr.on('data', (d) => (text += d));
    c.on('exit', (code) => res({ code: code ?? 1, text }));
  });
}

const CASES = [
  { backend: 'wal', servers: 1, name: 'wal' },
  { backend: 'etcd', servers: 2, name: 'etcd, two servers (watchers spread over both, writes alternating)' },
];

describe('soak (short)', () => {
  it.each(CASES)(
    '$name: 20 watchers over 12 s of writes see every acknowledged change in order, once; the page is written',
    { timeout: 110_000 },
    async ({ backend, servers }) => {
      const dir = join(out, backend);
      const r = await soak([
        '--backend',
        backend,
        '--servers',
        String(servers),
        '--seconds',
        '12',
        '--watchers',
        '20',
        '--rate',
        '40',
        '--watch-timeout',
        '3-8',
        '--bookmark-interval',
        '2',
        '--sample',
        '1',
        '--progress',
        '10',
        '--settle',
        '20',
        '--out',
        dir,
      ]);
      expect(r.code, r.text).toBe(0);
      const [res] = JSON.parse(readFileSync(join(dir, 'soak.json'), 'utf8')) as SoakResult[];
      expect(res!.backend).toBe(backend);
      expect(res!.servers).toBe(servers);
      expect(res!.pass, res!.reasons.join('; ')).toBe(true);
      // the writes happened and the watchers were exercised: all four scopes, resumes, bookmarks
      expect(res!.writes.acknowledged).toBeGreaterThanOrEqual(430);
      expect(res!.writes.byType.DELETED).toBeGreaterThan(0);
      expect(res!.byScope.map((s) => s.kind).sort()).toEqual(['all', 'labels', 'namespace', 'object']);
      for (const s of res!.byScope) expect(s.expected, s.kind).toBeGreaterThan(0);
      expect(res!.events).toMatchObject({ lost: 0, duplicated: 0, reordered: 0, unexpected: 0 });
      // 5 all-namespace watchers each saw every write
      expect(res!.byScope.find((s) => s.kind === 'all')!.delivered).toBe(5 * res!.writes.acknowledged);
      expect(res!.watch.resumed).toBeGreaterThan(20);
      expect(res!.watch.bookmarks).toBeGreaterThan(0);
      expect(res!.samples.length).toBeGreaterThanOrEqual(10);
      expect(
        res!.samples.every((s) => s.servers.length === servers && s.servers.every((p) => p.rss! > 0)),
      ).toBe(true);
      const page = readFileSync(join(dir, 'index.html'), 'utf8');
      expect(r.text).toContain(`page: ${join(dir, 'index.html')}`);
      expect(page).toContain('<svg');
      expect(page).toContain(
        `<h2>${backend}${servers > 1 ? ` (${servers} servers)` : ''} <span class="pass">PASS</span></h2>`,
      );
    },
  );
});
