// doc3 § Endpoints, Health, when the store goes: a server whose store is gone is not healthy,
// and its checks name the store. One server process of the harness's own lives through it, and
// each case judges its part of the record (lifecycle-support.ts).
import { rmSync } from 'node:fs';
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { needs, oncePerTarget, until, withServer } from './lifecycle-support.ts';
import { parseListing, SECTION, STATUS_RULE } from './support.ts';

type Answer = { status: number; text: string };

/** A server's /readyz before its data directory is removed, and /readyz and /livez after (verbose). */
const storeGone = oncePerTarget((target) =>
  withServer(target, 0, async (s) => {
    const before = await s.get('/readyz');
    rmSync(s.dataDir, { recursive: true, force: true });
    const after: Record<string, Answer> = {};
    for (const endpoint of ['readyz', 'livez'])
      after[endpoint] = await until(
        10_000,
        () => s.get(`/${endpoint}?verbose`),
        (x) => x.status !== 200,
      );
    return { before, after };
  }),
);

describe('health: a server process of the harness loses its store', () => {
  conformance(
    {
      id: 'health/store/gone',
      title: 'A server whose data directory is removed stops answering 200 on /readyz and /livez',
      doc: 3,
      section: SECTION,
      place: `${STATUS_RULE} (a store that can no longer keep writes is not healthy; how the store is checked: not shown)`,
      specRules: ['doc3/health/status-200-means-healthy-live-ready'],
      level: 'SHOULD',
    },
    async ({ target }) => {
      const { before, after } = await storeGone(target);
      check(
        before.status === 200,
        '200 from /readyz before the data directory is removed',
        `${before.status}`,
        'a started server is ready',
      );
      for (const endpoint of ['readyz', 'livez']) {
        const r = after[endpoint]!;
        check(
          r.status !== 200 && r.status !== 0,
          `an answer other than 200 from /${endpoint} within 10 s`,
          `${r.status}: ${show(r.text.slice(0, 400))}`,
          'the store can no longer keep what the server acknowledges',
        );
      }
    },
    { needs, timeout: 60_000 },
  );

  conformance(
    {
      id: 'health/store/etcd-check-named',
      title: 'The failing store is named by the etcd check: [-]etcd failed in /readyz?verbose',
      doc: 3,
      section: SECTION,
      place: `${STATUS_RULE} (check names: not shown; Kubernetes 1.28 names the store's check "etcd")`,
      level: 'BEYOND',
    },
    async ({ target }) => {
      const r = (await storeGone(target)).after.readyz!;
      const l = parseListing(r.status, r.text);
      check(
        l.failed.includes('etcd'),
        'a "[-]etcd failed" line',
        show(l.lines),
        'the store check names itself',
      );
    },
    { needs, timeout: 60_000 },
  );
});
