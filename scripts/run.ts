// `orch-conformance run`: runs the conformance suites against an endpoint (or, with none
// given, against an embedded reference server it starts), then writes the reports.
// The suites run in a vitest child process (suites/vitest.config.ts) that reads the target
// and the report directory from ORCH_* variables; its default reporter shows progress.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startAuthCallbacks } from '../harness/src/auth/callbacks.ts';
import { loadAuthFixtures } from '../harness/src/auth/fixtures.ts';
import { REQUEST_TIMEOUT_ENV } from '../harness/src/client.ts';
import { ASSETS_ENV } from '../harness/src/control-plane/assets.ts';
import { parseEndpointList } from '../harness/src/endpoints.ts';
import { loadExpectations } from '../harness/src/expectations.ts';
import { describeProfile, isProfile, LEVEL_ENV, PROFILES } from '../harness/src/profile.ts';
import { SERVER_COMMAND_ENV } from '../harness/src/server-command.ts';
import { resolveTarget, targetUrls } from '../harness/src/target.ts';
import {
  DECLARE_ENV,
  DISPOSABLE_ENV,
  declaredFromEnv,
  EMPTY_TARGET_ENV,
  parseAuthMethods,
  parseGates,
  parsePluginList,
} from '../harness/src/targets.ts';
import { startOwned } from '../lifeline/owned.ts';
import { onParentGone } from '../lifeline/parent.ts';
import {
  CONTROL_PLANE_LOG,
  expectationsInfo,
  finishReport,
  REPORT_FILES,
  type Summary,
  summaryText,
} from '../reports/finish.ts';
import type { Selection } from '../reports/outcomes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITES = join(ROOT, 'suites');

export const RUN_HELP = `Usage: orch-conformance run [options]

Runs the conformance suites against an implementation of the orch API and writes the
reports. Exit code 0 when every selected case met its expectation; 1 on an unexpected
failure, an unexpected pass, a test file that failed to load, or when no case ran;
2 on a usage error.

Target (flags win over ORCH_* environment variables, which win over a kubeconfig;
with none of --endpoint, --kubeconfig, ORCH_ENDPOINT, ORCH_KUBECONFIG an embedded
reference server is started):
  --endpoint URL          API server URL                        (ORCH_ENDPOINT)
                          repeat it (or give ORCH_ENDPOINT=URL,URL,...) for several
                          servers of one API, e.g. replicas on one store: every request
                          and watch goes to the next endpoint in turn, the credentials
                          below serve each, and a failure names the endpoint that answered
  --token TOKEN           bearer token                          (ORCH_TOKEN)
  --token-file FILE       bearer token read from a file
  --cert FILE --key FILE  client certificate and key (PEM)      (ORCH_CLIENT_CERT, ORCH_CLIENT_KEY)
  --ca FILE               CA bundle (PEM)                       (ORCH_CA)
  --insecure              skip TLS verification                 (ORCH_INSECURE=1)
  --kubeconfig FILE       URL and credentials from a kubeconfig (ORCH_KUBECONFIG)
                          (token, token file, client certificates, exec plugins)
  --context NAME          kubeconfig context                    (ORCH_CONTEXT)
  --dialect orch|kubernetes
                          word mapping; kubernetes maps orch.io -> k8s.io, ... for a
                          real cluster; without a target, the embedded reference
                          servers speak it too (serve --dialect)  (ORCH_DIALECT)
  --kubernetes-assets DIR start a real Kubernetes control plane from DIR's binaries and run
                          against it: etcd, kube-apiserver and kube-controller-manager
                          (envtest's KUBEBUILDER_ASSETS layout; .xz binaries are decompressed
                          once into .orch/), on free loopback ports, trusting the
                          authentication fixtures, with an audit log, the
                          ValidatingAdmissionPolicy gate and the controllers a real cluster
                          runs; dialect kubernetes and expectations/kubernetes-1.28.yaml
                          unless given; everything it started is stopped at the end
                                                                (ORCH_KUBERNETES_ASSETS)
What the target is known to do (the cases that need it run, and REQUIRE it; without a
declaration they probe what a probe can prove, else skip saying what to declare):
  --history-seconds N     versions superseded more than N s ago are gone: a watch from one,
                          or an Exact list at one, answers 410  (ORCH_HISTORY_SECONDS)
  --continue-ttl-seconds N
                          continue tokens older than N s answer 410
                                                                (ORCH_CONTINUE_TTL_SECONDS)
  --bookmark-seconds N    a watch with allowWatchBookmarks=true gets a BOOKMARK at least
                          every N s                             (ORCH_BOOKMARK_SECONDS)
  --in-force-seconds N    an admission policy and its binding are in force at most N s after
                          both were written (default 20)        (ORCH_IN_FORCE_SECONDS)
  --feature-gates G=B,... feature gates on or off, e.g. WatchList=false (probed when not
                          declared)                             (ORCH_FEATURE_GATES)
  --auth-fixtures DIR     the target was started with the flags of
                          \`orch-conformance fixtures --out DIR\`: the authentication
                          cases run, and the harness serves the OIDC issuer and the
                          token webhook of DIR during the run    (ORCH_AUTH_FIXTURES)
  --server-command CMD    a shell command that starts a server of the implementation in the
                          foreground with the placeholders {port}, {dataDir} and
                          {shutdownDelay} (seconds), serving on 127.0.0.1:{port}: the health
                          cases start it, break its data directory, send it SIGTERM
                          (ORCH_SERVER_COMMAND; ORCH_SERVER_SCHEME=https for HTTPS)
  --auth-methods M,...    only these methods of the fixtures are on (default the
                          first set of flags the fixtures print: client-cert, token-file,
                          service-account, bootstrap, requestheader, oidc, token-webhook;
                          oidc-sub for a target started with their second set)
                                                                (ORCH_AUTH_METHODS)
  --admission-plugins P,...
                          every built-in admission plugin the target has on (its
                          default-enabled ones and those of --enable-admission-plugins):
                          the cases of off-by-default plugins (AlwaysDeny,
                          PodNodeSelector, ...) run where declared
                                                                (ORCH_ADMISSION_PLUGINS)
  --audit-log FILE        the target writes its audit events as JSON lines to FILE, which
                          this machine reads (level Metadata or higher): the cases on audit
                          annotations (webhook calls, deprecated versions) run
                                                                (ORCH_AUDIT_LOG)
  --disposable            the target is thrown away after the run (a cluster made for it):
                          the suites leave the namespaces they made to that instead of
                          deleting each one (which costs its namespace controller a list
                          and a delete of every namespaced kind); the embedded run and
                          --kubernetes-assets do so by themselves (ORCH_DISPOSABLE=1)
  The cases wait at most 60 s for a declared window. With no target given, the embedded
  run starts more reference servers (short windows; the WatchList gate off; trusting the
  authentication fixtures, twice; the off-by-default admission plugins on;
  NamespaceAutoProvision on; AlwaysDeny on) and routes the cases that need them there.
  --etcd                  every embedded server is two reference servers on one private etcd
                          (Debian's etcd-server, started and stopped by the run); the
                          cases alternate their requests between the two
Node agent configuration (the node-agent-config area; no API server is used):
  --node-config-validator CMD
                          command that validates a node agent configuration file: it gets
                          the file's path as its last argument, exits non-zero on an invalid
                          file and prints the field paths at fault (default: this
                          repository's \`orch-conformance node-config validate\`)
                                                                (ORCH_NODE_CONFIG_VALIDATOR)
  --node-config-defaulter CMD
                          command that prints the file with its defaults applied, as YAML
                          or JSON (default: \`orch-conformance node-config default\`)
                                                                (ORCH_NODE_CONFIG_DEFAULTER)
Selection:
  --area A[,B...]         only these areas (folders under suites/: ${areaList()})
  --case ID[,ID...]       only cases whose id starts with ID (e.g. crud/create, watch/law/)
  --level must|should|all the profile: only the MUST cases, the MUST and SHOULD cases, or
                          every case, MAY and beyond the text included (default all);
                          every report says which profile ran, and the matrix gives
                          the verdicts per level                 (ORCH_LEVEL)
  --shard I/N             run shard I of N (test files split by vitest); the report
                          goes to its own directory (default out/report-shard-I-of-N);
                          combine shards with \`orch-conformance merge\`
Timeouts:
  --request-timeout S     the longest one request, or the opening of one watch, may take
                          (default 15 s; the endpoint's silence then fails the case with
                          what it did)                          (ORCH_REQUEST_TIMEOUT)
Properties (fast-check):
  --runs N                runs per property (ORCH_RUNS)
  --seed S                seed, to replay a failure (ORCH_SEED; a negative one: --seed=-S)
Results:
  --expect FILE           expectations for this implementation (expectations/*.yaml:
                          fail / flaky / skip per case id or area/* glob, with a note)
  --report DIR            where reports go (default out/report): html/ (Allure),
                          matrix.html, junit.xml, results.json, summary.json
                          and repro/<case id>.sh, a curl replay of each failing case
  --no-html               skip \`allure generate\`
  --history DIR           keep the history of runs in DIR (kept between CI runs: see
                          ci-templates/): each run is appended, trend.html charts the
                          pass counts and lists the newly failing cases and since which
                          run each case fails; the Allure report shows each case's history
                          (ORCH_HISTORY; ORCH_RUN_LABEL names the run, e.g. its CI number)
  --exit-with-parent      end (as on SIGTERM) once the process that started the run ends,
                          kill -9 included (\`npm run conformance\` sets it)
  -h, --help              this text

Examples:
  orch-conformance run
  orch-conformance run --area watch,chunking --runs 200
  orch-conformance run --case crud/create --report out/crud
  orch-conformance run --endpoint http://127.0.0.1:8081 --endpoint http://127.0.0.1:8082 \\
      --token "$TOKEN" --area watch
  orch-conformance run --kubeconfig ~/.kube/config --dialect kubernetes \\
      --expect expectations/kubernetes-1.28.yaml
  orch-conformance run --shard 1/2 --report out/shard-1
`;

export class UsageError extends Error {}

/** The areas: folders under suites/ holding at least one test file. */
export function areas(): string[] {
  return readdirSync(SUITES)
    .filter((d) => statSync(join(SUITES, d)).isDirectory())
    .filter((d) => hasTests(join(SUITES, d)))
    .sort();
}

function hasTests(dir: string): boolean {
  return readdirSync(dir, { withFileTypes: true }).some((e) =>
    e.isDirectory() ? hasTests(join(dir, e.name)) : e.name.endsWith('.test.ts'),
  );
}

function areaList(): string {
  try {
    return areas().join(', ');
  } catch {
    return '?';
  }
}

export interface RunOptions {
  target: {
    /** The --endpoint URLs, in order (several: the requests alternate between them). */
    endpoints?: string[];
    token?: string;
    tokenFile?: string;
    cert?: string;
    key?: string;
    ca?: string;
    insecure?: boolean;
    kubeconfig?: string;
    context?: string;
  };
  dialect?: 'orch' | 'kubernetes';
  /** The embedded servers as pairs of reference servers on a private etcd. */
  etcd?: boolean;
  /** Start a real Kubernetes control plane from this folder's binaries and run against it. */
  kubernetesAssets?: string;
  /** What the target is declared to do (flags; the ORCH_* variables reach the suites as they are). */
  declared: {
    historySeconds?: number;
    continueTtlSeconds?: number;
    bookmarkSeconds?: number;
    inForceSeconds?: number;
    featureGates?: string;
    authFixtures?: string;
    authMethods?: string;
    serverCommand?: string;
    admissionPlugins?: string;
    auditLog?: string;
  };
  /** Commands of the node agent configuration cases (the ORCH_NODE_CONFIG_* variables reach them as they are). */
  nodeConfig: { validator?: string; defaulter?: string };
  selection: Selection;
  runs?: number;
  seed?: number;
  requestTimeout?: number;
  /** The target is thrown away after the run (ORCH_DISPOSABLE). */
  disposable?: boolean;
  expect?: string;
  reportDir: string;
  html: boolean;
  /** The history directory (`--history`): the run is appended to it and the report shows the trend. */
  history?: string;
  help: boolean;
  /** End (as on SIGTERM) once the process that started the run ends. */
  exitWithParent?: boolean;
}

const list = (v: string | string[] | undefined) =>
  [v ?? '']
    .flat()
    .join(',')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function parseRunArgs(argv: string[]): RunOptions {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        endpoint: { type: 'string', multiple: true },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        cert: { type: 'string' },
        key: { type: 'string' },
        ca: { type: 'string' },
        insecure: { type: 'boolean' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        dialect: { type: 'string' },
        'history-seconds': { type: 'string' },
        'continue-ttl-seconds': { type: 'string' },
        'bookmark-seconds': { type: 'string' },
        'in-force-seconds': { type: 'string' },
        'feature-gates': { type: 'string' },
        'auth-fixtures': { type: 'string' },
        'server-command': { type: 'string' },
        'auth-methods': { type: 'string' },
        'admission-plugins': { type: 'string' },
        'audit-log': { type: 'string' },
        'node-config-validator': { type: 'string' },
        'node-config-defaulter': { type: 'string' },
        area: { type: 'string', multiple: true },
        case: { type: 'string', multiple: true },
        level: { type: 'string' },
        shard: { type: 'string' },
        runs: { type: 'string' },
        seed: { type: 'string' },
        'request-timeout': { type: 'string' },
        disposable: { type: 'boolean' },
        expect: { type: 'string' },
        report: { type: 'string' },
        'no-html': { type: 'boolean' },
        history: { type: 'string' },
        'exit-with-parent': { type: 'boolean' },
        etcd: { type: 'boolean' },
        'kubernetes-assets': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const str = (k: string) => values[k] as string | undefined;
  const opts: RunOptions = {
    etcd: values.etcd === true ? true : undefined,
    disposable: values.disposable === true ? true : undefined,
    target: {
      endpoints: values.endpoint as string[] | undefined,
      token: str('token'),
      tokenFile: str('token-file'),
      cert: str('cert'),
      key: str('key'),
      ca: str('ca'),
      insecure: values.insecure === true ? true : undefined,
      kubeconfig: str('kubeconfig'),
      context: str('context'),
    },
    declared: {},
    nodeConfig: {},
    selection: {
      areas: list(values.area as string[] | undefined),
      cases: list(values.case as string[] | undefined),
      level: 'all',
      shard: null,
    },
    reportDir: '',
    html: values['no-html'] !== true,
    help: values.help === true,
    exitWithParent: values['exit-with-parent'] === true,
  };
  if (opts.help) return opts;
  const assets = str('kubernetes-assets') ?? (process.env[ASSETS_ENV] || undefined);
  if (assets !== undefined) {
    if (assets.trim() === '') throw new UsageError('--kubernetes-assets: no folder given');
    if (opts.target.endpoints || opts.target.kubeconfig || opts.etcd)
      throw new UsageError(
        '--kubernetes-assets starts its own target: leave out --endpoint, --kubeconfig and --etcd',
      );
    opts.kubernetesAssets = resolve(assets);
    opts.dialect = 'kubernetes';
  }
  if (opts.target.endpoints) {
    try {
      opts.target.endpoints = parseEndpointList(opts.target.endpoints, '--endpoint');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const dialect = str('dialect');
  if (dialect !== undefined) {
    if (dialect !== 'orch' && dialect !== 'kubernetes')
      throw new UsageError(`--dialect: "${dialect}" is not orch or kubernetes`);
    opts.dialect = dialect;
  }
  for (const [flag, key] of [
    ['history-seconds', 'historySeconds'],
    ['continue-ttl-seconds', 'continueTtlSeconds'],
    ['bookmark-seconds', 'bookmarkSeconds'],
    ['in-force-seconds', 'inForceSeconds'],
  ] as const) {
    const v = str(flag);
    if (v === undefined) continue;
    if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`--${flag}: "${v}" is not a positive integer`);
    opts.declared[key] = Number(v);
  }
  const gates = str('feature-gates');
  if (gates !== undefined) {
    try {
      parseGates(gates, '--feature-gates');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    opts.declared.featureGates = gates;
  }
  const fixtures = str('auth-fixtures');
  if (fixtures !== undefined) {
    try {
      loadAuthFixtures(fixtures);
    } catch (e) {
      throw new UsageError(`--auth-fixtures: ${(e as Error).message}`);
    }
    opts.declared.authFixtures = resolve(fixtures);
  }
  const serverCommand = str('server-command');
  if (serverCommand !== undefined) {
    if (!serverCommand.includes('{port}'))
      throw new UsageError('--server-command: the command must use {port}');
    opts.declared.serverCommand = serverCommand;
  }
  const methods = str('auth-methods');
  if (methods !== undefined) {
    try {
      parseAuthMethods(methods);
    } catch (e) {
      throw new UsageError(`--auth-methods: ${(e as Error).message}`);
    }
    opts.declared.authMethods = methods;
  }
  const plugins = str('admission-plugins');
  if (plugins !== undefined) {
    try {
      parsePluginList(plugins, '--admission-plugins');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    opts.declared.admissionPlugins = plugins;
  }
  const auditLog = str('audit-log');
  if (auditLog !== undefined) {
    if (auditLog.trim() === '') throw new UsageError('--audit-log: no file given');
    opts.declared.auditLog = resolve(auditLog);
  }
  for (const [flag, key] of [
    ['node-config-validator', 'validator'],
    ['node-config-defaulter', 'defaulter'],
  ] as const) {
    const v = str(flag);
    if (v === undefined) continue;
    if (v.trim() === '') throw new UsageError(`--${flag}: no command given`);
    opts.nodeConfig[key] = v;
  }
  if (values.area !== undefined && opts.selection.areas.length === 0)
    throw new UsageError('--area: no area given');
  const known = areas();
  for (const a of opts.selection.areas)
    if (!known.includes(a)) throw new UsageError(`--area: no area "${a}" (areas: ${known.join(', ')})`);
  if (values.case !== undefined && opts.selection.cases.length === 0)
    throw new UsageError('--case: no id given');
  const level = str('level') ?? (process.env[LEVEL_ENV] || undefined);
  if (level !== undefined) {
    if (!isProfile(level)) throw new UsageError(`--level: "${level}" is not one of ${PROFILES.join(', ')}`);
    opts.selection.level = level;
  }
  const shard = str('shard');
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new UsageError(`--shard: "${shard}" is not I/N with 1 <= I <= N`);
    opts.selection.shard = `${Number(m[1])}/${Number(m[2])}`;
  }
  const runs = str('runs');
  if (runs !== undefined) {
    if (!/^[1-9]\d*$/.test(runs)) throw new UsageError(`--runs: "${runs}" is not a positive integer`);
    opts.runs = Number(runs);
  }
  const seed = str('seed');
  if (seed !== undefined) {
    if (!/^-?\d+$/.test(seed) || !Number.isSafeInteger(Number(seed)))
      throw new UsageError(`--seed: "${seed}" is not an integer`);
    opts.seed = Number(seed);
  }
  const requestTimeout = str('request-timeout');
  if (requestTimeout !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(requestTimeout) || Number(requestTimeout) <= 0)
      throw new UsageError(`--request-timeout: "${requestTimeout}" is not a positive number of seconds`);
    opts.requestTimeout = Number(requestTimeout);
  }
  const expect =
    str('expect') ?? (opts.kubernetesAssets ? join(ROOT, 'expectations', 'kubernetes-1.28.yaml') : undefined);
  if (expect !== undefined) {
    opts.expect = resolve(expect);
    if (!existsSync(opts.expect)) throw new UsageError(`--expect: no file ${opts.expect}`);
  }
  const history = str('history') ?? (process.env.ORCH_HISTORY || undefined);
  if (history !== undefined) {
    if (history.trim() === '') throw new UsageError('--history: no directory given');
    opts.history = resolve(history);
  }
  const [i, n] = (opts.selection.shard ?? '').split('/');
  const report = str('report');
  opts.reportDir = resolve(
    report ??
      (opts.selection.shard ? join(ROOT, 'out', `report-shard-${i}-of-${n}`) : join(ROOT, 'out', 'report')),
  );
  return opts;
}

/**
 * vitest's arguments for a selection. Areas become file filters (`suites/<area>/`); a case
 * prefix becomes a test-name pattern anchored at the id (names are `<id>: <title>`, after
 * the describe titles), and, when every prefix names its area, a file filter too (a case
 * lives under the folder its id starts with: scripts/test/manifest.test.ts checks it).
 */
export function vitestArgs(sel: Selection): string[] {
  const args = ['run', '--config', join(SUITES, 'vitest.config.ts')];
  let folders = sel.areas;
  if (folders.length === 0 && sel.cases.length > 0) {
    const known = areas();
    const heads = sel.cases.map((c) => (c.includes('/') ? c.slice(0, c.indexOf('/')) : ''));
    if (heads.every((h) => known.includes(h))) folders = [...new Set(heads)];
  }
  for (const a of folders) args.push(`suites/${a}/`);
  if (sel.cases.length > 0) args.push('--testNamePattern', testNamePattern(sel.cases));
  if (sel.shard) args.push(`--shard=${sel.shard}`);
  return args;
}

export function testNamePattern(prefixes: string[]): string {
  return `(?:^| )(?:${prefixes.map(escapeRegex).join('|')})[^ ]*: `;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What reaches the suites through the environment besides the target (harness/src/session.ts). */
export function optionEnv(opts: RunOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (opts.expect) env.ORCH_EXPECT = opts.expect;
  if (opts.dialect) env.ORCH_DIALECT = opts.dialect;
  if (opts.runs !== undefined) env.ORCH_RUNS = String(opts.runs);
  if (opts.seed !== undefined) env.ORCH_SEED = String(opts.seed);
  if (opts.requestTimeout !== undefined) env[REQUEST_TIMEOUT_ENV] = String(opts.requestTimeout);
  if (opts.disposable) env[DISPOSABLE_ENV] = '1';
  const d = opts.declared;
  if (d.historySeconds !== undefined) env[DECLARE_ENV.historySeconds] = String(d.historySeconds);
  if (d.continueTtlSeconds !== undefined) env[DECLARE_ENV.continueTtlSeconds] = String(d.continueTtlSeconds);
  if (d.bookmarkSeconds !== undefined) env[DECLARE_ENV.bookmarkSeconds] = String(d.bookmarkSeconds);
  if (d.inForceSeconds !== undefined) env[DECLARE_ENV.inForceSeconds] = String(d.inForceSeconds);
  if (d.featureGates !== undefined) env[DECLARE_ENV.featureGates] = d.featureGates;
  if (d.authFixtures !== undefined) env[DECLARE_ENV.authFixtures] = d.authFixtures;
  if (d.authMethods !== undefined) env[DECLARE_ENV.authMethods] = d.authMethods;
  if (d.admissionPlugins !== undefined) env[DECLARE_ENV.admissionPlugins] = d.admissionPlugins;
  if (d.auditLog !== undefined) env[DECLARE_ENV.auditLog] = d.auditLog;
  if (d.serverCommand !== undefined) env[SERVER_COMMAND_ENV] = d.serverCommand;
  return { ...env, ...nodeConfigEnv(opts) };
}

/** The validator and defaulter given on the command line (they win over a started target's own). */
function nodeConfigEnv(opts: RunOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (opts.nodeConfig.validator !== undefined) env.ORCH_NODE_CONFIG_VALIDATOR = opts.nodeConfig.validator;
  if (opts.nodeConfig.defaulter !== undefined) env.ORCH_NODE_CONFIG_DEFAULTER = opts.nodeConfig.defaulter;
  return env;
}

/** The run's endpoints in words: one URL, or several that the requests alternate between. */
function endpointsText(urls: string[]): string {
  return urls.length > 1 ? `${urls.join(' and ')}, requests alternating` : (urls[0] ?? '(none)');
}

/** One line naming what is declared about an endpoint given by the user (nothing when nothing is). */
function declaredText(env: NodeJS.ProcessEnv): string {
  const set = Object.values(DECLARE_ENV).filter((k) => env[k]);
  return set.length ? `declared: ${set.map((k) => `${k}=${env[k]}`).join(' ')}\n` : '';
}

/** The run declares something about its target by flags. */
function declares(opts: RunOptions): boolean {
  return Object.values(opts.declared).some((v) => v !== undefined);
}

function vitestBin(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('vitest/package.json');
  return join(dirname(pkg), 'vitest.mjs');
}

/** Removes the previous run's outputs (only those: --report may name a folder with other files). */
function clearReport(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const f of REPORT_FILES) rmSync(join(dir, f), { recursive: true, force: true });
}

export async function run(argv: string[]): Promise<number> {
  const t0 = performance.now();
  let opts: RunOptions;
  try {
    opts = parseRunArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`orch-conformance run: ${e.message}\n\nSee orch-conformance run --help\n`);
      return 2;
    }
    throw e;
  }
  if (opts.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  // a SIGTERM of our own: handed on to the suites while they run, else the end of the run
  if (opts.exitWithParent) onParentGone(() => process.kill(process.pid, 'SIGTERM'));
  const startedAt = new Date().toISOString();
  const env: NodeJS.ProcessEnv = { ...process.env };
  let expectations: ReturnType<typeof loadExpectations>;
  try {
    expectations = loadExpectations(opts.expect);
  } catch (e) {
    process.stderr.write(`orch-conformance run: --expect: ${(e as Error).message}\n`);
    return 2;
  }
  Object.assign(env, optionEnv(opts));

  let stop: (() => Promise<void>) | undefined;
  const t = opts.target;
  try {
    clearReport(opts.reportDir);
    if (opts.kubernetesAssets) {
      if (declares(opts))
        throw new UsageError(
          '--kubernetes-assets declares the control plane it starts: leave out the declarations',
        );
      const { startControlPlaneTarget } = await import('./control-plane-target.ts');
      const s0 = performance.now();
      process.stdout.write(`starting a Kubernetes control plane from ${opts.kubernetesAssets} ...\n`);
      const cp = await startControlPlaneTarget(
        opts.kubernetesAssets,
        join(opts.reportDir, CONTROL_PLANE_LOG),
      );
      process.stdout.write(`control plane (ready in ${(performance.now() - s0).toFixed(0)} ms):\n`);
      for (const s of cp.servers) process.stdout.write(`  ${s.name.padEnd(15)} ${s.url}  ${s.about}\n`);
      process.stdout.write(`  what the processes write: ${join(opts.reportDir, CONTROL_PLANE_LOG)}\n`);
      Object.assign(env, EMPTY_TARGET_ENV, cp.env, nodeConfigEnv(opts));
      stop = () => cp.close();
    } else if (t.endpoints || t.kubeconfig || process.env.ORCH_ENDPOINT || process.env.ORCH_KUBECONFIG) {
      if (t.endpoints) env.ORCH_ENDPOINT = t.endpoints.join(',');
      if (t.token) env.ORCH_TOKEN = t.token;
      if (t.tokenFile) env.ORCH_TOKEN = readFileSync(t.tokenFile, 'utf8').trim();
      if (t.cert) env.ORCH_CLIENT_CERT = resolve(t.cert);
      if (t.key) env.ORCH_CLIENT_KEY = resolve(t.key);
      if (t.ca) env.ORCH_CA = resolve(t.ca);
      if (t.insecure) env.ORCH_INSECURE = '1';
      if (t.kubeconfig) env.ORCH_KUBECONFIG = resolve(t.kubeconfig);
      if (t.context) env.ORCH_CONTEXT = t.context;
      // the suites resolve the same way: a bad kubeconfig or URL is reported once, here
      env.ORCH_ENDPOINT = targetUrls(resolveTarget({}, env)).join(',');
      const d = declaredFromEnv(env); // and a malformed ORCH_HISTORY_SECONDS ... too
      if (d.authFixtures) {
        // the target verifies id_tokens against the issuer, and asks the webhook, during the run
        const callbacks = await startAuthCallbacks(loadAuthFixtures(d.authFixtures));
        stop = () => callbacks.close();
      }
    } else {
      if (declares(opts))
        throw new UsageError(
          '--history-seconds, --continue-ttl-seconds, --bookmark-seconds, --in-force-seconds, --feature-gates, --auth-fixtures, --auth-methods, --admission-plugins and --audit-log describe a target given with --endpoint or --kubeconfig; the embedded servers declare their own',
        );
      const { startEmbedded } = await import('./embedded.ts');
      const s0 = performance.now();
      // with --dialect kubernetes the embedded servers speak Kubernetes' words too
      const embedded = await startEmbedded({ etcd: opts.etcd, dialect: opts.dialect });
      const ms = (performance.now() - s0).toFixed(0);
      process.stdout.write(`embedded reference servers (ready in ${ms} ms):\n`);
      for (const s of embedded.servers) process.stdout.write(`  ${s.name.padEnd(13)} ${s.url}  ${s.about}\n`);
      Object.assign(env, embedded.env, nodeConfigEnv(opts));
      stop = () => embedded.close();
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`orch-conformance run: ${e.message}\n\nSee orch-conformance run --help\n`);
      return 2;
    }
    process.stderr.write(`orch-conformance run: target: ${(e as Error).message}\n`);
    return 2;
  }

  const reportDir = opts.reportDir;
  let endpoints: string[] = [];
  let vitestExitCode: number | null;
  let seconds: number;
  try {
    env.ORCH_REPORT_DIR = reportDir;
    env[LEVEL_ENV] = opts.selection.level ?? 'all'; // set whatever the parent's environment says
    const casesFile = join(reportDir, 'cases.jsonl');
    writeFileSync(casesFile, '');
    env.ORCH_MANIFEST_OUT = casesFile;
    const sel = opts.selection;
    endpoints = (env.ORCH_ENDPOINT ?? '').split(',').filter(Boolean);
    process.stdout.write(
      `orch conformance: ${endpointsText(endpoints)} (dialect ${env.ORCH_DIALECT ?? 'orch'})` +
        `${sel.areas.length ? `, areas ${sel.areas.join(',')}` : ''}${sel.cases.length ? `, cases ${sel.cases.join(',')}` : ''}` +
        `, profile ${describeProfile(sel.level ?? 'all')}` +
        `${sel.shard ? `, shard ${sel.shard}` : ''}${opts.expect ? `, expectations ${opts.expect}` : ''}` +
        `${opts.runs ? `, ${opts.runs} runs` : ''}${opts.seed !== undefined ? `, seed ${opts.seed}` : ''}\n` +
        (env.ORCH_EMBEDDED === '1' ? '' : declaredText(env)) +
        `report: ${reportDir}\n`,
    );
    const started = performance.now();
    // vitest ends with this run however it ends, SIGKILL included (lifeline/owned.ts); its
    // own process group does not see a Ctrl-C at the terminal, so signals are handed on
    const child = startOwned(process.execPath, [vitestBin(), ...vitestArgs(sel)], {
      cwd: ROOT,
      env,
      inheritOutput: true,
    });
    const handOn = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // it has ended
      }
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const sig of signals) process.on(sig, handOn);
    try {
      const e = await child.exited;
      vitestExitCode = e.signal ? null : e.code;
    } finally {
      for (const sig of signals) process.off(sig, handOn);
    }
    seconds = (performance.now() - started) / 1000;
  } finally {
    await stop?.();
  }
  const summary: Summary = await finishReport(
    ROOT,
    reportDir,
    {
      endpoint: endpoints.join(', ') || undefined,
      endpoints,
      dialect: env.ORCH_DIALECT ?? 'orch',
      expectations: expectationsInfo(opts.expect ?? null, expectations),
      selection: opts.selection,
      seconds,
      vitestExitCodes: [vitestExitCode],
      startedAt,
      ...(opts.history ? { history: opts.history } : {}),
    },
    { completeAllure: true, html: opts.html },
  );
  process.stdout.write(summaryText(summary, reportDir, (performance.now() - t0) / 1000));
  return summary.ok ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run(process.argv.slice(2)).then(
    (c) => process.exit(c),
    (e) => {
      process.stderr.write(`${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
}
