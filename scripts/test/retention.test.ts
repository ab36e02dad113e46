// The expiry cases cannot be talked out of running. A reference server with a 20-second
// history (and 20-second continue tokens) stands behind a proxy that turns every 410 into a
// 200 (the HTTP status, and the code of a Status in a watch stream). Before capability
// routing this passed the whole suite with 0 failures: the probes for an expired version saw
// the proxy's 200 and skipped the cases as "still retained". Now:
//  - with the retention declared, every expiry case REQUIRES the 410 and fails, none skips;
//  - without a declaration, once the server has run past its history, the probes find no
//    proof that version "1" is still served, so the cases run and fail; only the expired
//    continue token (nothing to probe without a declared lifetime) skips, saying what to
//    declare;
//  - the same cases pass through a clean proxy, so the failures are the fault's doing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultHooks, type RunningProxy, startFaultProxy } from '../../faults/proxy.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { cleanupTempDirs, cli, readSummary, tail, tempDir } from './helpers.ts';

const HISTORY = 20;

/** Breaks doc1 § Errors, 410 Gone: every 410 is answered as 200. */
const GONE_TO_OK: FaultHooks = {
  name: 'gone-to-ok',
  response: (_r, res) => (res.status === 410 ? { ...res, status: 200 } : res),
  watch: (_s, line) => {
    try {
      const e = JSON.parse(line);
      const st = e?.object?.kind === 'Status' ? e.object : e?.kind === 'Status' ? e : undefined;
      if (st?.code === 410) {
        st.code = 200;
        return [JSON.stringify(e)];
      }
    } catch {
      // not JSON: passed as is
    }
    return [line];
  },
};

/** Every case that checks a 410 for something the target no longer retains. */
const HISTORY_CASES = [
  'watch/start/expired-gone',
  'watch/start/expired-error-event',
  'watch/law/relist-after-gone',
  'resource-versions/watch/rv-expired',
  'resource-versions/watch/rv-expired-error-event',
  'resource-versions/list/exact/no-limit/rv-expired',
  'resource-versions/list/match-unset/limit/rv-expired',
];
const TOKEN_CASE = 'chunking/continue/expired-token';
const ALL = [...HISTORY_CASES, TOKEN_CASE];

describe('a proxy that turns every 410 into 200 fails the expiry cases', () => {
  let server: OrchServer;
  let faulty: RunningProxy;
  let clean: RunningProxy;
  let started = 0;

  beforeAll(async () => {
    server = await build({
      inMemory: true,
      tls: false,
      historySeconds: HISTORY,
      continueTtlSeconds: HISTORY,
    });
    await server.listen();
    started = Date.now();
    faulty = await startFaultProxy({ target: server.url!, fault: GONE_TO_OK });
    clean = await startFaultProxy({ target: server.url! });
  });
  afterAll(async () => {
    await faulty?.close();
    await clean?.close();
    await server?.close();
    cleanupTempDirs();
  });

  const run = (endpoint: string, declare: boolean, dir: string) =>
    cli([
      'run',
      '--endpoint',
      endpoint,
      '--token',
      server.adminToken,
      ...(declare ? ['--history-seconds', String(HISTORY), '--continue-ttl-seconds', String(HISTORY)] : []),
      '--case',
      ALL.join(','),
      '--runs',
      '3',
      '--report',
      dir,
      '--no-html',
    ]);

  // side by side: the runs mostly wait out the windows
  it.concurrent('declared retention: every expiry case fails through the proxy, none skips', async () => {
    const dir = tempDir('gone-declared');
    const r = await run(faulty.url, true, dir);
    expect(r.code, tail(r)).toBe(1);
    const s = readSummary(dir);
    expect(s.unexpected.failures.map((f) => f.id).sort(), tail(r)).toEqual([...ALL].sort());
    expect(s.skipped, JSON.stringify(s.skips)).toBe(0);
    expect(s.passed).toBe(0);
    // the failure says what was required and what came back
    const exact = s.unexpected.failures.find(
      (f) => f.id === 'resource-versions/list/exact/no-limit/rv-expired',
    );
    expect(exact?.message).toMatch(/410/);
  }, 240_000);

  it.concurrent('the same cases pass through a clean proxy (the failures are the fault)', async () => {
    const dir = tempDir('gone-clean');
    const r = await run(clean.url, true, dir);
    expect(r.code, tail(r)).toBe(0);
    const s = readSummary(dir);
    expect(s.passed, tail(r)).toBe(ALL.length);
    expect(s.skipped).toBe(0);
  }, 240_000);

  it.concurrent('undeclared, past the history window: the probes do not hide the fault', async () => {
    const wait = started + (HISTORY + 3) * 1000 - Date.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    const dir = tempDir('gone-undeclared');
    const r = await run(faulty.url, false, dir);
    expect(r.code, tail(r)).toBe(1);
    const s = readSummary(dir);
    expect(s.unexpected.failures.map((f) => f.id).sort(), tail(r)).toEqual([...HISTORY_CASES].sort());
    // the one that cannot be probed skips, and says what to declare
    expect(s.skips.map((k) => k.id)).toEqual([TOKEN_CASE]);
    expect(s.skips[0]?.note).toMatch(/ORCH_CONTINUE_TTL_SECONDS/);
  }, 240_000);
});
