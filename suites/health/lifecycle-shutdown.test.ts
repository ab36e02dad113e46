// doc3 § Endpoints, Health, at a graceful shutdown: observed through /readyz
// (`--shutdown-delay-duration`: readiness fails at once while requests are still served), and
// the process exits 0. One server process of the harness's own lives through a shutdown, and
// each case judges its part of the record (lifecycle-support.ts).
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { DELAY_S, needs, oncePerTarget, until, withServer } from './lifecycle-support.ts';
import { FLAGS_RULE, SECTION } from './support.ts';

/**
 * A shutdown with a delay of DELAY_S: /readyz before SIGTERM, /readyz after it (polled for at most
 * 1.5 s) and when it was answered, /version and /livez then, the exit code (or a timeout 30 s
 * after the signal), and what /readyz answers once the process is gone.
 */
const shutdown = oncePerTarget((target) =>
  withServer(target, DELAY_S, async (s) => {
    const before = await s.get('/readyz');
    const signalled = Date.now();
    s.child.kill('SIGTERM');
    const ready = await until(
      1500,
      () => s.get('/readyz?verbose'),
      (r) => r.status !== 200,
    );
    const readyMs = Date.now() - signalled;
    const version = await s.get('/version');
    const live = await s.get('/livez');
    const servedMs = Date.now() - signalled;
    const code = await Promise.race([
      s.exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
    ]);
    const output = s.output();
    const after = await s.get('/readyz', 2000);
    return { before, ready, readyMs, version, live, servedMs, code, output, after };
  }),
);

describe('health: a server process of the harness shuts down', () => {
  conformance(
    {
      id: 'health/shutdown/readyz-fails-while-serving',
      title: `On SIGTERM with --shutdown-delay-duration=${DELAY_S}s, /readyz stops answering 200 at once while other requests are still served`,
      doc: 3,
      section: SECTION,
      place: FLAGS_RULE,
      specRules: ['doc3/health/server-flags-livez-grace-period-startup'],
      level: 'MUST',
    },
    async ({ target }) => {
      const { before, ready, readyMs, version, live, servedMs } = await shutdown(target);
      check(
        before.status === 200,
        '200 from /readyz before the signal',
        `${before.status}: ${show(before.text)}`,
        'a started server is ready',
      );
      check(
        ready.status !== 200 && ready.status !== 0,
        'an answer other than 200 from /readyz within 1.5 s of SIGTERM (the server still answers)',
        `${ready.status}: ${show(ready.text.slice(0, 400))}`,
        'readiness fails as soon as the shutdown starts',
      );
      // still inside the delay: the server goes on serving
      check(
        readyMs < DELAY_S * 1000,
        `the check made within the ${DELAY_S} s delay`,
        `${readyMs} ms`,
        'timing of the case',
      );
      check(
        version.status === 200 && live.status === 200 && servedMs < DELAY_S * 1000,
        `/version and /livez still 200 during the ${DELAY_S} s delay`,
        `/version ${version.status}, /livez ${live.status} at ${servedMs} ms`,
        'requests are served through the shutdown delay',
      );
    },
    { needs, timeout: 60_000 },
  );

  conformance(
    {
      id: 'health/shutdown/exits-zero',
      title: 'After the shutdown delay the server stops accepting requests and exits with status 0',
      doc: 3,
      section: SECTION,
      place: `${FLAGS_RULE} (the end of a graceful shutdown: not shown; Kubernetes 1.28 exits 0)`,
      level: 'BEYOND',
    },
    async ({ target }) => {
      const { code, output, after } = await shutdown(target);
      check(
        code === 0,
        'exit status 0 within 30 s of SIGTERM',
        `${code}; output: ${show(output.slice(-600))}`,
        'a graceful shutdown ends well',
      );
      check(
        after.status === 0,
        'no answer once the server is gone',
        `${after.status}`,
        'the server stopped accepting',
      );
    },
    { needs, timeout: 60_000 },
  );
});
