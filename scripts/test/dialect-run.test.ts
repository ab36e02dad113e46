// `orch-conformance run --dialect kubernetes` with no target: the embedded reference servers
// speak Kubernetes' words (`serve --dialect kubernetes`, built in-process and, for the health
// cases, started as `serve` processes of their own), and the suites, speaking Kubernetes' words
// as they do to a real cluster, pass on them without an expectations file. Areas where the words
// show most (groups, content types, namespaces and finalizers, RBAC, apply's managers, the
// server's own processes); `npm run conformance -- --dialect kubernetes` runs them all.
import { afterAll, expect, it } from 'vitest';
import { cleanupTempDirs, cli, readSummary, tail, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

it('passes the suites of five areas in Kubernetes words, nothing skipped', async () => {
  const report = tempDir('orch-dialect-run-');
  const areas = ['crud', 'content-types', 'deletion', 'authorization', 'health'];
  const r = await cli([
    'run',
    '--dialect',
    'kubernetes',
    '--area',
    areas.join(','),
    '--report',
    report,
    '--no-html',
  ]);
  expect(r.code, tail(r)).toBe(0);
  const s = readSummary(report);
  expect(s.dialect).toBe('kubernetes');
  expect(s.expectations).toBeNull();
  expect(s.executed).toBeGreaterThan(50);
  expect(s.passed).toBe(s.executed);
  expect(s.skipped).toBe(0);
}, 180_000);
