// A small run of `npm run reliability:faulty`: real suite areas through the CLI against three
// faulty endpoints (a stalled one, one answering broken JSON, one whose watches fall silent);
// every case ends, none at its case timeout, each failure saying what happened. And the
// script's judge of a message bites on the words it exists to catch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FaultMode } from '../../harness/src/faulty-endpoint.ts';
import { runMode, unclearWhy } from '../reliability/faulty-endpoints.ts';

const ORIGIN = 'http://127.0.0.1:40000';

describe('the faulty-endpoint judge of failure messages', () => {
  it.each([
    ['Error: fetch failed', 'network words'],
    ['SocketError: other side closed', 'network words'],
    ['AbortError: This operation was aborted', 'network words'],
    ["TypeError: Cannot read properties of undefined (reading 'items')", 'TypeError'],
    [
      'Error: Test timed out in 30000ms.\nIf this is a long-running test, pass a timeout value',
      'case timeout',
    ],
    ['Error: undefined', 'empty'],
    ['AssertionError: expected false to be true', 'names neither'],
  ])('%j is unclear (%s)', (message, why) => {
    expect(unclearWhy(message, ORIGIN)).toMatch(new RegExp(why));
  });

  it.each([
    'Error: GET http://127.0.0.1:40000/api/v1: no response headers from http://127.0.0.1:40000 within 2 s: the endpoint accepted the connection and sent nothing, after 2001 ms',
    'Error: watch stream broke: GET http://127.0.0.1:40000/api/v1/configmaps?watch=1: connection reset by the endpoint http://127.0.0.1:40000 while reading the body',
    'ConformanceError: doc1 § Events — "ADDED" [MUST]\n  Expected: the events up to ADDED a\n  Actual:   []',
    'Error: fixture: cannot create namespace x: POST /api/v1/namespaces -> 200 {"kind":"List"}',
  ])('%j is clear', (message) => {
    expect(unclearWhy(message, ORIGIN)).toBeUndefined();
  });
});

describe('the suites through the CLI against faulty endpoints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faulty-endpoints-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['stalled', 'errors'],
    ['bad-json', 'errors'],
    ['watch-stall', 'resource-versions'],
  ] as [FaultMode, string][])(
    '%s, area %s: every case ends with a clear message, within the bound',
    async (mode, area) => {
      const r = await runMode(mode, { areas: [area], requestTimeoutS: 1, slowByteMs: 100, reportDir: dir });
      expect(r.cases).toBeGreaterThan(0);
      expect(r.killed).toBe(false);
      expect(r.missing).toEqual([]);
      expect(r.hung).toEqual([]);
      expect(r.skippedSilently).toEqual([]);
      expect(r.unclear).toEqual([]);
      // every case ended: failed, passed, or skipped with a reason
      expect(r.passed + r.failed + r.skipped).toBe(r.cases);
      expect(r.failed).toBeGreaterThan(0);
      expect(r.wallS).toBeLessThanOrEqual(r.boundS);
      expect(r.ok).toBe(true);
    },
    110_000,
  );
});
