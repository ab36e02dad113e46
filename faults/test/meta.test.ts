// The suites must bite, and bite in the right place: for every fault in the catalogue, run the
// suite area that covers it against a proxy that injects the fault in front of a reference
// server. The fault is caught when one of its named catchers (the cases that check the rule it
// breaks) fails; the meta test also fails when the other cases that fail are not the fault's
// blast radius as faults/blast-radius.json records it (a case outside it failed: the fault
// breaks more than its rule, or another case's setup; or a case in it passed: what the fault
// breaks has changed, and `npm run faults:update` records the new radius), or when the
// proxy itself went wrong (a hook that threw was answered 502, which any case would take for
// the fault's doing). The clean proxy (no fault) must pass, so a failure is the fault's doing.
//
// Each fault's run is a run of the test files of its area that hold its catchers (found by
// collecting the suites: scripts/manifest.ts), behind a proxy of its own; the clean run of a
// server built with options for some faults runs the files those faults run; the clean run of
// an area on the plain server runs all of its files, when the radii are recorded or asked for
// (ORCH_FAULTS_CLEAN=1; see hasClean). Stray failures are looked for in the files a fault runs.
// The runs of an area and set of server options (its faults and its clean run) go in batches,
// many runs to a vitest process (faults/test/batch/), small groups sharing a process with their
// neighbours; each group's share of a batch has a fresh server, so what earlier runs left on one
// never slows the later ones. ORCH_FAULTS_BATCH_SIZE runs a process (40), ORCH_FAULTS_PROCESSES processes at
// once (2), ORCH_FAULTS_WORKERS test files at once in each (3). A fault added to the catalogue
// joins its area's batches as it is.
//
// The expiry cases depend on the server's age: while it still serves version "1" (its first
// five minutes) they skip, or see a fault of version names differently. Every batch has
// fresh servers and ends well within five minutes, so they always meet a young one (the
// short-history servers of some faults hold them to a declared window instead).
//
// Narrow runs: ORCH_FAULTS_AREA=watch,crud (areas) and ORCH_FAULTS=name,name (faults) select
// what runs. Each fault's verdict is printed (`fault <name>: caught by <case id>`) and the table
// of all verdicts is written as JSON to ORCH_FAULTS_OUT (default out/faults/catchers.json), with
// a page beside it (index.html: each fault, its catchers and its seconds).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_RATE_LIMIT_CONFIGURATION } from '../../harness/src/admission/event-rate-limit.ts';
import {
  startImagePolicyBackend,
  writeImagePolicyFiles,
} from '../../harness/src/admission/image-policy-backend.ts';
import { type AuditTap, startAuditTap } from '../../harness/src/audit-tap.ts';
import { referenceServerCommand, SERVER_COMMAND_ENV } from '../../harness/src/server-command.ts';
import { SHRINK_ENV } from '../../harness/src/session.ts';
import { DISPOSABLE_ENV } from '../../harness/src/targets.ts';
import { enabledPlugins } from '../../reference/src/admission/plugins/catalog.ts';
import type { ServerOptions } from '../../reference/src/config.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { type FaultTable, type FaultVerdict, renderFaultsPage } from '../../reports/faults-page.ts';
import { FUTURE_RV_WAIT_MS, NAMESPACE_GRACE_MS } from '../../scripts/embedded-waits.ts';
import { collectCases } from '../../scripts/manifest.ts';
import { type BlastRadius, RADIUS_FILE, readRadius, writeRadius } from '../blast-radius.ts';
import { matchesCase } from '../catchers.ts';
import { FAULTS } from '../index.ts';
import { type Fault, type FaultServerOptions, type RunningProxy, startFaultProxy } from '../proxy.ts';
import { type Batch, type BatchRun, ROOT, runBatch } from './batch/runs.ts';
import { inBatches } from './batch/schedule.ts';

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

/** Runs per vitest process, at most (the clean run of an area counts as one). */
const BATCH_SIZE = Number(process.env.ORCH_FAULTS_BATCH_SIZE) || 40;
/**
 * vitest processes at once, and test files at once in each (2 cores: two processes, three files
 * each; measured on the cel area's batches: 24 runs a process and two files at once took 184 s,
 * three at once 153 s, 70 runs a process with two 156 s; every process and every run pays
 * vitest's start and its transforms. The whole catalogue alone: one process 533 s wall and
 * 562 CPU s, two 366 s and 535 CPU s: a batch waits on its servers and timers much of the time).
 */
const CONCURRENT_BATCHES = Number(process.env.ORCH_FAULTS_PROCESSES) || 2;
const WORKERS = Number(process.env.ORCH_FAULTS_WORKERS) || 3;
/**
 * The seed of the property cases in every run (ORCH_FAULTS_SEED to try another): the same
 * examples each time, so a fault's blast radius is the same from run to run.
 */
const SEED = Number(process.env.ORCH_FAULTS_SEED) || 20_261_128;
/** A test waits for its batch, which may wait for the ones before it. */
const JOB_TIMEOUT = 40 * 60_000;

/** The test file of each case id (collected once, when the first batch starts). */
let caseFiles: { id: string; file: string }[] | undefined;
/** The files holding a fault's catchers: the files its run goes through. */
function catcherFiles(fault: Fault): string[] {
  caseFiles ??= collectCases().tests;
  const files = new Set(
    caseFiles.filter((t) => fault.catchers.some((c) => matchesCase(c, t.id))).map((t) => t.file),
  );
  // a catcher that names no collected case is the catalogue test's concern; run the whole area
  return files.size ? [...files].sort() : [];
}

/** How one run of an area went: the cases that failed (by case id), and what they said. */
interface AreaRun {
  failed: string[];
  passed: number;
  /** Cases that skipped (not judged: an expiry case skips while the target still serves version "1"). */
  skipped: string[];
  out: string;
  /** The seconds the run spent in its test files. */
  seconds: number;
  /** Its cases that took two seconds or more (case id -> seconds). */
  slowCases: Record<string, number>;
}

/** How the suites start server processes of their own: the reference, behind the fault's proxy for a `serverProcess` fault. */
function serverCommand(fault?: Fault): string {
  const reference = referenceServerCommand(ROOT);
  if (!fault?.serverProcess) return reference;
  const inner = reference.replace('{port}', '{innerPort}');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `exec ${q(process.execPath)} --import tsx ${q(join(ROOT, 'faults', 'server.ts'))} ${q(fault.name)} {port} ${q(inner)}`;
}

/** The run environment of one area run against an endpoint (provided to the suites per run). */
function runEnvFor(
  endpoint: string,
  token: string,
  server?: FaultServerOptions,
  fault?: Fault,
  auditLog?: string,
): Record<string, string> {
  return {
    ORCH_ENDPOINT: endpoint,
    ORCH_TOKEN: token,
    // each batch's server is closed after it
    [DISPOSABLE_ENV]: '1',
    [SERVER_COMMAND_ENV]: serverCommand(fault),
    // what the server was built with, declared to the suite as a run against it would
    // the reference puts a policy and its binding in force once written (scripts/embedded.ts declares the same)
    ORCH_IN_FORCE_SECONDS: '2',
    ...(server?.continueTtlSeconds ? { ORCH_CONTINUE_TTL_SECONDS: String(server.continueTtlSeconds) } : {}),
    ...(server?.featureGates
      ? {
          ORCH_FEATURE_GATES: Object.entries(server.featureGates)
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        }
      : {}),
    // the admission plugins the server has on (the cases of off-by-default plugins need them declared)
    ORCH_ADMISSION_PLUGINS: enabledPlugins(server?.enableAdmissionPlugins ?? [], []).join(','),
    // the run's copy of the server's audit log (a fault of the audit log rewrites the copy)
    ...(auditLog ? { ORCH_AUDIT_LOG: auditLog } : {}),
  };
}

/** The three slowest files of a run, for the log. */
const slowest = (files: Record<string, number>) =>
  Object.entries(files)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([f, ms]) => `${f} ${(ms / 1000).toFixed(1)} s`)
    .join(', ');

/** One run's result out of its batch, in the form the verdicts read. */
function areaRun(batch: Batch, name: string): AreaRun {
  const r = batch.runs.get(name)!;
  const failed = Object.keys(r.failed).sort();
  const out = failed.map((id) => `${id}\n${r.failed[id]!.slice(0, 600)}`).join('\n');
  const seconds = Object.values(r.files).reduce((a, b) => a + b, 0) / 1000;
  const slowCases = Object.fromEntries(Object.entries(r.slow ?? {}).map(([id, ms]) => [id, ms / 1000]));
  return { failed, passed: r.passed, skipped: r.skipped ?? [], out, seconds, slowCases };
}

type Verdict = FaultVerdict;

/** The waits no case checks, as short as the embedded servers have them. */
const QUICK = { futureRvWaitMs: FUTURE_RV_WAIT_MS, namespaceDeletionGraceMs: NAMESPACE_GRACE_MS };

/** Whether this run writes the blast radii it observes (faults/blast-radius.ts) instead of checking them. */
const UPDATE = process.env.ORCH_FAULTS_UPDATE === '1';
const radius: BlastRadius = existsSync(RADIUS_FILE) ? readRadius() : {};

function judge(
  fault: Fault,
  run: Pick<AreaRun, 'failed' | 'skipped'>,
  proxyErrors: string[],
): Omit<Verdict, 'seconds'> {
  const caughtBy = run.failed.filter((id) => fault.catchers.some((c) => matchesCase(c, id)));
  const rest = run.failed.filter((id) => !caughtBy.includes(id));
  const golden = radius[fault.name] ?? [];
  const alsoFailed = rest.filter((id) => golden.includes(id));
  const strayFailures = rest.filter((id) => !golden.includes(id));
  // a radius case that skipped is not judged: the expiry cases skip while the server still
  // serves version "1" (its first minutes), so whether they run depends on when the batch does
  const vanished = golden.filter((id) => !rest.includes(id) && !run.skipped.includes(id));
  const skippedRadius = golden.filter((id) => run.skipped.includes(id));
  const radiusHolds = UPDATE || (strayFailures.length === 0 && vanished.length === 0);
  return {
    fault: fault.name,
    area: fault.area,
    breaks: fault.breaks,
    catchers: fault.catchers,
    caughtBy,
    strayFailures,
    alsoFailed,
    vanished,
    skippedRadius,
    proxyErrors: proxyErrors.slice(0, 5),
    ok: caughtBy.length > 0 && radiusHolds && proxyErrors.length === 0,
  };
}

describe('injected faults are caught by the cases that name them', () => {
  const verdicts: Verdict[] = [];
  const started = Date.now();
  /** The options of `build` for the fault's server options (a harness-made admission configuration written first). */
  async function buildOptions(
    o: FaultServerOptions,
    cleanups: (() => Promise<void>)[],
  ): Promise<Partial<ServerOptions>> {
    const { harnessAdmissionConfig, auditLog, ...plain } = o;
    const rest: Partial<ServerOptions> = { ...(plain as Partial<ServerOptions>) };
    if (auditLog) {
      const dir = mkdtempSync(join(tmpdir(), 'faults-audit-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      rest.auditLogPath = join(dir, 'audit.jsonl');
    }
    if (!harnessAdmissionConfig) return rest;
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
    return { ...rest, admissionControlConfigFile: file };
  }
  /**
   * A fresh server for one group's share of a batch, built with the options its faults need (a
   * gate on, a short history), and what closes it. Fresh for each batch: what runs leave on a server (above all
   * the metric series of their custom definitions, a megabyte of /metrics a run) would make
   * the later batches slower and slower (the deprecation cases read /metrics many times).
   */
  async function startTarget(
    o?: FaultServerOptions,
  ): Promise<{ server: OrchServer; close: () => Promise<void> }> {
    const cleanups: (() => Promise<void>)[] = [];
    const close = async () => {
      for (const c of cleanups.reverse()) await c();
    };
    try {
      const opts = o ? await buildOptions(o, cleanups) : {};
      const server = await build({ inMemory: true, tls: false, ...QUICK, ...opts });
      cleanups.push(() => server.close());
      await server.listen();
      return { server, close };
    } catch (e) {
      await close();
      throw e;
    }
  }
  /** Each batch's outcome, in the order of `jobs`. */
  let done: Promise<Done>[] = [];
  beforeAll(() => {
    done = inBatches(jobs, CONCURRENT_BATCHES);
    // a job that failed is reported by the tests that await it
    for (const d of done) d.catch(() => {});
  });
  afterAll(async () => {
    const ok = verdicts.filter((v) => v.ok).length;
    const caught = verdicts.filter((v) => v.caughtBy.length > 0).length;
    const lines = [
      `faults: ${verdicts.length} run, ${ok} caught by a catcher and by nothing else, ${caught} caught by a catcher (${((100 * caught) / Math.max(1, verdicts.length)).toFixed(0)}%), ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ];
    for (const v of verdicts.filter((x) => !x.ok))
      lines.push(
        `  NOT OK ${v.fault}:${v.caughtBy.length ? '' : ' no catcher failed;'}${v.strayFailures.length ? ` stray failures ${v.strayFailures.join(', ')};` : ''}${v.vanished.length ? ` radius cases that passed ${v.vanished.join(', ')};` : ''}${v.proxyErrors.length ? ` proxy errors ${v.proxyErrors.length};` : ''}`,
      );
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(dirname(OUT), { recursive: true });
    const table: FaultTable = {
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
    if (UPDATE) {
      // the radius each fault showed, where it was caught cleanly; the others keep theirs
      const next: BlastRadius = Object.fromEntries(
        Object.entries(radius).filter(([name]) => FAULTS.some((f) => f.name === name)),
      );
      for (const v of verdicts)
        if (v.caughtBy.length && !v.proxyErrors.length)
          next[v.fault] = [...v.alsoFailed, ...v.strayFailures, ...v.skippedRadius];
      for (const f of FAULTS) next[f.name] ??= [];
      writeRadius(next);
      process.stdout.write(`blast radii written: ${RADIUS_FILE}\n`);
    }
    const page = join(dirname(OUT), 'index.html');
    writeFileSync(page, renderFaultsPage(table));
    process.stdout.write(`fault table: ${OUT}; page: ${page}\n`);
  });

  // the runs, in batches: per area and set of server options, the clean proxy and the faults,
  // each run through the whole area behind a proxy of its own, many runs to a vitest process
  interface Group {
    area: string;
    key: string;
    options?: FaultServerOptions;
    faults: Fault[];
  }
  const groups: Group[] = [];
  for (const area of [...new Set(selected.map((f) => f.area))]) {
    const options = new Map<string, FaultServerOptions | undefined>([['', undefined]]);
    for (const f of selected)
      if (f.area === area && f.server) options.set(JSON.stringify(f.server), f.server);
    for (const [key, o] of options)
      groups.push({
        area,
        key,
        options: o,
        faults: selected.filter(
          (f) => f.area === area && JSON.stringify(f.server ?? null) === JSON.stringify(o ?? null),
        ),
      });
  }
  const cleanName = (g: Group) => `clean ${g.area}${g.key ? ` ${g.key}` : ''}`;
  /**
   * Whether a group has a clean run. A server built for some faults always does (its files
   * must pass on it before its faults' failures are theirs). On the plain server the clean
   * run is the whole area, a conformance run's worth of cases over all areas: it runs when the
   * radii are recorded (ORCH_FAULTS_UPDATE=1) or asked for (ORCH_FAULTS_CLEAN=1). A check
   * run holds every fault to its recorded radius, so a case the clean proxy or server broke
   * would fail as a stray failure of every fault that runs its file, and the suites project
   * runs every area against the same reference server.
   */
  const hasClean = (g: Group) => g.key !== '' || UPDATE || process.env.ORCH_FAULTS_CLEAN === '1';
  /**
   * The files of a group's clean run: the whole area on the plain server; on a server built
   * for some faults, the files those faults run (what their failures must not be blamed on).
   */
  const cleanFiles = (g: Group): string[] => {
    if (!g.key) return [];
    const each = g.faults.map(catcherFiles);
    return each.some((f) => f.length === 0) ? [] : [...new Set(each.flat())].sort();
  };
  interface Done {
    batch: Batch;
    proxies: Map<string, RunningProxy>;
  }
  /** A group's runs (all of them, or a BATCH_SIZE share of a large group): one target server. */
  interface Part {
    g: Group;
    chunk: (Fault | undefined)[];
  }
  const parts: Part[] = [];
  for (const g of groups) {
    const members: (Fault | undefined)[] = [...(hasClean(g) ? [undefined] : []), ...g.faults];
    for (let i = 0; i < members.length; i += BATCH_SIZE)
      parts.push({ g, chunk: members.slice(i, i + BATCH_SIZE) });
  }
  /**
   * The parts in vitest processes of at most BATCH_SIZE runs: the small groups (a server option
   * for two faults) share a process with their neighbours, each run still against its own
   * group's server. A process and its workers cost about 2.5 CPU seconds to start; 34 of them
   * were a seventh of the meta test.
   */
  const packed: Part[][] = [];
  for (const part of parts) {
    const last = packed.at(-1);
    const size = (ps: Part[]) => ps.reduce((n, x) => n + x.chunk.length, 0);
    if (last && size(last) + part.chunk.length <= BATCH_SIZE) last.push(part);
    else packed.push([part]);
  }
  const groupName = (g: Group) => `${g.area}${g.key ? ` ${g.key}` : ''}`;
  const jobs: (() => Promise<Done>)[] = [];
  /** The job each run is in, by run name. */
  const jobOf = new Map<string, number>();
  for (const job of packed) {
    for (const { g, chunk } of job) for (const f of chunk) jobOf.set(f ? f.name : cleanName(g), jobs.length);
    jobs.push(async () => {
      const closers: (() => Promise<void>)[] = [];
      const proxies = new Map<string, RunningProxy>();
      const taps: AuditTap[] = [];
      const runs: BatchRun[] = [];
      try {
        for (const { g, chunk } of job) {
          const { server: target, close } = await startTarget(g.options);
          closers.push(close);
          for (const f of chunk) {
            const name = f ? f.name : cleanName(g);
            // a fault of the server processes sits in front of them (serverCommand), not of the target
            const p = await startFaultProxy({ target: target.url!, fault: f?.serverProcess ? undefined : f });
            proxies.set(name, p);
            // each run reads its own copy of the server's audit log, rewritten by the fault's auditEvent
            const src = target.options.auditLogPath;
            let auditLog: string | undefined;
            if (src) {
              auditLog = join(dirname(src), `${name.replace(/[^a-z0-9-]+/gi, '_')}.jsonl`);
              taps.push(startAuditTap(src, auditLog, f?.auditEvent));
            }
            const files = f ? catcherFiles(f) : cleanFiles(g);
            runs.push({
              name,
              area: g.area,
              env: runEnvFor(p.url, target.adminToken, g.options, f, auditLog),
              ...(files.length ? { files } : {}),
            });
          }
        }
        // the verdicts need no shrunk counterexample: a property ends at its first
        const batch = await runBatch(
          runs,
          { ORCH_RUNS: '20', ORCH_SEED: String(SEED), [SHRINK_ENV]: '0' },
          WORKERS,
        );
        process.stdout.write(
          `batch ${job.map((x) => groupName(x.g)).join(', ')}: ${runs.length} runs in ${(batch.ms / 1000).toFixed(0)} s; slowest files of ${runs[0]!.name}: ${slowest(batch.runs.get(runs[0]!.name)!.files)}\n`,
        );
        return { batch, proxies };
      } finally {
        for (const p of proxies.values()) await p.close();
        for (const t of taps) t.close();
        for (const close of closers) await close();
      }
    });
  }

  jobs.forEach((_, i) => {
    it(
      `batch ${i + 1} of ${jobs.length} (${packed[i]!.map((x) => groupName(x.g)).join(', ')}): no error outside any case`,
      async () => {
        const { batch } = await done[i]!;
        // an unhandled rejection is no run's verdict: it fails here
        expect(batch.unhandled, 'errors outside any case').toEqual([]);
      },
      JOB_TIMEOUT,
    );
  });

  for (const g of groups.filter(hasClean)) {
    const what = g.key ? `the files of its faults in suite "${g.area}" pass` : `suite "${g.area}" passes`;
    it(
      `${what} through a proxy that injects no fault${g.key ? ` (server ${g.key})` : ''}`,
      async () => {
        expect(existsSync(join(ROOT, 'suites', g.area)), `suites/${g.area} exists`).toBe(true);
        const name = cleanName(g);
        const { batch, proxies } = await done[jobOf.get(name)!]!;
        const r = areaRun(batch, name);
        expect(proxies.get(name)!.errors, 'proxy errors').toEqual([]);
        expect(r.failed, r.out.slice(-3000)).toEqual([]);
        expect(r.passed, `cases of suites/${g.area} passed\n${batch.out.slice(-3000)}`).toBeGreaterThan(0);
      },
      JOB_TIMEOUT,
    );
  }

  // the verdicts, once the fault's batch is done
  for (const fault of selected) {
    it.concurrent(
      `fault "${fault.name}" (${fault.breaks}) is caught by ${fault.catchers.join(', ')}`,
      async () => {
        const { batch, proxies } = await done[jobOf.get(fault.name)!]!;
        const p = proxies.get(fault.name)!;
        const run = areaRun(batch, fault.name);
        const v: Verdict = { ...judge(fault, run, p.errors), seconds: run.seconds, slowCases: run.slowCases };
        verdicts.push(v);
        process.stdout.write(
          `fault ${fault.name}: ${v.caughtBy.length ? `caught by ${v.caughtBy.join(', ')}` : 'NOT caught by a catcher'}${v.alsoFailed.length ? `; also failed (its blast radius) ${v.alsoFailed.join(', ')}` : ''}${v.vanished.length ? `; RADIUS CASES PASSED ${v.vanished.join(', ')}` : ''}${v.strayFailures.length ? `; STRAY failures ${v.strayFailures.join(', ')}` : ''}${v.proxyErrors.length ? `; PROXY ERRORS ${p.errors.length}` : ''}\n`,
        );
        expect(p.errors, 'the proxy went wrong (a fault hook threw and was answered 502)').toEqual([]);
        expect(
          v.caughtBy,
          `none of the catchers (${fault.catchers.join(', ')}) failed; failed: ${run.failed.join(', ') || 'nothing'}\n${run.out.slice(-2000)}`,
        ).not.toEqual([]);
        if (UPDATE) return;
        expect(
          v.strayFailures,
          `cases outside the fault's catchers and its blast radius (faults/blast-radius.json) failed: the fault is too broad, or it now rightly breaks them (then run \`npm run faults:update\` and commit the file)\n${run.out.slice(-3000)}`,
        ).toEqual([]);
        expect(
          v.vanished,
          "cases of the fault's blast radius (faults/blast-radius.json) no longer failed: run `npm run faults:update` and commit the file",
        ).toEqual([]);
      },
      JOB_TIMEOUT,
    );
  }
});
