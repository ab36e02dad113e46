// The node agent configuration suite must bite, and bite in the right place. Its cases run a
// validator and a defaulter command, so its faults are faulty commands (faults/
// node-agent-config/commands.ts): the reference's, with one class of rules left out. For each, the suite runs
// with the faulty command in place of the reference's; the fault is caught when one of its
// named catchers failed for the fault's reason (an invalid file accepted; a default missing),
// and the meta test fails when a case that is not a catcher failed (the fault, or the suite,
// is too broad). The clean command (nothing left out) must pass every case, so a failure is
// the fault's doing. The runs point ORCH_ENDPOINT at a closed port: no case needs a server.
// All runs are one batch (faults/test/batch/runs.ts): the clean command and each fault's command
// are called in the suite's worker (`in-process:`), not started hundreds of times per run. The
// reference's own command as processes, the way a user's command runs, is what the suites
// project of `npm test` runs these cases with.
//
// Narrow runs: ORCH_NODE_CONFIG_FAULTS=name,name selects faults. Each verdict is printed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchesCase } from '../catchers.ts';
import { NODE_CONFIG_FAULTS, type NodeConfigFault } from '../node-agent-config/commands.ts';
import { type Batch, type BatchRun, ROOT, runBatch } from './batch/runs.ts';

const FAULTY_TS = join(ROOT, 'faults', 'node-agent-config', 'faulty.ts');
const only = process.env.ORCH_NODE_CONFIG_FAULTS?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const selected = NODE_CONFIG_FAULTS.filter((f) => !only || only.includes(f.name));

/** The faulty command called in the suite's worker (suites/node-agent-config/commands.ts). */
const inProcess = (cmd: 'validate' | 'default', cls: string) =>
  `in-process:${JSON.stringify([FAULTY_TS, cmd, cls])}`;

/** A suite run's result: failed case id -> its failure message. */
interface SuiteRun {
  failed: Map<string, string>;
  passed: number;
  ms: number;
}

const suiteRun = (batch: Batch, name: string): SuiteRun => {
  const r = batch.runs.get(name)!;
  return { failed: new Map(Object.entries(r.failed)), passed: r.passed, ms: batch.ms };
};

function envFor(
  command: (cmd: 'validate' | 'default', cls: string) => string,
  f: NodeConfigFault | undefined,
): Record<string, string> {
  return {
    // no case needs a server
    ORCH_ENDPOINT: 'http://127.0.0.1:9',
    ORCH_NODE_CONFIG_VALIDATOR: command('validate', f?.command === 'validator' ? f.without : 'none'),
    ORCH_NODE_CONFIG_DEFAULTER: command('default', f?.command === 'defaulter' ? f.without : 'none'),
  };
}

const CLEAN = 'clean';

const TIMEOUT = 20 * 60_000;

describe('node agent configuration faults', () => {
  // one batch: the clean command (the faults' wrapper with nothing left out: their failures are
  // theirs, not the wrapper's) and each fault
  let batch: Promise<Batch>;
  beforeAll(() => {
    const area = 'node-agent-config';
    const runs: BatchRun[] = [
      { name: CLEAN, area, env: envFor(inProcess, undefined) },
      ...selected.map((f) => ({ name: f.name, area, env: envFor(inProcess, f) })),
    ];
    batch = runBatch(runs, { ORCH_RUNS: '6' });
    batch.catch(() => {});
  });

  it('every fault names catchers that are cases of suites/node-agent-config (static)', () => {
    const ids: string[] = JSON.parse(readFileSync(join(ROOT, 'suites', 'MANIFEST.json'), 'utf8')).map(
      (c: { id: string }) => c.id,
    );
    const names = NODE_CONFIG_FAULTS.map((f) => f.name);
    expect(
      names.filter((n, i) => names.indexOf(n) !== i),
      'unique fault names',
    ).toEqual([]);
    for (const f of NODE_CONFIG_FAULTS) {
      expect(f.catchers.length, `${f.name}: at least one catcher`).toBeGreaterThan(0);
      for (const c of f.catchers) {
        const matched = ids.filter((id) => matchesCase(c, id));
        expect(
          matched,
          `${f.name}: "${c}" names a case of the manifest (or is a prefix of some)`,
        ).not.toEqual([]);
        expect(
          matched.filter((id) => !id.startsWith('node-agent-config/')),
          `${f.name}: "${c}" names node-agent-config cases only`,
        ).toEqual([]);
      }
    }
  });

  it(
    'the clean validator and defaulter pass every case (through the same wrapper as the faults)',
    async () => {
      const b = await batch;
      const r = suiteRun(b, CLEAN);
      process.stdout.write(
        `node-config clean: ${r.passed} passed, ${r.failed.size} failed (batch of ${b.runs.size} runs: ${(r.ms / 1000).toFixed(1)} s)\n`,
      );
      expect([...r.failed.keys()], [...r.failed.values()].join('\n').slice(0, 3000)).toEqual([]);
      expect(r.passed).toBeGreaterThan(250);
      expect(b.unhandled, 'errors outside any case').toEqual([]);
    },
    TIMEOUT,
  );

  for (const f of selected)
    it(
      `${f.name} (${f.breaks}) is caught by ${f.catchers.join(', ')}, and nothing else fails`,
      async () => {
        const r = suiteRun(await batch, f.name);
        const isCatcher = (id: string) => f.catchers.some((c) => matchesCase(c, id));
        const caughtBy = [...r.failed]
          .filter(([id, msg]) => isCatcher(id) && f.reason.test(msg))
          .map(([id]) => id);
        const stray = [...r.failed.keys()].filter((id) => !isCatcher(id));
        process.stdout.write(
          `fault ${f.name}: ${caughtBy.length ? `caught by ${caughtBy.join(', ')}` : 'NOT caught'}${stray.length ? `; stray failures: ${stray.join(', ')}` : ''}\n`,
        );
        expect(
          caughtBy,
          `no catcher failed for the fault's reason (${f.reason}); failed: ${[...r.failed.keys()].join(', ') || 'none'}`,
        ).not.toEqual([]);
        expect(stray, stray.map((id) => `${id}:\n${r.failed.get(id)?.slice(0, 800)}`).join('\n')).toEqual([]);
      },
      TIMEOUT,
    );
});
