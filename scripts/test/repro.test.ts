// Reproducers, end to end: a case made to fail through the fault proxy leaves
// <report>/repro/<case id>.sh; that script, run with bash and curl, exits 1 against the faulty
// endpoint (the failure reproduces, and again on a second run: its names are fresh) and 0
// against the reference server behind it; it holds no token; JUnit and Allure link it; a
// passing case leaves none.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultByName } from '../../faults/index.ts';
import { type RunningProxy, startFaultProxy } from '../../faults/proxy.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { cleanupTempDirs, cli, tempDir } from './helpers.ts';

/**
 * Runs a reproducer against `endpoint` as a user would: bash, a token in the environment (a
 * child of its own: the servers answering it run in this process).
 */
function replay(
  file: string,
  endpoint: string,
  token: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [file], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ORCH_ENDPOINT: endpoint, ORCH_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('reproducers of failing cases', () => {
  let server: OrchServer;
  /** The names of the server's namespaces not being deleted. */
  const activeNamespaces = async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces`, {
      headers: { authorization: `Bearer ${server.adminToken}` },
    });
    const list = (await r.json()) as { items: { metadata: { name: string }; status?: { phase?: string } }[] };
    return list.items
      .filter((n) => n.status?.phase !== 'Terminating')
      .map((n) => n.metadata.name)
      .sort();
  };
  const proxies: Record<string, RunningProxy> = {};

  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
    for (const name of [
      'stale-update-accepted',
      'list-kind-generic',
      'deleted-as-modified',
      'duplicate-create-overwrites',
    ])
      proxies[name] = await startFaultProxy({ target: server.url!, fault: faultByName(name) });
  });
  afterAll(async () => {
    for (const p of Object.values(proxies)) await p.close();
    await server?.close();
    cleanupTempDirs();
  });

  it.each([
    // the fault answers a stale update 200 instead of 409: a status
    ['stale-update-accepted', 'crud/update/stale-version-conflict'],
    // the fault answers a list as kind "List": the same status, another body
    ['list-kind-generic', 'crud/list/envelope'],
    // a watch: the fault streams a deletion as MODIFIED
    ['deleted-as-modified', 'watch/events/deleted-on-delete'],
    // a property case: the requests of the shrunk counterexample
    ['duplicate-create-overwrites', 'crud/names/law-unique-at-any-time'],
  ])(
    '%s: %s leaves a reproducer that fails against the fault and passes against the reference',
    async (fault, id) => {
      const proxy = proxies[fault]!;
      const dir = tempDir('repro');
      const r = await cli([
        'run',
        '--endpoint',
        proxy.url,
        '--token',
        server.adminToken,
        '--case',
        id,
        '--report',
        dir,
        '--no-html',
      ]);
      expect(r.code, r.out).toBe(1);
      const file = join(dir, 'repro', `${id}.sh`);
      expect(existsSync(file), r.out).toBe(true);
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith('#!/usr/bin/env bash\n')).toBe(true);
      expect(text).not.toContain(server.adminToken);
      expect(text).not.toMatch(/authorization: bearer [^$]/i);
      // the failure message names it, JUnit attaches it
      expect(r.out).toContain(`Reproducer: ${file}`);
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(junit).toContain(`[[ATTACHMENT|${file}]]`);
      // Allure: an attachment of the case (allure-vitest puts it in a step of its name)
      const results = readdirSync(join(dir, 'allure-results')).filter((f) => f.endsWith('-result.json'));
      const attached = results
        .map((f) => JSON.parse(readFileSync(join(dir, 'allure-results', f), 'utf8')))
        .filter((res) => res.labels?.some((l: { name: string; value: string }) => l.value === id))
        .flatMap((res) => [
          ...(res.attachments ?? []),
          ...(res.steps ?? []).flatMap((st: { attachments?: unknown[] }) => st.attachments ?? []),
        ]);
      expect(attached.map((a: { name: string }) => a.name)).toContain(`reproducer ${id.split('/').pop()}.sh`);

      const faulty = await replay(file, proxy.url, server.adminToken);
      expect(faulty.code, `${faulty.out}\n---\n${text}`).toBe(1);
      expect(faulty.out).toContain('reproduced');
      // again: fresh names, so the first replay's objects do not collide
      const again = await replay(file, proxy.url, server.adminToken);
      expect(again.code, again.out).toBe(1);
      const before = await activeNamespaces();
      const reference = await replay(file, server.url!, server.adminToken);
      expect(reference.code, `${reference.out}\n---\n${text}`).toBe(0);
      expect(reference.out).toContain('not reproduced');
      // what the replay made is deleted at its end
      expect(await activeNamespaces()).toEqual(before);
    },
    120_000,
  );
});
