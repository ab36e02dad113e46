// A server process with a fault in front of it, for the fault meta test's health faults
// (faults/test/meta.test.ts): `server.ts FAULT PORT COMMAND` runs COMMAND (a shell
// command whose `{innerPort}` is replaced by a free port), waits until it serves /livez, then
// serves the fault proxy with FAULT on 127.0.0.1:PORT in front of it. Signals go to the
// server; this process exits with its exit code.
import { spawn } from 'node:child_process';
import { request } from 'undici';
import { freePort } from '../harness/src/free-port.ts';
import { faultByName } from './index.ts';
import { startFaultProxy } from './proxy.ts';

async function main(): Promise<void> {
  const [name, portText, command] = process.argv.slice(2);
  if (!name || !portText || !command) {
    process.stderr.write('usage: faults/server.ts FAULT PORT COMMAND\n');
    process.exit(2);
  }
  const fault = faultByName(name);
  const inner = await freePort('127.0.0.1');
  const child = spawn('/bin/sh', ['-c', command.replaceAll('{innerPort}', String(inner))], {
    stdio: 'inherit',
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => child.kill(sig));
  let proxy: Awaited<ReturnType<typeof startFaultProxy>> | undefined;
  child.on('exit', (code, signal) => {
    void (proxy?.close() ?? Promise.resolve()).finally(() => process.exit(code ?? (signal ? 1 : 0)));
  });
  const target = `http://127.0.0.1:${inner}`;
  for (;;) {
    if (child.exitCode !== null) return;
    try {
      const r = await request(`${target}/livez`);
      await r.body.dump();
      if (r.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proxy = await startFaultProxy({ target, fault, port: Number(portText) });
}

void main();
