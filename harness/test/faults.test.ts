// The suites must bite, and bite in the right place: for every fault in the catalogue, run the
// suite area that covers it against a proxy that injects the fault in front of a reference
// server. The fault is caught when one of its named catchers (the cases that check the rule it
// breaks) fails; the meta test also fails when a case that is not a catcher fails (the fault
// breaks more than its rule, or breaks another case's setup: it is too broad), or when the
// proxy itself went wrong (a hook that threw was answered 502, which any case would take for
// the fault's doing). The clean proxy (no fault) must pass, so a failure is the fault's doing.
//
// Narrow runs: ORCH_FAULTS_AREA=watch,crud (areas) and ORCH_FAULTS=name,name (faults) select
// what runs. Each fault's verdict is printed (`fault <name>: caught by <case id>`) and the table
// of all verdicts is written as JSON to ORCH_FAULTS_OUT (default out/faults/catchers.json).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enabledPlugins } from '../../reference/src/admission/plugins/catalog.ts';
import type { ServerOptions } from '../../reference/src/config.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { EVENT_RATE_LIMIT_CONFIGURATION } from '../src/admission/event-rate-limit.ts';
import { startImagePolicyBackend, writeImagePolicyFiles } from '../src/admission/image-policy-backend.ts';
import { type Fault, type FaultServerOptions, startFaultProxy } from '../src/fault-proxy.ts';
import { FAULTS } from '../src/faults/index.ts';
import { matchesCase } from '../src/faults/catchers.ts';
import { referenceServerCommand, SERVER_COMMAND_ENV } from '../src/server-command.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VITEST = join(ROOT, 'node_modules', '.bin', 'vitest');
const OUT = process.env.ORCH_FAULTS_OUT || join(ROOT, 'out', 'faults', 'catchers.json');

const list = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const onlyAreas = list(process.env.ORCH_FAULTS_AREA);
const onlyFaults = list(process.env.ORCH_FAULTS);
const selected = FAULTS.filter(
  (f) => (!onlyAreas || onlyAreas.includes(f.area)) && (!onlyFaults || onlyFaults.includes(f.name)),
);

/** How one area's run went: the cases that failed (by case id), and the whole output. */
interface AreaRun {
  code: number;
  failed: string[];
  passed: number;
  out: string;
  ms: number;
}

/** A test name is `<case id>: <title>` (harness/src/case.ts); anything else is named as it is. */
const caseIdOf = (title: string) => /^([a-z0-9-]+(?:\/[a-z0-9.-]+)+): /.exec(title)?.[1] ?? title;

/**
 * Runs one suite area against an endpoint with vitest's JSON reporter, without --bail: the
 * meta test needs every case that failed, not only the first.
 */
/** How the suites start server processes of their own: the reference, behind the fault's proxy for a `serverProcess` fault. */
function serverCommand(fault?: Fault): string {
  const reference = referenceServerCommand(ROOT);
  if (!fault?.serverProcess) return reference;
  const inner = reference.replace('{port}', '{innerPort}');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `exec ${q(process.execPath)} --import tsx ${q(join(ROOT, 'scripts', 'fault-server.ts'))} ${q(fault.name)} {port} ${q(inner)}`;
}

function runArea(
  area: string,
  endpoint: string,
  token: string,
  server?: FaultServerOptions,
  fault?: Fault,
): Promise<AreaRun> {
  const dir = mkdtempSync(join(tmpdir(), 'faults-run-'));
  const json = join(dir, 'results.json');
  const started = Date.now();
  return new Promise((res) => {
    const args = [
      'run',
      '--config',
      join(ROOT, 'suites', 'vitest.config.ts'),
      '--maxWorkers=2',
      '--reporter=json',
      `--outputFile=${json}`,
      join('suites', area),
    ];
    const child = spawn(VITEST, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        ORCH_ENDPOINT: endpoint,
        ORCH_TOKEN: token,
        ORCH_REPORT_DIR: '',
        ORCH_RUNS: '20',
        CI: '1',
        [SERVER_COMMAND_ENV]: serverCommand(fault),
        // what the server was built with, declared to the suite as a run against it would
        ...(server?.continueTtlSeconds
          ? { ORCH_CONTINUE_TTL_SECONDS: String(server.continueTtlSeconds) }
          : {}),
        ...(server?.featureGates
          ? {
              ORCH_FEATURE_GATES: Object.entries(server.featureGates)
                .map(([k, v]) => `${k}=${v}`)
                .join(','),
            }
          : {}),
        // the admission plugins the server has on (the cases of off-by-default plugins need them declared)
        ORCH_ADMISSION_PLUGINS: enabledPlugins(server?.enableAdmissionPlugins ?? [], []).join(','),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => {
      const failed = new Set<string>();
      let passed = 0;
      try {
        const r = JSON.parse(readFileSync(json, 'utf8'));
        for (const file of r.testResults ?? []) {
          const rel = String(file.name ?? '').replace(`${ROOT}/`, '');
          let fileFailed = false;
          for (const t of file.assertionResults ?? []) {
            if (t.status === 'failed') {
              failed.add(caseIdOf(String(t.title)));
              fileFailed = true;
            } else if (t.status === 'passed') passed++;
          }
          // a file that failed outside any case (it did not load, a hook threw)
          if (file.status === 'failed' && !fileFailed)
            failed.add(`file ${rel}: ${String(file.message ?? '').slice(0, 200)}`);
        }
        out = `${out}\n${JSON.stringify(
          (r.testResults ?? []).flatMap((f: any) =>
            (f.assertionResults ?? [])
              .filter((t: any) => t.status === 'failed')
              .map((t: any) => `${t.title}\n${(t.failureMessages ?? []).join('\n').slice(0, 600)}`),
          ),
          null,
          1,
        )}`;
      } catch (e) {
        failed.add(`no JSON report (${(e as Error).message})`);
      }
      rmSync(dir, { recursive: true, force: true });
      res({ code: c ?? 1, failed: [...failed].sort(), passed, out, ms: Date.now() - started });
    });
  });
}

interface Verdict {
  fault: string;
  area: string;
  breaks: string;
  catchers: string[];
  /** The catchers that failed. */
  caughtBy: string[];
  /** Cases that failed and are neither catchers nor listed in alsoFails. */
  strayFailures: string[];
  /** Cases listed in alsoFails that failed. */
  alsoFailed: string[];
  proxyErrors: string[];
  ok: boolean;
  ms: number;
}

function judge(fault: Fault, run: Pick<AreaRun, 'failed'>, proxyErrors: string[]): Omit<Verdict, 'ms'> {
  const caughtBy = run.failed.filter((id) => fault.catchers.some((c) => matchesCase(c, id)));
  const rest = run.failed.filter((id) => !caughtBy.includes(id));
  const alsoFailed = rest.filter((id) => (fault.alsoFails ?? []).some((c) => matchesCase(c, id)));
  const strayFailures = rest.filter((id) => !alsoFailed.includes(id));
  return {
    fault: fault.name,
    area: fault.area,
    breaks: fault.breaks,
    catchers: fault.catchers,
    caughtBy,
    strayFailures,
    alsoFailed,
    proxyErrors: proxyErrors.slice(0, 5),
    ok: caughtBy.length > 0 && strayFailures.length === 0 && proxyErrors.length === 0,
  };
}

describe('injected faults are caught by the cases that name them', () => {
  let server: OrchServer;
  const verdicts: Verdict[] = [];
  const started = Date.now();
  /** Servers built with the options some faults need (a gate on, a short history), by options. */
  const others = new Map<string, Promise<OrchServer>>();
  /** What the harness-made admission configurations hold open (the ImageReview backend, their files). */
  const cleanups: (() => Promise<void>)[] = [];
  /** The options of `build` for the fault's server options (a harness-made admission configuration written first). */
  async function buildOptions(o: FaultServerOptions): Promise<Partial<ServerOptions>> {
    const { harnessAdmissionConfig, ...rest } = o;
    if (!harnessAdmissionConfig) return rest as Partial<ServerOptions>;
    const dir = mkdtempSync(join(tmpdir(), 'faults-admission-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    let file: string;
    if (harnessAdmissionConfig === 'image-policy') {
      const backend = await startImagePolicyBackend();
      cleanups.push(() => backend.close());
      file = writeImagePolicyFiles(dir, backend);
    } else {
      file = join(dir, 'event-rate-limit.json');
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'apiserver.config.orch.io/v1',
          kind: 'AdmissionConfiguration',
          plugins: [{ name: 'EventRateLimit', configuration: EVENT_RATE_LIMIT_CONFIGURATION }],
        }),
      );
    }
    return { ...(rest as Partial<ServerOptions>), admissionControlConfigFile: file };
  }
  const serverFor = (o?: FaultServerOptions): Promise<OrchServer> => {
    if (!o) return Promise.resolve(server);
    const key = JSON.stringify(o);
    let p = others.get(key);
    if (!p) {
      p = buildOptions(o)
        .then((opts) => build({ inMemory: true, tls: false, ...opts }))
        .then(async (s) => {
          await s.listen();
          return s;
        });
      others.set(key, p);
    }
    return p;
  };
  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
  });
  afterAll(async () => {
    await server.close();
    for (const p of others.values()) await (await p).close();
    for (const c of cleanups) await c();
    const ok = verdicts.filter((v) => v.ok).length;
    const caught = verdicts.filter((v) => v.caughtBy.length > 0).length;
    const lines = [
      `faults: ${verdicts.length} run, ${ok} caught by a catcher and by nothing else, ${caught} caught by a catcher (${((100 * caught) / Math.max(1, verdicts.length)).toFixed(0)}%), ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ];
    for (const v of verdicts.filter((x) => !x.ok))
      lines.push(
        `  NOT OK ${v.fault}:${v.caughtBy.length ? '' : ' no catcher failed;'}${v.strayFailures.length ? ` stray failures ${v.strayFailures.join(', ')};` : ''}${v.proxyErrors.length ? ` proxy errors ${v.proxyErrors.length};` : ''}`,
      );
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(dirname(OUT), { recursive: true });
    const table = {
      when: new Date().toISOString(),
      faults: FAULTS.length,
      run: verdicts.length,
      ok,
      seconds: Math.round((Date.now() - started) / 1000),
      verdicts: [...verdicts].sort(
        (a, b) => FAULTS.findIndex((f) => f.name === a.fault) - FAULTS.findIndex((f) => f.name === b.fault),
      ),
    };
    writeFileSync(OUT, `${JSON.stringify(table, null, 1)}\n`);
    process.stdout.write(`fault table: ${OUT}\n`);
  });

  const areas = [...new Set(selected.map((f) => f.area))];
  for (const area of areas) {
    // the default server, and each set of server options a fault of the area needs
    const options = new Map<string, FaultServerOptions | undefined>([['', undefined]]);
    for (const f of selected)
      if (f.area === area && f.server) options.set(JSON.stringify(f.server), f.server);
    for (const [key, o] of options) {
      it(`suite "${area}" passes through a proxy that injects no fault${key ? ` (server ${key})` : ''}`, async () => {
        expect(existsSync(join(ROOT, 'suites', area)), `suites/${area} exists`).toBe(true);
        const target = await serverFor(o);
        const p = await startFaultProxy({ target: target.url! });
        try {
          const r = await runArea(area, p.url, target.adminToken, o);
          expect(p.errors, 'proxy errors').toEqual([]);
          expect(r.failed, r.out.slice(-3000)).toEqual([]);
          expect(r.code, r.out.slice(-3000)).toBe(0);
        } finally {
          await p.close();
        }
      }, 300_000);
    }
  }

  // faults run a few at a time (each is a separate vitest process against its own proxy)
  for (const fault of selected) {
    it.concurrent(`fault "${fault.name}" (${fault.breaks}) is caught by ${fault.catchers.join(', ')}`, async () => {
      const target = await serverFor(fault.server);
      // a fault of the server processes sits in front of them (serverCommand), not of the target
      const p = await startFaultProxy({ target: target.url!, fault: fault.serverProcess ? undefined : fault });
      let run: AreaRun;
      try {
        run = await runArea(fault.area, p.url, target.adminToken, fault.server, fault);
      } finally {
        await p.close();
      }
      const v: Verdict = { ...judge(fault, run, p.errors), ms: run.ms };
      verdicts.push(v);
      process.stdout.write(
        `fault ${fault.name}: ${v.caughtBy.length ? `caught by ${v.caughtBy.join(', ')}` : 'NOT caught by a catcher'}${v.alsoFailed.length ? `; also failed (allowed) ${v.alsoFailed.join(', ')}` : ''}${v.strayFailures.length ? `; STRAY failures ${v.strayFailures.join(', ')}` : ''}${v.proxyErrors.length ? `; PROXY ERRORS ${p.errors.length}` : ''} (${(run.ms / 1000).toFixed(0)} s)\n`,
      );
      expect(p.errors, 'the proxy went wrong (a fault hook threw and was answered 502)').toEqual([]);
      expect(
        v.caughtBy,
        `none of the catchers (${fault.catchers.join(', ')}) failed; failed: ${run.failed.join(', ') || 'nothing'}\n${run.out.slice(-2000)}`,
      ).not.toEqual([]);
      expect(
        v.strayFailures,
        `cases outside the fault's rule failed (the fault is too broad, or they belong in catchers/alsoFails)\n${run.out.slice(-3000)}`,
      ).toEqual([]);
    }, 300_000);
  }
});
