// The suites must bite: for every fault in the catalogue, run the suite area that covers it
// against a proxy that injects the fault in front of a reference server; the run must fail.
// Also the clean proxy (no fault) must pass, so a failure is the fault's doing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../../reference/src/config.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { type FaultServerOptions, startFaultProxy } from '../src/fault-proxy.ts';
import { FAULTS } from '../src/faults/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const VITEST = join(ROOT, 'node_modules', '.bin', 'vitest');

/**
 * Runs one suite area against an endpoint. With `bail`, vitest stops at the first failing
 * case: a fault only has to make one case fail, so there is no need to wait for the rest.
 */
function runArea(area: string, endpoint: string, token: string, bail = false): Promise<{ code: number; out: string }> {
  return new Promise((res) => {
    const args = ['run', '--config', join(ROOT, 'suites', 'vitest.config.ts'), '--maxWorkers=2', join('suites', area)];
    if (bail) args.push('--bail=1');
    const child = spawn(VITEST, args, {
      cwd: ROOT,
      env: { ...process.env, ORCH_ENDPOINT: endpoint, ORCH_TOKEN: token, ORCH_REPORT_DIR: '', ORCH_RUNS: '20', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => res({ code: c ?? 1, out }));
  });
}

describe('injected faults are caught by the suite that covers them', () => {
  let server: OrchServer;
  const caught: string[] = [];
  /** Servers built with the options some faults need (a gate on, a short history), by options. */
  const others = new Map<string, Promise<OrchServer>>();
  const serverFor = (o?: FaultServerOptions): Promise<OrchServer> => {
    if (!o) return Promise.resolve(server);
    const key = JSON.stringify(o);
    let p = others.get(key);
    if (!p) {
      p = build({ inMemory: true, tls: false, ...(o as Partial<ServerOptions>) }).then(async (s) => {
        await s.listen();
        return s;
      });
      others.set(key, p);
    }
    return p;
  };
  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
  });
  afterAll(async () => {
    await server.close();
    for (const p of others.values()) await (await p).close();
    process.stdout.write(`faults caught: ${caught.length}/${FAULTS.length} (${((100 * caught.length) / FAULTS.length).toFixed(0)}%)\n`);
  });

  const areas = [...new Set(FAULTS.map((f) => f.area))];
  for (const area of areas) {
    // the default server, and each set of server options a fault of the area needs
    const options = new Map<string, FaultServerOptions | undefined>([['', undefined]]);
    for (const f of FAULTS) if (f.area === area && f.server) options.set(JSON.stringify(f.server), f.server);
    for (const [key, o] of options) {
      it(`suite "${area}" passes through a proxy that injects no fault${key ? ` (server ${key})` : ''}`, async () => {
        expect(existsSync(join(ROOT, 'suites', area)), `suites/${area} exists`).toBe(true);
        const target = await serverFor(o);
        const p = await startFaultProxy({ target: target.url! });
        try {
          const r = await runArea(area, p.url, target.adminToken);
          expect(r.code, r.out.slice(-3000)).toBe(0);
        } finally {
          await p.close();
        }
      }, 180_000);
    }
  }

  // faults run a few at a time (each is a separate vitest process against its own proxy)
  for (const fault of FAULTS) {
    it.concurrent(`fault "${fault.name}" (${fault.breaks}) fails suite "${fault.area}"`, async () => {
      const target = await serverFor(fault.server);
      const p = await startFaultProxy({ target: target.url!, fault });
      try {
        const r = await runArea(fault.area, p.url, target.adminToken, true);
        expect(r.code, `the ${fault.area} suite passed despite the fault:\n${r.out.slice(-2000)}`).not.toBe(0);
        caught.push(fault.name);
      } finally {
        await p.close();
      }
    }, 180_000);
  }
});
