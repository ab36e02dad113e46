// The embedded run's servers: the main reference server every case runs against, and the
// servers the cases with `needs` (harness/src/targets.ts) are routed to, each declared as it
// is built, so that every case runs on the embedded run and none skips:
//
//   main         defaults (5 minutes of history, 5-minute continue tokens, a BOOKMARK a
//                minute), the WatchList gate on so the "Streaming initial state" cases run
//   short-timers a 4-second history window, 3-second continue tokens, a BOOKMARK every second:
//                the expired-version, expired-token and bookmark cases wait these out
//   gates-off    the WatchList gate off: the refusal of sendInitialEvents
//   policies     the ValidatingAdmissionPolicy gate on and the policy API served (Kubernetes 1.28
//                serves it only with --runtime-config): the admission policy cases
//   auth         started with the flags of a fresh set of authentication fixtures
//                (harness/src/auth/fixtures.ts: client CA, token file, service-account keys,
//                authenticating proxy, OIDC issuer, token webhook); the harness serves the
//                issuer and the webhook in this process for as long as the servers run
//   auth-oidc-sub the same fixtures, its OIDC username from the `sub` claim
//   audit        writes its audit events to a file the suites read (declared ORCH_AUDIT_LOG):
//                the cases on the audit annotations of webhook calls and of requests to
//                deprecated versions
//   admission-plugins every off-by-default admission plugin the reference implements, but
//                AlwaysDeny (it refuses every write), NamespaceAutoProvision (it makes the
//                namespace NamespaceExists must find missing) and the plugins that need a
//                configuration (EventRateLimit, ImagePolicyWebhook: servers of their own)
//   admission-event-rate-limit EventRateLimit on, with a configuration the harness writes
//                (harness/src/admission/event-rate-limit.ts)
//   admission-image-policy ImagePolicyWebhook on, asking the ImageReview backend the harness
//                serves in this process (harness/src/admission/image-policy-backend.ts)
//   admission-autoprovision NamespaceAutoProvision on
//   admission-deny AlwaysDeny on (the service-account and root CA controllers off: refused there)
//
// Every server declares the admission plugins it has on (ORCH_ADMISSION_PLUGINS), the main
// one the default-enabled set the reference implements.
//
// The main target also declares the reference server's command (ORCH_SERVER_COMMAND): the
// health cases start servers of their own from it, to break one's data directory or stop one.
//
// `orch-conformance run` (scripts/run.ts, so `npm run conformance` too) and the `suites`
// project of `npm test` (scripts/embedded-setup.ts) both start them here and hand them to the
// suites as ORCH_* variables (ORCH_ENDPOINT ..., ORCH_EXTRA_TARGETS, ORCH_EMBEDDED=1).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_RATE_LIMIT_CONFIGURATION } from '../harness/src/admission/event-rate-limit.ts';
import {
  type ImagePolicyBackend,
  startImagePolicyBackend,
  writeImagePolicyFiles,
} from '../harness/src/admission/image-policy-backend.ts';
import { startAuthCallbacks } from '../harness/src/auth/callbacks.ts';
import { type Dialect, type DialectName, dialect as dialectOf } from '../harness/src/dialect.ts';
import { makeAuthFixtures, serverFlags } from '../harness/src/auth/fixtures.ts';
import { referenceServerCommand, SERVER_COMMAND_ENV } from '../harness/src/server-command.ts';
import {
  DEFAULT_AUTH_METHODS,
  type Declared,
  DISPOSABLE_ENV,
  declaredToEnv,
  EMPTY_TARGET_ENV,
  type ExtraTargetSpec,
} from '../harness/src/targets.ts';
import { ownedTempDir, removeOwnedDir } from '../lifeline/owned.ts';
import {
  DEFAULT_ENABLED,
  enabledPlugins,
  FACTORIES,
  NEEDS_CONFIGURATION,
  PLUGIN_ORDER,
  type PluginName,
} from '../reference/src/admission/plugins/catalog.ts';
import { parseServeArgs } from '../reference/src/cli.ts';
import type { ServerOptionsInput } from '../reference/src/config.ts';
import { startEtcd } from '../reference/src/etcd-process.ts';
import { generateCertificate } from '../reference/src/http/tls.ts';
import { build, EMBEDDED_GATES, type OrchServer } from '../reference/src/index.ts';
import { FUTURE_RV_WAIT_MS, NAMESPACE_GRACE_MS } from './embedded-waits.ts';
import { ownNodeConfigInProcess } from './node-config-in-process.ts';

/** `--runtime-config` that serves the policy API (beta and alpha in Kubernetes 1.28). */
const POLICY_RUNTIME_CONFIG =
  'admissionregistration.orch.io/v1beta1=true,admissionregistration.orch.io/v1alpha1=true';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Spec {
  name: string;
  about: string;
  options: ServerOptionsInput;
  /**
   * Started with the flags of the run's authentication fixtures (and declared with them):
   * `true` for the first set `orch-conformance fixtures` prints, or the variant it names.
   */
  auth?: true | 'oidc-sub';
  /** Writes its audit log to a file of the run (and is declared with it). */
  auditLog?: true;
  /** Options only known once the run's files and callbacks exist (a configuration file in `dir`). */
  configure?: (run: { dir: string; imagePolicy: ImagePolicyBackend; d: Dialect }) => ServerOptionsInput;
}

/** The off-by-default plugins the reference implements that the `admission-plugins` server has on. */
export const OPTIONAL_PLUGINS: PluginName[] = PLUGIN_ORDER.filter(
  (n) =>
    FACTORIES[n] &&
    !DEFAULT_ENABLED.includes(n) &&
    n !== 'AlwaysDeny' &&
    n !== 'NamespaceAutoProvision' &&
    !NEEDS_CONFIGURATION.includes(n),
);

export const EMBEDDED_SERVERS: Spec[] = [
  {
    name: 'main',
    about: 'the reference server, WatchList gate on',
    options: { featureGates: EMBEDDED_GATES },
  },
  {
    name: 'short-timers',
    about: 'reference server with a 4 s history, 3 s continue tokens, a BOOKMARK every 1 s',
    options: {
      featureGates: EMBEDDED_GATES,
      historySeconds: 4,
      continueTtlSeconds: 3,
      bookmarkIntervalMs: 1000,
    },
  },
  {
    name: 'gates-off',
    about: 'reference server with the WatchList gate off',
    options: { featureGates: { WatchList: false } },
  },
  {
    name: 'policies',
    about:
      'reference server with the ValidatingAdmissionPolicy gate on and admissionregistration.orch.io/v1beta1 and v1alpha1 served (--runtime-config)',
    options: {
      featureGates: { ...EMBEDDED_GATES, ValidatingAdmissionPolicy: true },
      runtimeConfig: POLICY_RUNTIME_CONFIG,
    },
  },
  {
    name: 'auth',
    about: 'reference server trusting the authentication fixtures (every method of doc3)',
    options: { featureGates: EMBEDDED_GATES },
    auth: true,
  },
  {
    name: 'auth-oidc-sub',
    about: 'reference server trusting the authentication fixtures, its OIDC username from the sub claim',
    options: { featureGates: EMBEDDED_GATES },
    auth: 'oidc-sub',
  },
  {
    name: 'audit',
    about: 'reference server writing its audit events to a file the suites read',
    options: { featureGates: EMBEDDED_GATES },
    auditLog: true,
  },
  {
    name: 'admission-plugins',
    about: `reference server with the off-by-default admission plugins on (${OPTIONAL_PLUGINS.join(', ')})`,
    options: { featureGates: EMBEDDED_GATES, enableAdmissionPlugins: OPTIONAL_PLUGINS },
  },
  {
    name: 'admission-event-rate-limit',
    about:
      'reference server with EventRateLimit on (a bucket of every type; the Namespace one holds 5 events, refilled 1 a second)',
    options: { featureGates: EMBEDDED_GATES, enableAdmissionPlugins: ['EventRateLimit'] },
    configure: ({ dir, d }) => {
      const file = join(dir, 'event-rate-limit.json');
      writeFileSync(
        file,
        JSON.stringify(
          d.out({
            apiVersion: 'apiserver.config.orch.io/v1',
            kind: 'AdmissionConfiguration',
            plugins: [{ name: 'EventRateLimit', configuration: EVENT_RATE_LIMIT_CONFIGURATION }],
          }),
        ),
      );
      return { admissionControlConfigFile: file };
    },
  },
  {
    name: 'admission-image-policy',
    about: "reference server with ImagePolicyWebhook on, asking the harness's ImageReview backend",
    options: { featureGates: EMBEDDED_GATES, enableAdmissionPlugins: ['ImagePolicyWebhook'] },
    configure: ({ dir, imagePolicy, d }) => ({
      admissionControlConfigFile: writeImagePolicyFiles(dir, imagePolicy, [], d),
    }),
  },
  {
    name: 'admission-autoprovision',
    about: 'reference server with the NamespaceAutoProvision admission plugin on',
    options: { featureGates: EMBEDDED_GATES, enableAdmissionPlugins: ['NamespaceAutoProvision'] },
  },
  {
    name: 'admission-deny',
    about: 'reference server with the AlwaysDeny admission plugin on',
    // the controllers that write into every namespace (a service account, the root CA map)
    // are refused there for good: off, or their first refusals fill the run's terminal
    options: {
      featureGates: EMBEDDED_GATES,
      enableAdmissionPlugins: ['AlwaysDeny'],
      controllers: ['-serviceaccount', '-root-ca-cert-publisher', '*'],
    },
  },
];

/** What a built server is, as the suites may rely on it. */
export function declaredOf(s: OrchServer): Declared {
  const o = s.options;
  return {
    historySeconds: o.historySeconds,
    continueTtlSeconds: o.continueTtlSeconds,
    bookmarkSeconds: o.bookmarkIntervalMs / 1000,
    // a policy and its binding are in force once written (the admission chain reads the store's
    // watch; on etcd the other server's watch): 2 s bounds it with room
    inForceSeconds: 2,
    featureGates: { ...o.featureGates },
    admissionPlugins: enabledPlugins(o.enableAdmissionPlugins ?? [], o.disableAdmissionPlugins ?? []),
  };
}

export interface Embedded {
  /** The environment that points the suites at the servers (every TARGET_ENV_KEYS key: '' when unused). */
  env: Record<string, string>;
  servers: { name: string; about: string; url: string }[];
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * Every embedded server is two reference servers on one real etcd (each pair under its own
   * key prefix), with one serving certificate and one admin token: the suites alternate their
   * requests between the two (harness `--endpoint A --endpoint B`).
   */
  etcd?: boolean;
  /**
   * The words the servers speak (default orch): `kubernetes` starts every server with
   * `--dialect kubernetes`, and the suites speak to them in Kubernetes' words.
   */
  dialect?: DialectName;
}

/** Starts the embedded servers (HTTPS; in memory, or pairs on a private etcd). */
export async function startEmbedded(opts: EmbeddedOptions = {}): Promise<Embedded> {
  const built: OrchServer[] = [];
  /** With etcd: the second server of each pair, by the first's index. */
  const replicas: OrchServer[] = [];
  // the run's private etcd, thrown away with it: no fsync (the suites check the API, not the
  // disk; the crash tests and `serve --etcd` keep etcd's syncing)
  const etcd = opts.etcd ? await startEtcd({ unsafeNoFsync: true }) : undefined;
  const shared = opts.etcd
    ? { cert: await generateCertificate(), adminToken: `embedded-${randomUUID()}` }
    : undefined;
  const declared: Declared[] = [];
  // the authentication fixtures, and the issuer and webhook the harness serves for them
  const fixturesDir = ownedTempDir('orch-auth-fixtures-');
  const fixtures = await makeAuthFixtures(fixturesDir);
  const callbacks = await startAuthCallbacks(fixtures);
  // the admission plugins' configuration files, and the ImageReview backend they name
  const admissionDir = ownedTempDir('orch-admission-config-');
  const d = dialectOf(opts.dialect ?? 'orch');
  const imagePolicy = await startImagePolicyBackend(d.name === 'orch' ? undefined : d);
  const stopCallbacks = async () => {
    await callbacks.close();
    await imagePolicy.close();
    removeOwnedDir(fixturesDir);
    removeOwnedDir(admissionDir);
  };
  try {
    for (const spec of EMBEDDED_SERVERS) {
      // exactly the flags `orch-conformance fixtures` prints, as a user would start a target
      const variant = spec.auth === 'oidc-sub' ? spec.auth : undefined;
      const authOptions = spec.auth ? parseServeArgs(serverFlags(fixtures, variant))!.options : {};
      const auditLog = spec.auditLog ? join(fixturesDir, `${spec.name}-audit.jsonl`) : undefined;
      const options: ServerOptionsInput = {
        ...authOptions,
        inMemory: true,
        tls: true,
        // a read at a version not yet reached waits this long before its 504 (Kubernetes: 3 s);
        // no case checks the wait, and the future-version rows would otherwise wait 3 s each
        futureRvWaitMs: FUTURE_RV_WAIT_MS,
        // and a deleted namespace is emptied after this (Kubernetes: 5 s; no case checks the wait)
        namespaceDeletionGraceMs: NAMESPACE_GRACE_MS,
        port: 0,
        host: '127.0.0.1',
        ...spec.options,
        ...(spec.options.runtimeConfig ? { runtimeConfig: d.w(spec.options.runtimeConfig) } : {}),
        ...(auditLog ? { auditLogPath: auditLog } : {}),
        ...spec.configure?.({ dir: admissionDir, imagePolicy, d }),
        ...(opts.dialect ? { dialect: opts.dialect } : {}),
        ...(etcd && shared
          ? {
              etcdServers: [etcd.url],
              etcdPrefix: `/registry-${spec.name}`,
              // a declared history window is etcd's too: compacted every half window, a version
              // superseded a window ago is gone for lists as it is for watches
              ...(spec.options.historySeconds
                ? { etcdCompactionIntervalMs: spec.options.historySeconds * 500 }
                : {}),
              tlsKey: shared.cert.key,
              tlsCert: shared.cert.cert,
              tlsCa: shared.cert.ca,
              adminToken: shared.adminToken,
            }
          : {}),
      };
      const s = await build(options);
      built.push(s);
      if (etcd) {
        const r = await build(options);
        replicas[built.length - 1] = r;
        await r.listen();
      }
      declared.push({
        ...declaredOf(s),
        ...(spec.auth
          ? { authFixtures: fixturesDir, authMethods: variant ? [variant] : DEFAULT_AUTH_METHODS }
          : {}),
        ...(auditLog ? { auditLog } : {}),
      });
      await s.listen();
    }
  } catch (e) {
    await Promise.all([...built, ...replicas].map((s) => s?.close().catch(() => undefined)));
    await stopCallbacks();
    await etcd?.stop();
    throw e;
  }
  /** The URLs of a server: one, or the pair's two (comma-separated, as ORCH_ENDPOINT takes them). */
  const urlsOf = (i: number) => [built[i]!.url!, ...(replicas[i] ? [replicas[i]!.url!] : [])].join(',');
  const [main, ...extra] = built as [OrchServer, ...OrchServer[]];
  const env: Record<string, string> = {
    // what a user's shell may hold about another target is blanked, not inherited
    ...EMPTY_TARGET_ENV,
    ORCH_ENDPOINT: urlsOf(0),
    ORCH_TOKEN: main.adminToken,
    ORCH_CA: main.caPem!,
    ORCH_EMBEDDED: '1',
    // the servers end with the run: the suites leave their namespaces to that
    [DISPOSABLE_ENV]: '1',
    ...declaredToEnv(declaredOf(main)),
    // the health cases start reference servers of their own (a data directory to break, SIGTERM)
    [SERVER_COMMAND_ENV]: referenceServerCommand(ROOT, d.name),
    ORCH_DIALECT: d.name,
    // the node agent configuration cases call this repository's validator and defaulter in their
    // own worker, not as a process per file (runs against a cluster start the command; so do the
    // CLI's own tests, scripts/test/node-config-cli.test.ts)
    ...ownNodeConfigInProcess(),
    ORCH_EXTRA_TARGETS: JSON.stringify(
      extra.map(
        (s, i): ExtraTargetSpec => ({
          name: EMBEDDED_SERVERS[i + 1]!.name,
          about: EMBEDDED_SERVERS[i + 1]!.about,
          url: urlsOf(i + 1),
          token: s.adminToken,
          ca: s.caPem,
          declared: declared[i + 1]!,
        }),
      ),
    ),
  };
  return {
    env,
    servers: built.map((_s, i) => ({
      name: EMBEDDED_SERVERS[i]!.name,
      about:
        d.w(EMBEDDED_SERVERS[i]!.about) +
        (etcd ? ` (two servers on etcd ${etcd.url}, prefix /registry-${EMBEDDED_SERVERS[i]!.name})` : ''),
      url: urlsOf(i),
    })),
    close: async () => {
      await Promise.all([...built, ...replicas].map((s) => s?.close()));
      await stopCallbacks();
      await etcd?.stop();
    },
  };
}
