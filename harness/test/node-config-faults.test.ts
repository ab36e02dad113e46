// The node agent configuration suite must bite, and bite in the right place. Its cases run a
// validator and a defaulter command, so its faults are faulty commands (harness/src/faults/
// node-config.ts): the reference's, with one class of rules left out. For each, the suite runs
// with the faulty command in place of the reference's; the fault is caught when one of its
// named catchers failed for the fault's reason (an invalid file accepted; a default missing),
// and the meta test fails when a case that is not a catcher failed (the fault, or the suite,
// is too broad). The clean command (nothing left out) must pass every case, so a failure is
// the fault's doing. The runs point ORCH_ENDPOINT at a closed port: no case needs a server.
//
// Narrow runs: ORCH_NODE_CONFIG_FAULTS=name,name selects faults. Each verdict is printed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchesCase } from '../src/faults/catchers.ts';
import { NODE_CONFIG_FAULTS, type NodeConfigFault } from '../src/faults/node-config.ts';
import { compilePlain } from '../src/compile-plain.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VITEST = join(ROOT, 'node_modules', '.bin', 'vitest');
const FAULTY_TS = join(ROOT, 'harness', 'test', 'fixtures', 'node-config-faulty.ts');
/** The faulty command compiled to plain JavaScript: it starts hundreds of times per run. */
let faultyJs = '';
const only = process.env.ORCH_NODE_CONFIG_FAULTS?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const selected = NODE_CONFIG_FAULTS.filter((f) => !only || only.includes(f.name));

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const faulty = (cmd: 'validate' | 'default', cls: string) =>
  `${quote(process.execPath)} ${quote(faultyJs)} ${cmd} ${cls}`;

/** A test name is `<case id>: <title>`. */
const caseIdOf = (title: string) => /^([a-z0-9-]+(?:\/[a-z0-9.-]+)+): /.exec(title)?.[1] ?? title;

interface SuiteRun {
  /** Failed case id -> its failure message. */
  failed: Map<string, string>;
  passed: number;
  out: string;
  ms: number;
}

function runSuite(env: Record<string, string>): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'node-config-faults-'));
  const json = join(dir, 'results.json');
  const started = Date.now();
  return new Promise((res) => {
    const args = [
      'run',
      '--config',
      join(ROOT, 'suites', 'vitest.config.ts'),
      '--reporter=json',
      `--outputFile=${json}`,
      join('suites', 'node-agent-config'),
    ];
    const child = spawn(VITEST, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        ORCH_ENDPOINT: 'http://127.0.0.1:9',
        ORCH_REPORT_DIR: '',
        ORCH_RUNS: '6',
        CI: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', () => {
      const failed = new Map<string, string>();
      let passed = 0;
      try {
        const r = JSON.parse(readFileSync(json, 'utf8'));
        for (const file of r.testResults ?? []) {
          let fileFailed = false;
          for (const t of file.assertionResults ?? []) {
            if (t.status === 'failed') {
              failed.set(caseIdOf(String(t.title)), (t.failureMessages ?? []).join('\n'));
              fileFailed = true;
            } else if (t.status === 'passed') passed++;
          }
          if (file.status === 'failed' && !fileFailed)
            failed.set(`file ${file.name}`, String(file.message ?? ''));
        }
      } catch (e) {
        failed.set('no JSON report', (e as Error).message);
      }
      rmSync(dir, { recursive: true, force: true });
      res({ failed, passed, out, ms: Date.now() - started });
    });
  });
}

function envFor(f: NodeConfigFault | undefined): Record<string, string> {
  return {
    ORCH_NODE_CONFIG_VALIDATOR: faulty('validate', f?.command === 'validator' ? f.without : 'none'),
    ORCH_NODE_CONFIG_DEFAULTER: faulty('default', f?.command === 'defaulter' ? f.without : 'none'),
  };
}

const TIMEOUT = 20 * 60_000;

describe('node agent configuration faults', () => {
  beforeAll(() => {
    faultyJs = compilePlain(ROOT, FAULTY_TS);
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
      const r = await runSuite(envFor(undefined));
      process.stdout.write(
        `node-config clean run: ${r.passed} passed, ${r.failed.size} failed in ${(r.ms / 1000).toFixed(1)} s\n`,
      );
      expect([...r.failed.keys()], [...r.failed.values()].join('\n').slice(0, 3000)).toEqual([]);
      expect(r.passed).toBeGreaterThan(250);
    },
    TIMEOUT,
  );

  for (const f of selected)
    it(
      `${f.name} (${f.breaks}) is caught by ${f.catchers.join(', ')}, and nothing else fails`,
      async () => {
        const r = await runSuite(envFor(f));
        const isCatcher = (id: string) => f.catchers.some((c) => matchesCase(c, id));
        const caughtBy = [...r.failed]
          .filter(([id, msg]) => isCatcher(id) && f.reason.test(msg))
          .map(([id]) => id);
        const stray = [...r.failed.keys()].filter((id) => !isCatcher(id));
        process.stdout.write(
          `fault ${f.name}: ${caughtBy.length ? `caught by ${caughtBy.join(', ')}` : 'NOT caught'}${stray.length ? `; stray failures: ${stray.join(', ')}` : ''} (${(r.ms / 1000).toFixed(1)} s)\n`,
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
