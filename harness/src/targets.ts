// Which server a case runs against. A case declares what it needs of a server beyond the API
// (`needs`: versions that expire, continue tokens that expire, periodic BOOKMARKs, a feature
// gate on or off); the run has one or more targets, each with what is declared about it
// (its retention, its bookmark interval, its gates). Routing picks the first target that
// meets the needs:
//
//  - the embedded run (ORCH_EMBEDDED=1) starts reference servers that cover every need
//    (scripts/embedded.ts) and declares each; a need none of them meets is a harness bug,
//    and the case fails;
//  - any other run has the target the user gave (ORCH_ENDPOINT / kubeconfig), with what the
//    user declares about it (ORCH_HISTORY_SECONDS, ORCH_CONTINUE_TTL_SECONDS,
//    ORCH_BOOKMARK_SECONDS, ORCH_FEATURE_GATES), and optional further targets
//    (ORCH_EXTRA_TARGETS); what is not declared is probed where a probe cannot be fooled
//    by the fault it guards, else the case skips with a reason that says how to make it run.
//
// Once a retention is declared the cases rely on it: a version older than the declared
// history window, or a continue token older than its declared lifetime, must answer 410.

import { watchListGate } from './capabilities.ts';
import type { Client } from './client.ts';
import { Endpoints, parseEndpointList } from './endpoints.ts';
import { runEnv } from './run-env.ts';
import { HOW_TO_DECLARE, type ServerCommand, serverCommandFrom } from './server-command.ts';
import { clientFor, session } from './session.ts';
import { resolveTarget, type Target } from './target.ts';

/** How long a policy and its binding may take to be in force when the target declares nothing. */
export const IN_FORCE_SECONDS = 20;

/** The longest a case waits for a declared window to pass (history, token lifetime, bookmark). */
export const MAX_WAIT_SECONDS = 60;

/** What is declared about a target (seconds; gates by name). Undeclared: unknown. */
export interface Declared {
  /** Versions superseded longer ago than this are gone: a watch from one, or an Exact list at one, answers 410. */
  historySeconds?: number;
  /** A continue token is refused with 410 once older than this. */
  continueTtlSeconds?: number;
  /** A watch with allowWatchBookmarks=true gets a BOOKMARK at least this often. */
  bookmarkSeconds?: number;
  /**
   * An admission policy and its binding are in force at most this long after both writes were
   * acknowledged (IN_FORCE_SECONDS when undeclared: Kubernetes loads them through informers).
   */
  inForceSeconds?: number;
  featureGates?: Record<string, boolean>;
  /**
   * The directory of the authentication fixtures the target was started to trust
   * (`orch-conformance fixtures --out DIR`, then the flags it prints), and which of their
   * methods it was given (DEFAULT_AUTH_METHODS when not said).
   */
  authFixtures?: string;
  authMethods?: AuthMethod[];
  /** How the harness starts a server process of its own (ORCH_SERVER_COMMAND; harness/src/server-process.ts). */
  serverCommand?: ServerCommand;
  /**
   * A file the suites can read where the target writes its audit events as JSON lines, at
   * level Metadata or higher for write requests (harness/src/admission/audit-log.ts).
   */
  auditLog?: string;
  /**
   * Every built-in admission plugin the target has on (doc3's plugin table; ORCH_ADMISSION_PLUGINS,
   * comma-separated): the default-enabled ones it kept and those its --enable-admission-plugins
   * added. Undeclared: unknown, and the cases of off-by-default plugins skip.
   */
  admissionPlugins?: string[];
}

/** The authentication methods the fixtures provide, each switched on by server flags. */
export const AUTH_METHODS = {
  'client-cert': '--client-ca-file',
  'token-file': '--token-auth-file',
  'service-account':
    '--service-account-key-file and --service-account-signing-key-file (and --service-account-issuer)',
  bootstrap: '--enable-bootstrap-token-auth (and --controllers=*,tokencleaner)',
  requestheader: 'the --requestheader-* flags',
  oidc: 'the --oidc-* flags',
  'token-webhook': '--authentication-token-webhook-config-file and --authentication-token-webhook-version',
  'oidc-sub':
    'the --oidc-* flags with --oidc-username-claim=sub instead of email (a target of its own, since a server has one username claim: `orch-conformance fixtures` prints its flags too)',
} as const;
export type AuthMethod = keyof typeof AUTH_METHODS;

/** The methods a target trusting the fixtures has when its declaration does not list them: the first set of flags `orch-conformance fixtures` prints. */
export const DEFAULT_AUTH_METHODS: AuthMethod[] = (Object.keys(AUTH_METHODS) as AuthMethod[]).filter(
  (m) => m !== 'oidc-sub',
);

export interface NamedTarget {
  /** "main" for the target the run was given; the embedded servers have their own names. */
  name: string;
  target: Target;
  declared: Declared;
  /** For reports: how the server was made (embedded runs). */
  about?: string;
}

export interface Needs {
  /**
   * A resource version older than the target's history: a declared window of at most
   * MAX_WAIT_SECONDS (the case waits it out), or, undeclared, one the case finds by probing
   * (harness/src/retention.ts).
   */
  expiredVersions?: true;
  /** Continue tokens that expire after a declared lifetime of at most MAX_WAIT_SECONDS. */
  continueTokenExpiry?: true;
  /** BOOKMARKs at a declared interval of at most MAX_WAIT_SECONDS. */
  periodicBookmarks?: true;
  /** Feature gates on (true) or off (false). */
  featureGates?: Record<string, boolean>;
  /** A target that trusts the authentication fixtures for these methods. */
  auth?: AuthMethod[];
  /** A server process the harness starts, signals and breaks itself (declared by ORCH_SERVER_COMMAND). */
  serverProcess?: true;
  /** An audit log of the target the suites can read (declared by ORCH_AUDIT_LOG). */
  auditLog?: true;
  /** Built-in admission plugins the target is declared to have on. */
  admissionPlugins?: string[];
  /** Built-in admission plugins the target is declared to have off (plugins whose effect would hide the case's). */
  admissionPluginsOff?: string[];
}

/** The environment variable of each declaration about the main target. */
export const DECLARE_ENV = {
  historySeconds: 'ORCH_HISTORY_SECONDS',
  continueTtlSeconds: 'ORCH_CONTINUE_TTL_SECONDS',
  bookmarkSeconds: 'ORCH_BOOKMARK_SECONDS',
  inForceSeconds: 'ORCH_IN_FORCE_SECONDS',
  featureGates: 'ORCH_FEATURE_GATES',
  authFixtures: 'ORCH_AUTH_FIXTURES',
  authMethods: 'ORCH_AUTH_METHODS',
  auditLog: 'ORCH_AUDIT_LOG',
  admissionPlugins: 'ORCH_ADMISSION_PLUGINS',
} as const;

function seconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}="${v}" is not a positive number of seconds`);
  return n;
}

/** `WatchList=true,Other=false` */
export function parseGates(s: string, what: string = DECLARE_ENV.featureGates): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const part of s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(part);
    if (!m) throw new Error(`${what}: "${part}" is not Gate=true or Gate=false`);
    out[m[1]!] = m[2] === 'true';
  }
  return out;
}

/** What the user declares about the main target (ORCH_HISTORY_SECONDS ...). */
export function declaredFromEnv(env: NodeJS.ProcessEnv = process.env): Declared {
  const d: Declared = {};
  const h = seconds(env, DECLARE_ENV.historySeconds);
  if (h !== undefined) d.historySeconds = h;
  const c = seconds(env, DECLARE_ENV.continueTtlSeconds);
  if (c !== undefined) d.continueTtlSeconds = c;
  const b = seconds(env, DECLARE_ENV.bookmarkSeconds);
  if (b !== undefined) d.bookmarkSeconds = b;
  const f = seconds(env, DECLARE_ENV.inForceSeconds);
  if (f !== undefined) d.inForceSeconds = f;
  const g = env[DECLARE_ENV.featureGates];
  if (g) d.featureGates = parseGates(g);
  const fx = env[DECLARE_ENV.authFixtures];
  if (fx) d.authFixtures = fx;
  const m = env[DECLARE_ENV.authMethods];
  if (m) d.authMethods = parseAuthMethods(m);
  const al = env[DECLARE_ENV.auditLog];
  if (al) d.auditLog = al;
  const sc = serverCommandFrom(env);
  if (sc) d.serverCommand = sc;
  const ap = env[DECLARE_ENV.admissionPlugins];
  if (ap) d.admissionPlugins = parsePluginList(ap);
  return d;
}

/**
 * A target's declarations as the environment variables declaredFromEnv reads (a run that starts
 * its own main target declares it so; the server command is declared apart).
 */
export function declaredToEnv(d: Declared): Record<string, string> {
  const env: Record<string, string> = {};
  if (d.historySeconds !== undefined) env[DECLARE_ENV.historySeconds] = String(d.historySeconds);
  if (d.continueTtlSeconds !== undefined) env[DECLARE_ENV.continueTtlSeconds] = String(d.continueTtlSeconds);
  if (d.bookmarkSeconds !== undefined) env[DECLARE_ENV.bookmarkSeconds] = String(d.bookmarkSeconds);
  if (d.inForceSeconds !== undefined) env[DECLARE_ENV.inForceSeconds] = String(d.inForceSeconds);
  if (d.featureGates)
    env[DECLARE_ENV.featureGates] = Object.entries(d.featureGates)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  if (d.authFixtures) env[DECLARE_ENV.authFixtures] = d.authFixtures;
  if (d.authMethods) env[DECLARE_ENV.authMethods] = d.authMethods.join(',');
  if (d.auditLog) env[DECLARE_ENV.auditLog] = d.auditLog;
  if (d.admissionPlugins) env[DECLARE_ENV.admissionPlugins] = d.admissionPlugins.join(',');
  return env;
}

/** `NamespaceLifecycle,ServiceAccount,...`: plugin names as the server flags spell them. */
export function parsePluginList(s: string, what: string = DECLARE_ENV.admissionPlugins): string[] {
  const out: string[] = [];
  for (const part of s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (!/^[A-Z][A-Za-z0-9]*$/.test(part))
      throw new Error(`${what}: "${part}" is not an admission plugin name`);
    out.push(part);
  }
  return out;
}

/** `client-cert,token-file,...` */
export function parseAuthMethods(s: string): AuthMethod[] {
  const out: AuthMethod[] = [];
  for (const part of s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (!(part in AUTH_METHODS))
      throw new Error(
        `${DECLARE_ENV.authMethods}: unknown method "${part}" (known: ${Object.keys(AUTH_METHODS).join(', ')})`,
      );
    out.push(part as AuthMethod);
  }
  return out;
}

/** One further target as ORCH_EXTRA_TARGETS holds it (a JSON array of these). */
export interface ExtraTargetSpec {
  name: string;
  url: string;
  /** Several endpoints of this target's API (`url` among them or not): requests alternate between them. */
  urls?: string[];
  token?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  /** PEM CA bundle. */
  ca?: string;
  insecure?: boolean;
  declared?: Declared;
  about?: string;
}

export interface RunTargets {
  /** The targets are the embedded reference servers: every need must be met. */
  embedded: boolean;
  targets: NamedTarget[];
}

/** The run's targets, with the run environment they were read from (a batch of runs changes it: run-env.ts). */
let cached: { env: NodeJS.ProcessEnv; targets: RunTargets } | undefined;

/** The run's targets, from the environment the runner sets. */
export function runTargets(env?: NodeJS.ProcessEnv): RunTargets {
  const fromRun = !env;
  env ??= runEnv();
  if (fromRun && cached?.env === env) return cached.targets;
  // the run's own main target is session()'s: one rotation of its endpoints for every case
  const main = fromRun ? session().target : resolveTarget({}, env);
  const targets: NamedTarget[] = [{ name: 'main', target: main, declared: declaredFromEnv(env) }];
  const extra = env.ORCH_EXTRA_TARGETS;
  if (extra) {
    let specs: ExtraTargetSpec[];
    try {
      specs = JSON.parse(extra) as ExtraTargetSpec[];
    } catch (e) {
      throw new Error(`ORCH_EXTRA_TARGETS is not JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(specs)) throw new Error('ORCH_EXTRA_TARGETS is not a JSON array');
    for (const s of specs) {
      if (!s?.name || !s.url) throw new Error('ORCH_EXTRA_TARGETS: every target needs a name and a url');
      const urls = parseEndpointList(s.urls ?? [s.url], `ORCH_EXTRA_TARGETS ${s.name}`);
      targets.push({
        name: s.name,
        target: {
          url: urls[0]!,
          ...(urls.length > 1 ? { endpoints: new Endpoints(urls) } : {}),
          token: s.token,
          cert: s.cert,
          key: s.key,
          ca: s.ca,
          insecure: s.insecure,
          dialect: main.dialect,
        },
        declared: s.declared ?? {},
        about: s.about,
      });
    }
  }
  const r = { embedded: env.ORCH_EMBEDDED === '1', targets };
  if (fromRun) cached = { env, targets: r };
  return r;
}

/** The needs in words, for messages. */
export function describeNeeds(n: Needs): string {
  const out: string[] = [];
  if (n.expiredVersions) out.push('resource versions older than the history window');
  if (n.continueTokenExpiry) out.push('continue tokens that expire');
  if (n.periodicBookmarks) out.push('periodic BOOKMARKs');
  for (const [g, on] of Object.entries(n.featureGates ?? {}))
    out.push(`the ${g} feature gate ${on ? 'on' : 'off'}`);
  if (n.auth?.length) out.push(`trust in the authentication fixtures for ${n.auth.join(', ')}`);
  if (n.serverProcess) out.push('a server process of the harness');
  if (n.auditLog) out.push('an audit log the suites can read');
  if (n.admissionPlugins?.length) out.push(`the admission plugin(s) ${n.admissionPlugins.join(', ')} on`);
  if (n.admissionPluginsOff?.length)
    out.push(`the admission plugin(s) ${n.admissionPluginsOff.join(', ')} off`);
  return out.join(', ');
}

/** The longest a case with these needs may wait for a declared window (for its timeout). */
export function waitBoundMs(n: Needs): number {
  return n.expiredVersions || n.continueTokenExpiry || n.periodicBookmarks
    ? (MAX_WAIT_SECONDS + 15) * 1000
    : 0;
}

const GATE_FLAGS: Record<string, { on: string; off: string }> = {
  WatchList: {
    on: 'kube-apiserver --feature-gates=WatchList=true; the reference server: serve --feature-gates WatchList=true',
    off: 'kube-apiserver --feature-gates=WatchList=false, the 1.28 default; the reference server: its default',
  },
  ValidatingAdmissionPolicy: {
    on: 'kube-apiserver --feature-gates=ValidatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1beta1=true; the reference server: serve --feature-gates ValidatingAdmissionPolicy=true --runtime-config admissionregistration.orch.io/v1beta1=true',
    off: 'kube-apiserver without the gate, the 1.28 default; the reference server: its default',
  },
};

/** Why `t` does not meet `needs` (empty when it does); each reason says how to make the case run. */
export async function unmet(t: NamedTarget, needs: Needs, client: () => Client): Promise<string[]> {
  const d = t.declared;
  const out: string[] = [];
  const tooLong = (what: string, v: number, env: string) =>
    `its declared ${what} (${env}=${v}) is longer than a case waits (${MAX_WAIT_SECONDS} s): declare a target whose ${what} is at most ${MAX_WAIT_SECONDS} s`;
  if (needs.expiredVersions && d.historySeconds !== undefined && d.historySeconds > MAX_WAIT_SECONDS)
    out.push(tooLong('history window', d.historySeconds, DECLARE_ENV.historySeconds));
  if (needs.continueTokenExpiry) {
    if (d.continueTtlSeconds === undefined)
      out.push(
        `needs a target whose continue tokens expire after a known, short lifetime: declare it with ${DECLARE_ENV.continueTtlSeconds}=N (N <= ${MAX_WAIT_SECONDS}; tokens older than N seconds must then be refused with 410). The reference server: serve --continue-ttl-seconds N; kube-apiserver: a token expires when etcd compacts its revision (--etcd-compaction-interval, default 5m), so declare the compaction interval once it is at most ${MAX_WAIT_SECONDS} s`,
      );
    else if (d.continueTtlSeconds > MAX_WAIT_SECONDS)
      out.push(tooLong('continue-token lifetime', d.continueTtlSeconds, DECLARE_ENV.continueTtlSeconds));
  }
  if (needs.periodicBookmarks) {
    if (d.bookmarkSeconds === undefined)
      out.push(
        `needs a target that sends BOOKMARK events at a known interval (doc1: bookmarks are never guaranteed, so the suite cannot wait for one it was not promised): declare it with ${DECLARE_ENV.bookmarkSeconds}=N when a watch with allowWatchBookmarks=true gets a BOOKMARK at least every N seconds (N <= ${MAX_WAIT_SECONDS}). The reference server: serve --bookmark-interval-seconds N; kube-apiserver with its watch cache sends one about every 60 s (${DECLARE_ENV.bookmarkSeconds}=60)`,
      );
    else if (d.bookmarkSeconds > MAX_WAIT_SECONDS)
      out.push(tooLong('bookmark interval', d.bookmarkSeconds, DECLARE_ENV.bookmarkSeconds));
  }
  if (needs.auditLog && !d.auditLog)
    out.push(
      `needs a target whose audit log the suites can read: start it writing audit events as JSON lines to a file this machine reads (the reference server: serve --audit-log-path FILE; kube-apiserver: --audit-log-path FILE with an --audit-policy-file at level Metadata or higher) and declare it with ${DECLARE_ENV.auditLog}=FILE`,
    );
  if (needs.serverProcess && !d.serverCommand)
    out.push(`needs a server process the harness starts, signals and breaks itself: ${HOW_TO_DECLARE}`);
  if (needs.auth?.length) {
    if (!d.authFixtures)
      out.push(
        `needs a target that trusts the suite's authentication fixtures: run \`orch-conformance fixtures --out DIR\`, start the target with the flags it prints (${needs.auth.map((m) => AUTH_METHODS[m]).join('; ')}), and declare it with ${DECLARE_ENV.authFixtures}=DIR`,
      );
    else {
      const have = d.authMethods ?? DEFAULT_AUTH_METHODS;
      const missing = needs.auth.filter((m) => !have.includes(m));
      if (missing.length)
        out.push(
          `needs the ${missing.join(', ')} method(s), which ${d.authMethods ? `${DECLARE_ENV.authMethods}=${have.join(',')}` : `the default ${DECLARE_ENV.authMethods} (${have.join(',')})`} leaves out: start a target with ${missing.map((m) => AUTH_METHODS[m]).join('; ')} and declare ${DECLARE_ENV.authMethods}=${missing.join(',')}`,
        );
    }
  }
  out.push(...unmetPlugins(d, needs));
  for (const [gate, want] of Object.entries(needs.featureGates ?? {})) {
    const how = GATE_FLAGS[gate]?.[want ? 'on' : 'off'];
    const fix = `needs a target with the ${gate} feature gate ${want ? 'on' : 'off'}${how ? ` (${how})` : ''}`;
    const declared = d.featureGates?.[gate];
    if (declared !== undefined) {
      if (declared !== want) out.push(`${fix}; this target is declared with ${gate}=${declared}`);
      continue;
    }
    if (gate !== 'WatchList') {
      out.push(`${fix}; declare the target's gates with ${DECLARE_ENV.featureGates}=${gate}=${want}`);
      continue;
    }
    // probed: a 200 says on, a 422 says off; any other answer leaves it open, and the case
    // runs (its own checks then judge the answer), so a broken answer cannot hide as a skip
    const state = await watchListGate(client());
    if (state.state !== 'unknown' && (state.state === 'on') !== want)
      out.push(`${fix}; this target has it ${state.state} (${state.evidence})`);
  }
  return out;
}

/** Why a target's declared admission plugins do not meet `needs` (each reason says how to declare). */
function unmetPlugins(d: Declared, needs: Needs): string[] {
  const on = needs.admissionPlugins ?? [];
  const off = needs.admissionPluginsOff ?? [];
  if (!on.length && !off.length) return [];
  const env = DECLARE_ENV.admissionPlugins;
  const want = [on.length ? `${on.join(', ')} on` : '', off.length ? `${off.join(', ')} off` : '']
    .filter(Boolean)
    .join(' and ');
  const how = [
    on.length ? `start the target with --enable-admission-plugins=${on.join(',')}` : '',
    off.length
      ? `with --disable-admission-plugins=${off.join(',')} (or without --enable-admission-plugins=${off.join(',')})`
      : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const declare = `declare every plugin it then has on (the default-enabled ones included) with ${env}=A,B,...`;
  if (!d.admissionPlugins)
    return [`needs a target with the admission plugin(s) ${want}: ${how}, and ${declare}`];
  const missing = on.filter((p) => !d.admissionPlugins!.includes(p));
  const extra = off.filter((p) => d.admissionPlugins!.includes(p));
  if (!missing.length && !extra.length) return [];
  const said = [
    missing.length ? `leaves out ${missing.join(', ')}` : '',
    extra.length ? `has ${extra.join(', ')} on` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return [
    `needs a target with the admission plugin(s) ${want}; its declaration ${said}: ${how}, and ${declare}`,
  ];
}

export type Route =
  | { ok: true; target: NamedTarget; client: Client }
  | { ok: false; reason: string; embedded: boolean };

/**
 * How long a case with these needs waits on this target (seconds; declared windows only). A
 * target whose history is not declared comes last for expired versions: there the case
 * probes, and skips if the target still serves the oldest version.
 */
function waitOn(t: NamedTarget, n: Needs): number {
  const d = t.declared;
  return Math.max(
    n.expiredVersions ? (d.historySeconds ?? Number.POSITIVE_INFINITY) : 0,
    n.continueTokenExpiry ? (d.continueTtlSeconds ?? 0) : 0,
    n.periodicBookmarks ? (d.bookmarkSeconds ?? 0) : 0,
  );
}

/**
 * The target of the run that meets `needs` with the shortest wait (the first of equals: the
 * main target before the others); or why none does.
 */
export async function route(needs: Needs | undefined, run: RunTargets = runTargets()): Promise<Route> {
  const main = run.targets[0]!;
  if (!needs) return { ok: true, target: main, client: clientFor(main) };
  const reasons: string[] = [];
  let best: NamedTarget | undefined;
  for (const t of run.targets) {
    const why = await unmet(t, needs, () => clientFor(t));
    if (why.length === 0) {
      if (!best || waitOn(t, needs) < waitOn(best, needs)) best = t;
    } else reasons.push(run.targets.length > 1 ? `${t.name}: ${why.join('; ')}` : why.join('; '));
  }
  if (best) return { ok: true, target: best, client: clientFor(best) };
  return { ok: false, reason: reasons.join(' | '), embedded: run.embedded };
}

/**
 * ORCH_DISPOSABLE=1: the run's targets are discarded when it ends (the embedded servers, a
 * control plane the run started, a cluster declared so with `run --disposable`), so the suites
 * leave the namespaces they made to that. Each namespace deleted costs a cluster's namespace
 * controller a list and a delete of every namespaced kind (about a hundred requests); on a
 * target that outlives the run they are deleted as before.
 */
export const DISPOSABLE_ENV = 'ORCH_DISPOSABLE';

/**
 * The variables that describe a run's targets: a run that starts its own (the embedded servers,
 * a control plane) sets each, blank when unused, so that what a user's shell holds about
 * another target cannot misdescribe them.
 */
export const TARGET_ENV_KEYS = [
  'ORCH_ENDPOINT',
  'ORCH_TOKEN',
  'ORCH_CA',
  'ORCH_CLIENT_CERT',
  'ORCH_CLIENT_KEY',
  'ORCH_INSECURE',
  'ORCH_KUBECONFIG',
  'ORCH_CONTEXT',
  'ORCH_EMBEDDED',
  DISPOSABLE_ENV,
  'ORCH_EXTRA_TARGETS',
  'ORCH_HISTORY_SECONDS',
  'ORCH_CONTINUE_TTL_SECONDS',
  'ORCH_BOOKMARK_SECONDS',
  'ORCH_IN_FORCE_SECONDS',
  'ORCH_FEATURE_GATES',
  'ORCH_AUTH_FIXTURES',
  'ORCH_AUTH_METHODS',
  'ORCH_ADMISSION_PLUGINS',
  'ORCH_SERVER_COMMAND',
  'ORCH_SERVER_SCHEME',
  'ORCH_AUDIT_LOG',
  // the admission webhook servers of the harness listen on this machine (harness/src/admission/callback-host.ts)
  'ORCH_CALLBACK_HOST',
  'ORCH_CALLBACK_BIND',
  'ORCH_CALLBACK_PORTS',
  'ORCH_CALLBACK_CA_CERT',
  'ORCH_CALLBACK_CA_KEY',
];

/** Every TARGET_ENV_KEYS variable, blank. */
export const EMPTY_TARGET_ENV: Record<string, string> = Object.fromEntries(
  TARGET_ENV_KEYS.map((k) => [k, '']),
);
