// The suites must bite: for every fault in the catalogue, run the suite area that covers it
// against a proxy that injects the fault in front of a reference server; the run must fail.
// Also the clean proxy (no fault) must pass, so a failure is the fault's doing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { startFaultProxy } from '../src/fault-proxy.ts';
import { FAULTS } from '../src/faults/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function runArea(area: string, endpoint: string, token: string): Promise<{ code: number; out: string }> {
  return new Promise((res) => {
    const child = spawn('npx', ['vitest', 'run', '--config', join(ROOT, 'suites', 'vitest.config.ts'), join('suites', area)], {
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
  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
  });
  afterAll(async () => {
    await server.close();
    process.stdout.write(`faults caught: ${caught.length}/${FAULTS.length} (${((100 * caught.length) / FAULTS.length).toFixed(0)}%)\n`);
  });

  const areas = [...new Set(FAULTS.map((f) => f.area))];
  for (const area of areas) {
    it(`suite "${area}" passes through a proxy that injects no fault`, async () => {
      expect(existsSync(join(ROOT, 'suites', area)), `suites/${area} exists`).toBe(true);
      const p = await startFaultProxy({ target: server.url! });
      try {
        const r = await runArea(area, p.url, server.adminToken);
        expect(r.code, r.out.slice(-3000)).toBe(0);
      } finally {
        await p.close();
      }
    }, 180_000);
  }

  for (const fault of FAULTS) {
    it(`fault "${fault.name}" (${fault.breaks}) fails suite "${fault.area}"`, async () => {
      const p = await startFaultProxy({ target: server.url!, fault });
      try {
        const r = await runArea(fault.area, p.url, server.adminToken);
        expect(r.code, `the ${fault.area} suite passed despite the fault:\n${r.out.slice(-2000)}`).not.toBe(0);
        caught.push(fault.name);
      } finally {
        await p.close();
      }
    }, 180_000);
  }
});
