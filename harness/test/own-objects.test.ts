// Cases that once assumed a quiet namespace now compare their own objects: on a reference server
// behind the fault proxy, objects another writer puts into their namespaces (as a live cluster's
// root-CA publisher does, and later, among the case's own) fail none of them, and they still
// fail, saying what is wrong, when an object of their own is missing from lists and watch
// streams or listed at the wrong version (a fault of the catalogue).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRadius } from '../../faults/blast-radius.ts';
import { faultByName } from '../../faults/index.ts';
import { type FaultHooks, type RunningProxy, startFaultProxy } from '../../faults/proxy.ts';
import { type Batch, type BatchRun, runBatch } from '../../faults/test/batch/runs.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { EARLY, type ForeignWriter, LATE, withForeignObjects } from './foreign-objects.ts';

/** The list table's cases (they compare whole lists of the case's namespace). */
const LIST_TABLE = 'suites/resource-versions/cases/list.test.ts';

/** The files of the cases that compared a whole namespace's lists and streams. */
const FILES = [
  'suites/resource-versions/cases/get.test.ts',
  LIST_TABLE,
  'suites/resource-versions/cases/watch.test.ts',
  'suites/chunking/laws.test.ts',
  'suites/chunking/tokens.test.ts',
  'suites/watch/events.test.ts',
  'suites/watch/start.test.ts',
];

/** An object of the case's own ("b", which the cases above write) missing from every list and stream. */
const DROP_B: FaultHooks = {
  name: 'drop-own-object',
  response: (r, res) => {
    if (r.method !== 'GET' || !/\/configmaps$/.test(r.url.pathname) || res.status !== 200) return res;
    const j = JSON.parse(res.body.toString('utf8'));
    if (!Array.isArray(j?.items)) return res;
    const items = j.items.filter((o: any) => o?.metadata?.name !== 'b');
    return { ...res, body: Buffer.from(JSON.stringify({ ...j, items })) };
  },
  watch: (_s, line) => {
    try {
      return JSON.parse(line)?.object?.metadata?.name === 'b' ? [] : [line];
    } catch {
      return [line];
    }
  },
};

describe("list and watch cases judge the case's own objects", () => {
  let server: OrchServer;
  const proxies: RunningProxy[] = [];
  const writers = new Map<string, ForeignWriter>();
  let batch: Batch;

  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
    const runs: BatchRun[] = [];
    const plan: [string, FaultHooks | undefined, string[]][] = [
      ['foreign', undefined, FILES],
      ['foreign+drop-own', DROP_B, FILES],
      ['foreign+exact-list-served-current', faultByName('exact-list-served-current'), [LIST_TABLE]],
    ];
    for (const [name, fault, files] of plan) {
      const w = withForeignObjects(fault);
      writers.set(name, w);
      const p = await startFaultProxy({ target: server.url!, fault: w.hooks });
      proxies.push(p);
      runs.push({
        name,
        area: 'none',
        env: { ORCH_ENDPOINT: p.url, ORCH_TOKEN: server.adminToken },
        files,
      });
    }
    batch = await runBatch(runs, { ORCH_RUNS: '8' });
  }, 600_000);

  afterAll(async () => {
    for (const p of proxies) await p.close();
    await server?.close();
  });

  const run = (name: string) => batch.runs.get(name)!;
  const failures = (name: string) => Object.keys(run(name).failed).sort();

  it('the proxy wrote objects of another writer into the cases namespaces, early and late', () => {
    for (const [name, w] of writers) {
      expect(w.written.filter((x) => x.endsWith(`/${EARLY}`)).length, name).toBeGreaterThan(10);
      expect(w.written.filter((x) => x.endsWith(`/${LATE}`)).length, name).toBeGreaterThan(10);
    }
    for (const p of proxies) expect(p.errors).toEqual([]);
  });

  it('objects the cases did not make fail none of them', () => {
    const r = run('foreign');
    expect(failures('foreign'), Object.values(r.failed).join('\n').slice(0, 3000)).toEqual([]);
    expect(r.passed).toBeGreaterThan(40);
    expect(batch.unhandled).toEqual([]);
  });

  it('a case fails when an object of its own is missing, and says which', () => {
    const failed = run('foreign+drop-own').failed;
    // a list that leaves b out: the history's mark and the Most Recent list
    const list = failed['resource-versions/list/match-unset/no-limit/rv-unset'];
    expect(list, failures('foreign+drop-own').join(', ')).toBeDefined();
    expect(list).toContain('Expected: {a: a-1; b: b-2; c: c-3; e: e-4}');
    expect(list).toMatch(
      /Actual: +{a: a-1; c: c-3; e: e-4} \(left out, not made by the case: 0-controller-made, orch-root-ca\.crt, zz-namespace-made\)/,
    );
    // the chunks and the complete list without b
    expect(failed['chunking/remaining-item-count/complete-list']).toContain(
      'the 3 objects created, each once',
    );
    // a watch stream without b's events
    expect(failed['watch/start/unset-current-state']).toContain(
      'ADDED events for exactly the existing objects',
    );
    // the cases that never write b still pass
    for (const id of ['resource-versions/get/rv-unset', 'watch/events/added-on-create'])
      expect(failed[id], id).toBeUndefined();
  });

  it('a case fails when an object of its own is listed at the wrong version (a fault of the catalogue)', () => {
    const f = faultByName('exact-list-served-current');
    const failed = failures('foreign+exact-list-served-current');
    for (const id of f.catchers) expect(failed, id).toContain(id);
    // and nothing outside the fault's rule
    const around = readRadius()[f.name] ?? [];
    expect(failed.filter((id) => !f.catchers.includes(id) && !around.includes(id))).toEqual([]);
    const msg = run('foreign+exact-list-served-current').failed[
      'resource-versions/list/exact/no-limit/rv-past'
    ]!;
    expect(msg).toContain('the collection at the requested version');
    expect(msg).toContain(
      '(left out, not made by the case: 0-controller-made, orch-root-ca.crt, zz-namespace-made)',
    );
  });
});
