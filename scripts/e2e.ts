// `orch-conformance e2e`: Kubernetes' own e2e tests (the v1.28.0 binary of the API machinery
// tests in ../shared/kubernetes-1.28/e2e) against the reference server in Kubernetes' words
// (`serve --dialect kubernetes`, a real child process), with no proxy: the binary speaks
// Protobuf, as it does to a cluster. Each selection of `sets.txt` runs against a server of its
// own; the `controllers` and `fakenode` sets have the real kube-controller-manager running its
// controllers against the reference, the `fakenode` set a Node object with a Ready condition.
//
// Every test that passes on kube-apiserver 1.28 (the baseline, scripts/e2e-kubernetes-1.28.yaml,
// written by `--target kubernetes --write-baseline` from a real control plane started the same
// way) must pass on the reference: one that fails makes the run fail.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { Agent, request } from 'undici';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { makeCa } from '../harness/src/auth/pki.ts';
import { resolveAssets, SHARED_ASSETS, unpackedBinary } from '../harness/src/control-plane/assets.ts';
import { startControlPlane } from '../harness/src/control-plane/control-plane.ts';
import { freePort } from '../harness/src/free-port.ts';
import { type OwnedProcess, ownedTempDir, removeOwnedDir, startOwned } from '../lifeline/owned.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const E2E_DIR = resolve(ROOT, '..', 'shared', 'kubernetes-1.28', 'e2e');
export const BASELINE = join(ROOT, 'scripts', 'e2e-kubernetes-1.28.yaml');
/** The controllers the `controllers` set needs (sets.txt), run by the real controller manager. */
const KCM_CONTROLLERS = [
  'garbagecollector',
  'resourcequota',
  'replicationcontroller',
  'replicaset',
  'deployment',
  'cronjob',
  'job',
];

export const E2E_HELP = `Usage: orch-conformance e2e [flags]

Runs Kubernetes' own e2e tests (v1.28.0, API machinery) against the reference server in
Kubernetes' words (serve --dialect kubernetes), one server per selection of sets.txt, and fails
when a test that passes on kube-apiserver 1.28 (the baseline) fails on it.

  --set NAMES            selections of sets.txt, comma-separated (default: all four:
                         conformance, extended, controllers, fakenode)
  --focus REGEXP         run only the tests of the sets that also match REGEXP (a ginkgo
                         focus on the full test name)
  --e2e-binary PATH      the e2e.test binary (default: ../shared/kubernetes-1.28/e2e/e2e.test.xz,
                         decompressed once into .orch/kubernetes-assets and checked against
                         SHA256SUMS)
  --kubernetes-assets DIR
                         kube-controller-manager for the controllers and fakenode sets, and kube-apiserver
                         and etcd for --target kubernetes (default ../shared/kubernetes-1.28/bin)
  --target reference|kubernetes
                         what to run against (default reference); kubernetes starts a real
                         control plane from --kubernetes-assets
  --write-baseline       with --target kubernetes: write what passed as the baseline
                         (${BASELINE.slice(ROOT.length + 1)})
  --baseline FILE        the tests that must pass, by set (default
                         ${BASELINE.slice(ROOT.length + 1)})
  --report DIR           the JUnit report of each set and summary.json (default out/e2e)
  -h, --help             this text
`;

export interface E2eSet {
  name: string;
  focus: string;
  skip: string;
}

/** The selections of sets.txt: `## name`, then `focus:` and `skip:` lines. */
export function parseSets(text: string): E2eSet[] {
  const sets: E2eSet[] = [];
  for (const block of text.split(/^## /m).slice(1)) {
    const [name, ...lines] = block.split('\n');
    const field = (k: string) =>
      lines
        .find((l) => l.startsWith(`${k}:`))
        ?.slice(k.length + 1)
        .trim() ?? '';
    sets.push({ name: name!.trim(), focus: field('focus'), skip: field('skip') });
  }
  return sets;
}

export type Outcome = 'passed' | 'failed' | 'skipped';

/** The outcome of every test of a ginkgo JUnit report, by name (suite nodes left out). */
export function junitOutcomes(xml: string): Map<string, Outcome> {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', htmlEntities: true }).parse(
    xml,
  );
  const suites = [doc?.testsuites?.testsuite ?? []].flat();
  const out = new Map<string, Outcome>();
  for (const s of suites)
    for (const c of [s.testcase ?? []].flat()) {
      const name = String(c.name ?? '');
      if (!name.startsWith('[It] ')) continue;
      const status = String(c.status ?? '');
      out.set(
        name.slice('[It] '.length),
        status === 'passed' ? 'passed' : status === 'skipped' || status === 'pending' ? 'skipped' : 'failed',
      );
    }
  return out;
}

export type Baseline = Record<string, string[]>;

export interface SetVerdict {
  set: string;
  ran: number;
  passed: number;
  /** In the baseline, not passed here. */
  regressions: string[];
  /** Passed here, not in the baseline. */
  beyond: string[];
  seconds: number;
  /** The binary ended without a report (a test panicked outside its node): the end of its output. */
  crashed?: string;
  /** The error lines the controller manager logged against the target (the controllers set). */
  controllerManagerErrors?: string[];
}

export function verdict(
  set: string,
  outcomes: Map<string, Outcome>,
  baseline: string[] | undefined,
  seconds: number,
  /** The binary ended without a report: every baseline test of the selection counts as failed. */
  crashed?: { output: string; selects: (name: string) => boolean },
): SetVerdict {
  if (crashed) {
    const lost = (baseline ?? []).filter(crashed.selects).sort();
    return { set, ran: 0, passed: 0, regressions: lost, beyond: [], seconds, crashed: crashed.output };
  }
  const ran = [...outcomes.values()].filter((o) => o !== 'skipped').length;
  const passedNames = [...outcomes].filter(([, o]) => o === 'passed').map(([n]) => n);
  const want = new Set(baseline ?? []);
  return {
    set,
    ran,
    passed: passedNames.length,
    // a baseline test the focus left out is not a regression
    regressions: [...want]
      .filter((n) => outcomes.has(n) && outcomes.get(n) !== 'passed' && outcomes.get(n) !== 'skipped')
      .sort(),
    beyond: passedNames.filter((n) => !want.has(n)).sort(),
    seconds,
  };
}

/** A target: a kubeconfig for the binary, and how to stop what was started. */
interface Target {
  kubeconfig: string;
  about: string;
  stop(): Promise<void>;
  /** The error lines (klog `E` lines) the controller manager logged, when one ran against the reference. */
  controllerManagerErrors?: () => string[];
}

/** Each line of a process, appended to a log file of the report. */
function logTo(file: string): (line: string) => void {
  writeFileSync(file, '');
  return (line) => appendFileSync(file, `${line}\n`);
}

async function waitReady(url: string, deadline: number, p: OwnedProcess[]): Promise<void> {
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    for (;;) {
      for (const x of p)
        if (!x.running())
          throw new Error(`a process exited before ${url} was ready:\n${x.output().slice(-3000)}`);
      try {
        const r = await request(`${url}/readyz`, { dispatcher: agent, signal: AbortSignal.timeout(2000) });
        await r.body.text();
        if (r.statusCode === 200) return;
      } catch {
        // not yet listening
      }
      if (Date.now() > deadline) throw new Error(`${url} was not ready in time`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await agent.close();
  }
}

/** `serve --dialect kubernetes` as a child process, and the controller manager for `controllers` and `fakenode`. */
async function referenceTarget(set: string, assetsDir: string, report: string): Promise<Target> {
  const dir = ownedTempDir('orch-e2e-');
  const port = await freePort('127.0.0.1');
  // the fakenode set's garbage collector tests need replication controllers' pods made too
  const kcm = set === 'controllers' || set === 'fakenode';
  // a client CA, as the baseline's control plane trusts one: the server publishes it in
  // extension-apiserver-authentication, which the controller manager's authentication reads
  const clientCa = join(dir, 'client-ca.crt');
  writeFileSync(clientCa, (await makeCa('orch-e2e-client-ca')).cert);
  // and an authenticating proxy's CA and headers, as the baseline's trusts one (the controller
  // manager's request-header authentication reads them from the same ConfigMap)
  const proxyCa = join(dir, 'requestheader-ca.crt');
  writeFileSync(proxyCa, (await makeCa('orch-e2e-front-proxy-ca')).cert);
  const serve = startOwned(
    process.execPath,
    [
      join(ROOT, 'scripts', 'bin.mjs'),
      'serve',
      '--dialect',
      'kubernetes',
      '--in-memory',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--data-dir',
      dir,
      `--client-ca-file=${clientCa}`,
      `--requestheader-client-ca-file=${proxyCa}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      // the controller manager runs these; the reference keeps the others (namespace, service
      // accounts, root CA), as the baseline's control plane ran them all
      ...(kcm ? ['--controllers=-garbagecollector,-resourcequota,-replicaset,-deployment,*'] : []),
    ],
    { onLine: logTo(join(report, `${set}-serve.log`)) },
  );
  const processes = [serve];
  const kcmErrors: string[] = [];
  const stop = async () => {
    for (const p of processes.reverse()) await p.stop('SIGTERM', 10_000);
    removeOwnedDir(dir);
  };
  try {
    const url = `https://127.0.0.1:${port}`;
    await waitReady(url, Date.now() + 60_000, processes);
    const kubeconfig = join(dir, 'kubeconfig');
    if (kcm) {
      const assets = resolveAssets(assetsDir);
      processes.push(
        startOwned(
          assets.kubeControllerManager,
          [
            `--kubeconfig=${kubeconfig}`,
            `--authentication-kubeconfig=${kubeconfig}`,
            `--authorization-kubeconfig=${kubeconfig}`,
            '--bind-address=127.0.0.1',
            `--secure-port=${await freePort('127.0.0.1')}`,
            `--cert-dir=${join(dir, 'kcm-certs')}`,
            '--leader-elect=false',
            `--controllers=${KCM_CONTROLLERS.join(',')}`,
            '--use-service-account-credentials=false',
            '--service-cluster-ip-range=10.96.0.0/12',
            '--profiling=false',
          ],
          {
            onLine: (() => {
              const log = logTo(join(report, `${set}-kube-controller-manager.log`));
              return (line: string) => {
                log(line);
                if (/^E\d{4} /.test(line)) kcmErrors.push(line);
              };
            })(),
          },
        ),
      );
    }
    return {
      kubeconfig,
      about: `serve --dialect kubernetes on ${url}${kcm ? ' with kube-controller-manager' : ''}`,
      stop,
      ...(kcm ? { controllerManagerErrors: () => kcmErrors } : {}),
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A real control plane (etcd, kube-apiserver, kube-controller-manager with every controller). */
async function kubernetesTarget(assetsDir: string, set: string, report: string): Promise<Target> {
  const log = logTo(join(report, `${set}-control-plane.log`));
  const kcmErrors: string[] = [];
  const cp = await startControlPlane({
    assets: resolveAssets(assetsDir),
    servers: [{ name: 'main', about: 'kube-apiserver 1.28' }],
    log: (line) => {
      log(line);
      if (/^kube-controller-manager: E\d{4} /.test(line))
        kcmErrors.push(line.slice('kube-controller-manager: '.length));
    },
  });
  return {
    kubeconfig: cp.kubeconfig,
    about: `kube-apiserver 1.28 on ${cp.servers[0]!.url}`,
    stop: () => cp.stop(),
    controllerManagerErrors: () => kcmErrors,
  };
}

/** The fakenode set's Node: Ready, no taints (created through the API, its status through /status, its taints cleared). */
async function addReadyNode(kubeconfig: string): Promise<void> {
  const cfg = parseYaml(readFileSync(kubeconfig, 'utf8'));
  const cluster = cfg.clusters[0].cluster;
  const user = cfg.users[0].user;
  const connect: Record<string, unknown> = {
    ca: cluster['certificate-authority-data']
      ? Buffer.from(cluster['certificate-authority-data'], 'base64')
      : undefined,
  };
  if (user['client-certificate-data']) {
    connect.cert = Buffer.from(user['client-certificate-data'], 'base64');
    connect.key = Buffer.from(user['client-key-data'], 'base64');
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (user.token) headers.authorization = `Bearer ${user.token}`;
  const agent = new Agent({ connect });
  const call = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
    const r = await request(`${cluster.server}${path}`, {
      method,
      headers,
      body: JSON.stringify(body),
      dispatcher: agent,
    });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${text}`);
    return JSON.parse(text);
  };
  try {
    const node = await call('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'e2e-fake-node' },
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    node.status = {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'a fake node',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
    };
    const ready = await call('PUT', '/api/v1/nodes/e2e-fake-node/status', node);
    // the not-ready taint the TaintNodesByCondition plugin puts on a new node goes: no kubelet
    // will clear it (the node lifecycle controller would only after its next look)
    ready.spec = { ...ready.spec, taints: [] };
    await call('PUT', '/api/v1/nodes/e2e-fake-node', ready);
  } finally {
    await agent.close();
  }
}

function e2eBinary(flag: string | undefined): string {
  if (flag) return resolve(flag);
  const b = unpackedBinary(E2E_DIR, 'e2e.test');
  if (!b) throw new Error(`no e2e.test or e2e.test.xz in ${E2E_DIR}: give --e2e-binary PATH`);
  return b;
}

/** Runs one set's tests against a kubeconfig: the outcomes by test name, or how it crashed. */
async function runSet(
  binary: string,
  s: E2eSet,
  kubeconfig: string,
  report: string,
  focus?: string,
): Promise<{ outcomes: Map<string, Outcome>; crashed?: string }> {
  const junit = join(report, `junit-${s.name}.xml`);
  const args = [
    `--kubeconfig=${kubeconfig}`,
    '--provider=skeleton',
    '--allowed-not-ready-nodes=-1',
    '--num-nodes=1',
    '--e2e-verify-service-account=false',
    // ginkgo ORs several foci: a narrower focus replaces the set's, and the outcomes are cut to
    // the set's tests below
    `--ginkgo.focus=${focus ?? s.focus}`,
    `--ginkgo.skip=${s.skip}`,
    `--ginkgo.junit-report=${junit}`,
    `--report-dir=${join(report, s.name)}`,
    '--ginkgo.timeout=90m',
    '--ginkgo.no-color',
  ];
  const p = startOwned(binary, args, { onLine: (l) => process.stdout.write(`  ${l}\n`) });
  await p.exited;
  // a test that fails outside its node (a goroutine's Failf) panics the binary: no report
  if (!existsSync(junit))
    return { outcomes: new Map(), crashed: p.output().split('\n').slice(-40).join('\n') };
  const outcomes = junitOutcomes(readFileSync(junit, 'utf8'));
  if (focus) {
    const f = new RegExp(s.focus);
    for (const n of outcomes.keys()) if (!f.test(n)) outcomes.delete(n);
  }
  return { outcomes };
}

export async function e2e(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        set: { type: 'string' },
        focus: { type: 'string' },
        'e2e-binary': { type: 'string' },
        'kubernetes-assets': { type: 'string' },
        target: { type: 'string' },
        'write-baseline': { type: 'boolean' },
        baseline: { type: 'string' },
        report: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    process.stderr.write(`orch-conformance e2e: ${(e as Error).message}\n\n${E2E_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(E2E_HELP);
    return 0;
  }
  const target = (values.target as string | undefined) ?? 'reference';
  if (target !== 'reference' && target !== 'kubernetes') {
    process.stderr.write(`orch-conformance e2e: --target: "${target}" is not reference or kubernetes\n`);
    return 2;
  }
  if (values['write-baseline'] && (target !== 'kubernetes' || values.focus)) {
    process.stderr.write(
      'orch-conformance e2e: --write-baseline takes --target kubernetes and every test of the sets (no --focus)\n',
    );
    return 2;
  }
  const all = parseSets(readFileSync(join(E2E_DIR, 'sets.txt'), 'utf8'));
  const names = values.set
    ? String(values.set)
        .split(',')
        .map((x) => x.trim())
    : all.map((s) => s.name);
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) {
    process.stderr.write(
      `orch-conformance e2e: --set: no set ${unknown.join(', ')} in sets.txt (${all.map((s) => s.name).join(', ')})\n`,
    );
    return 2;
  }
  const report = resolve((values.report as string | undefined) ?? join(ROOT, 'out', 'e2e'));
  mkdirSync(report, { recursive: true });
  const assetsDir = resolve((values['kubernetes-assets'] as string | undefined) ?? SHARED_ASSETS);
  const binary = e2eBinary(values['e2e-binary'] as string | undefined);
  const baselineFile = resolve((values.baseline as string | undefined) ?? BASELINE);
  if (target === 'reference' && !existsSync(baselineFile)) {
    process.stderr.write(
      `orch-conformance e2e: no baseline ${baselineFile} (write it with --target kubernetes --write-baseline)\n`,
    );
    return 2;
  }
  const baseline: Baseline = existsSync(baselineFile)
    ? (parseYaml(readFileSync(baselineFile, 'utf8')) ?? {})
    : {};
  const verdicts: SetVerdict[] = [];
  const written: Baseline = { ...baseline };
  let crashes = 0;
  for (const s of all.filter((x) => names.includes(x.name))) {
    const t0 = performance.now();
    const t =
      target === 'kubernetes'
        ? await kubernetesTarget(assetsDir, s.name, report)
        : await referenceTarget(s.name, assetsDir, report);
    process.stdout.write(`e2e set ${s.name}: ${t.about}\n`);
    const focus = values.focus as string | undefined;
    let ran: Awaited<ReturnType<typeof runSet>>;
    try {
      if (s.name === 'fakenode') await addReadyNode(t.kubeconfig);
      ran = await runSet(binary, s, t.kubeconfig, report, focus);
    } finally {
      await t.stop();
    }
    const { outcomes, crashed } = ran;
    const selects = (n: string) => new RegExp(focus ?? s.focus).test(n);
    const v = verdict(
      s.name,
      outcomes,
      baseline[s.name],
      (performance.now() - t0) / 1000,
      crashed === undefined ? undefined : { output: crashed, selects },
    );
    const kcmErrors = t.controllerManagerErrors?.();
    if (kcmErrors) v.controllerManagerErrors = kcmErrors;
    verdicts.push(v);
    if (crashed !== undefined) {
      process.stdout.write(`e2e set ${s.name}: the e2e binary ended without a report:\n${crashed}\n`);
      // a crashed run says nothing of what passes: the baseline keeps the set as it was
      if (target === 'kubernetes') crashes++;
    } else
      written[s.name] = [...outcomes]
        .filter(([, o]) => o === 'passed')
        .map(([n]) => n)
        .sort();
    process.stdout.write(
      `e2e set ${s.name}: ${v.passed} of ${v.ran} passed in ${v.seconds.toFixed(0)} s` +
        (target === 'reference'
          ? `; baseline ${baseline[s.name]?.length ?? 0}, failing here ${v.regressions.length}`
          : '') +
        '\n',
    );
    for (const r of v.regressions)
      process.stdout.write(`  passes on kube-apiserver 1.28, fails here: ${r}\n`);
    if (kcmErrors)
      process.stdout.write(
        `  kube-controller-manager logged ${kcmErrors.length} error lines (the set's logs are in ${report})\n`,
      );
  }
  if (values['write-baseline']) {
    writeFileSync(
      baselineFile,
      `# The Kubernetes v1.28.0 e2e tests (../shared/kubernetes-1.28/e2e, sets.txt) that pass on a real
# kube-apiserver 1.28 with kube-controller-manager running every controller, by set: written by
# \`orch-conformance e2e --target kubernetes --write-baseline\`; \`orch-conformance e2e\` fails when
# one of them fails on the reference.
${toYaml(written, { lineWidth: 0 })}`,
    );
    process.stdout.write(`baseline written: ${baselineFile}\n`);
  }
  writeFileSync(join(report, 'summary.json'), `${JSON.stringify({ target, verdicts }, null, 2)}\n`);
  const failing = target === 'reference' ? verdicts.reduce((n, v) => n + v.regressions.length, 0) : crashes;
  process.stdout.write(`${failing ? 'FAIL' : 'PASS'}: report in ${report}\n`);
  return failing ? 1 : 0;
}
