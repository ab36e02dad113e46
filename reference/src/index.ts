// The reference server: `build(options)` wires storage, registry, admission, authentication
// and the HTTP handler without opening a socket; `listen()` serves it over HTTPS (default)
// or plain HTTP.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AdmissionChain } from './admission/chain.ts';
import { loadAdmissionConfig } from './admission/config-file.ts';
import { enabledPlugins, FACTORIES } from './admission/plugins/catalog.ts';
import { escalationPlugin } from './admission/plugins/rbac-escalation.ts';
import { PolicyStatusController } from './admission/policy/status-controller.ts';
import { loadAuditPolicyFile, PolicyEvaluator } from './audit/policy.ts';
import { LogAuditSink, MemoryAuditSink } from './audit/sinks.ts';
import type { AuditSink } from './audit/types.ts';
import { type ClientCertificateTls, configureAuthentication } from './authentication/configure.ts';
import { configureTokenAuthentication } from './authentication/configure-tokens.ts';
import { StaticTokenAuthenticator } from './authentication/token-file.ts';
import { AuthenticationUnion } from './authentication/union.ts';
import type { AuthorizerChain } from './authorization/chain.ts';
import { type AuthorizationSetup, configureAuthorization } from './authorization/configure.ts';
import { installReviews } from './authorization/reviews.ts';
import { resolveOptions, type ServerOptions, type ServerOptionsInput } from './config.ts';
import type { AdmissionFor } from './controllers/client.ts';
import { startControllers } from './controllers/manager.ts';
import { ConfigurationError } from './errors/config-error.ts';
import { unlessExists } from './errors/status.ts';
import { tokenRequestHandler } from './handlers/token-request.ts';
import { HealthChecks } from './health/checks.ts';
import { addHealthChecks } from './health/server-checks.ts';
import { healthHandler } from './http/health.ts';
import { metricsRoute } from './http/metrics.ts';
import { openapiRoute } from './http/openapi/index.ts';
import {
  clientErrorHandler,
  connectMethodHandler,
  createHandlerFn,
  type NonResourceRoute,
} from './http/server.ts';
import { type CertBundle, ensureCertificate } from './http/tls.ts';
import { registerBuildInfo } from './metrics/build-info.ts';
import { showHiddenProblem } from './metrics/lifecycle.ts';
import { MetricsRegistry } from './metrics/registry.ts';
import { RequestMetrics } from './metrics/requests.ts';
import { registerStorageMetrics } from './metrics/storage.ts';
import { ActiveWatches } from './registry/active-watches.ts';
import { startAPIServices } from './registry/apiservices.ts';
import { type CsrSigner, startCsrSigner } from './registry/certificates/signer.ts';
import { loadSigningCa } from './registry/certificates/signing-ca.ts';
import {
  ensureFlowControlConfiguration,
  keepFlowControlConfiguration,
  startFlowSchemaStatus,
} from './registry/flowcontrol-config.ts';
import { startCrdController } from './registry/kinds/crd/index.ts';
import { installBuiltins } from './registry/kinds/index.ts';
import { SYSTEM_NAMESPACES } from './registry/kinds/namespace.ts';
import { SYSTEM_PRIORITY_CLASSES, systemPriorityClass } from './registry/kinds/priorityclass.ts';
import { Registry } from './registry/registry.ts';
import {
  parseRuntimeConfig,
  priorityAndFairnessConflict,
  type RuntimeConfig,
  RuntimeConfigError,
} from './registry/runtime-config.ts';
import type { RequestContext } from './registry/types.ts';
import { MemoryStore } from './storage/memory.ts';
import type { Storage } from './storage/types.ts';
import { WriteAheadLog } from './storage/wal.ts';
import { newToken } from './util/token.ts';

/** The request line and headers a request may have, as Kubernetes' API server allows (1 MiB); past it, 431. */
const MAX_HEADER_BYTES = 1 << 20;

export const SERVER_VERSION = {
  major: '1',
  minor: '28',
  gitVersion: 'v1.28.0-orch.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: 'go1.20',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/**
 * Feature gates of the embedded server that conformance runs start: the alpha WatchList gate
 * is on so the "Streaming initial state" cases run (a standalone server keeps it off).
 */
export const EMBEDDED_GATES = { WatchList: true };

export interface OrchServer {
  options: ServerOptions;
  registry: Registry;
  storage: Storage;
  admission: AdmissionChain;
  authentication: AuthenticationUnion;
  authorization: AuthorizerChain;
  /** The authorization modes, the RBAC policy and its controllers. */
  authz: AuthorizationSetup;
  health: HealthChecks;
  /** The audit events of the last requests (`auditInMemory` of them), when asked for. */
  audit?: MemoryAuditSink;
  /** The metrics /metrics exposes. */
  metrics: MetricsRegistry;
  adminToken: string;
  /** The request handler (no socket needed). */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  listen(): Promise<{ url: string; port: number }>;
  url?: string;
  /** PEM of the CA that issued the serving certificate (HTTPS only). */
  caPem?: string;
  /**
   * Graceful shutdown (SIGTERM): /readyz fails at once while requests are still served for
   * `shutdownDelayMs`; then no new connection is accepted, requests in flight finish, each
   * watch ends (a last BOOKMARK where asked for), and the server closes.
   */
  shutdown(): Promise<void>;
  /** Closes at once: connections are cut. */
  close(): Promise<void>;
}

/** The release the server is (`1.28`): what its metrics' deprecations are judged against. */
export const SERVER_RELEASE = `${SERVER_VERSION.major}.${SERVER_VERSION.minor}`;

export async function build(partial: ServerOptionsInput = {}): Promise<OrchServer> {
  const options = resolveOptions(partial);
  // --runtime-config: its form is checked before anything opens, its names once the kinds are in
  const runtimeConfig = runtimeConfigOf(
    options.runtimeConfig,
    options.featureGates.APIPriorityAndFairness === true,
  );
  // an audit policy or log that cannot be used stops the start before anything is opened
  const auditPolicy = options.auditPolicyFile
    ? new PolicyEvaluator(loadAuditPolicyFile(options.auditPolicyFile))
    : undefined;
  const auditMemory = options.auditInMemory ? new MemoryAuditSink(options.auditInMemory) : undefined;
  const auditSinks: AuditSink[] = auditMemory ? [auditMemory] : [];
  if (options.auditLogPath)
    auditSinks.push(
      new LogAuditSink(options.auditLogPath, {
        format: options.auditLogFormat,
        maxSizeMB: options.auditLogMaxSize,
        maxBackups: options.auditLogMaxBackup,
        maxAgeDays: options.auditLogMaxAge,
        compress: options.auditLogCompress,
      }),
    );
  const hiddenProblem = showHiddenProblem(options.showHiddenMetricsForVersion, SERVER_RELEASE);
  if (hiddenProblem) throw new ConfigurationError(hiddenProblem);
  // the serving certificate, known before the server listens: the root-CA publisher hands its CA out
  const cert: CertBundle | undefined = options.tls ? await ensureCertificate(options) : undefined;
  const storeOpts = { historyMs: options.historySeconds * 1000, now: options.clock };
  const storage: MemoryStore = options.etcdServers?.length
    ? // the etcd client (grpc) loads only for a server on etcd
      await (await import('./storage/etcd/store.ts')).EtcdStore.open({
        ...storeOpts,
        servers: options.etcdServers,
        prefix: options.etcdPrefix,
        caFile: options.etcdCaFile,
        certFile: options.etcdCertFile,
        keyFile: options.etcdKeyFile,
        compactionIntervalMs: options.etcdCompactionIntervalMs,
      })
    : options.inMemory
      ? new MemoryStore(storeOpts)
      : WriteAheadLog.open({
          ...storeOpts,
          dir: join(options.dataDir, 'store'),
          sync: options.fsync,
          compactBytes: options.compactBytes,
        });
  const storeDir =
    options.etcdServers?.length || options.inMemory ? undefined : join(options.dataDir, 'store');
  const admission = new AdmissionChain();
  const watches = new ActiveWatches();
  const registry = new Registry(storage, {
    watches,
    futureRvWaitMs: options.futureRvWaitMs,
    continueTtlMs: options.continueTtlSeconds * 1000,
    watchTimeoutSeconds: options.watchTimeoutSeconds,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    gates: {
      WatchList: options.featureGates.WatchList,
      APIListChunking: options.featureGates.APIListChunking,
    },
    now: options.clock,
  });
  installBuiltins(registry);
  const metrics = new MetricsRegistry({
    release: SERVER_RELEASE,
    showHiddenFor: options.showHiddenMetricsForVersion,
  });
  const requestMetrics = new RequestMetrics(metrics);
  registerStorageMetrics(metrics, registry, storage, storeDir);
  registerBuildInfo(metrics, SERVER_VERSION);
  const routes: NonResourceRoute[] = [
    openapiRoute(registry, { version: SERVER_VERSION.gitVersion }),
    metricsRoute(metrics),
  ];

  const adminToken = options.adminToken || newToken();
  const authentication = new AuthenticationUnion(
    [
      new StaticTokenAuthenticator(
        new Map([[adminToken, { username: 'orch-admin', uid: 'orch-admin', groups: ['system:masters'] }]]),
      ),
    ],
    // doc3: anonymous access is never on together with the AlwaysAllow mode
    options.anonymous && !options.authorizationModes.includes('AlwaysAllow'),
  );
  let clientCertificateTls: ClientCertificateTls;
  let signer: CsrSigner | undefined;
  let tokens: ReturnType<typeof configureTokenAuthentication> | undefined;
  try {
    // certificates and the authenticating proxy first, then the token methods
    clientCertificateTls = configureAuthentication(options, authentication);
    tokens = configureTokenAuthentication(options, registry, authentication);
    if (options.clusterSigningCertFile && options.clusterSigningKeyFile)
      signer = startCsrSigner(
        registry,
        await loadSigningCa(options.clusterSigningCertFile, options.clusterSigningKeyFile),
        options.clock,
      );
  } catch (e) {
    // a key or connection file that does not load: nothing may stay open
    tokens?.stop();
    await storage.close();
    throw e;
  }
  const authz = configureAuthorization(options.authorizationModes, registry, {
    configFile: options.authorizationWebhookConfigFile,
    version: options.authorizationWebhookVersion,
    authorizedTtlMs: options.authorizationWebhookCacheAuthorizedTtlMs,
    unauthorizedTtlMs: options.authorizationWebhookCacheUnauthorizedTtlMs,
  });
  const authorization = authz.chain;
  // escalation prevention runs before the configured plugins, whatever they are
  const escalation = escalationPlugin(authz.rbac, authorization);
  admission.addSource(() => [escalation]);
  // the built-in plugins, in the catalog's order; each made once with its configuration
  const pluginConfig = options.admissionControlConfigFile
    ? loadAdmissionConfig(options.admissionControlConfigFile)
    : new Map();
  const plugins = enabledPlugins(
    options.enableAdmissionPlugins ?? [],
    options.disableAdmissionPlugins ?? [],
  ).map((n) => FACTORIES[n]!({ registry, authorizer: authorization, options, config: pluginConfig.get(n) }));
  admission.addSource(() => plugins);
  installReviews(registry, authz, authentication);
  try {
    applyRuntimeConfig(registry, runtimeConfig);
  } catch (e) {
    tokens?.stop();
    signer?.stop();
    authz.stop();
    for (const p of plugins) p.close?.();
    await storage.close();
    throw e;
  }
  const health = new HealthChecks(Date.now() + options.livezGracePeriodMs);
  let shuttingDown = false;
  let url = '';
  const handle = createHandlerFn({
    registry,
    authn: authentication,
    authz: authorization,
    admission,
    audit: auditSinks,
    auditPolicy,
    maxBodyBytes: options.maxBodyBytes,
    compression: () => options.featureGates.APIResponseCompression,
    version: SERVER_VERSION,
    serverAddress: () => url.replace(/^https?:\/\//, ''),
    health: healthHandler(health),
    routes,
    subresourceHandlers: { 'serviceaccounts/token': tokenRequestHandler(tokens!) },
    metrics: requestMetrics,
  });

  // system namespaces (another server on the same etcd may make them at the same moment: theirs stands)
  const ns = registry.byResource('', 'namespaces')!.store;
  const system: RequestContext = {
    user: { username: 'system:apiserver', groups: ['system:masters'] },
    warnings: [],
    dryRun: false,
  };
  for (const name of SYSTEM_NAMESPACES) {
    if (!ns.getStored('', name))
      await unlessExists(
        ns.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, system, 'v1'),
      );
  }
  // the system priority classes (as Kubernetes creates them at start)
  const pcs = registry.byResource('scheduling.orch.io', 'priorityclasses')!.store;
  for (const c of SYSTEM_PRIORITY_CLASSES)
    if (!pcs.getStored('', c.name)) await unlessExists(pcs.create('', systemPriorityClass(c), system, 'v1'));
  // the priority-and-fairness configuration objects, and the FlowSchemas' Dangling condition
  await ensureFlowControlConfiguration(registry);
  const stopFlowControlConfiguration = keepFlowControlConfiguration(registry);
  const flowSchemaStatus = startFlowSchemaStatus(registry);
  // the controllers `--controllers` selects; their writes are admitted as any client's are.
  // Every namespace has its `default` service account before requests come (pods need it).
  const admitControllerWrite: AdmissionFor = (a) => {
    const group = registry.canonicalGroup(a.group);
    const gvk = { group, version: a.version, kind: a.kind };
    const gvr = { group, version: a.version, resource: a.plural };
    return admission.forRequest({
      requestKind: gvk,
      requestResource: gvr,
      kind: gvk,
      resource: gvr,
      subresource: a.subresource,
      options: a.options,
      ctx: a.ctx,
    });
  };
  const controllers = startControllers(
    { registry, admission: admitControllerWrite, now: options.clock ?? Date.now },
    // servers sharing one store (etcd) elect the one that runs them
    {
      controllers: options.controllers,
      caBundle: cert?.ca ?? '',
      leaderElect: !!options.etcdServers?.length,
      namespaceDeletionGraceMs: options.namespaceDeletionGraceMs,
    },
  );
  await controllers.ready;
  await authz.start();
  // custom resources of stored definitions are served again; the controller then watches them
  const crdController = startCrdController(registry);
  // an APIService per served group version, and their Available condition
  const apiServices = await startAPIServices(registry);
  // the policies' type checking, written to their status (with the policy gate on)
  const policyStatus = new PolicyStatusController(registry);
  if (options.featureGates.ValidatingAdmissionPolicy) policyStatus.start();
  addHealthChecks(health, {
    storage,
    crdSynced: () => crdController.synced,
    rbac: options.authorizationModes.includes('RBAC'),
    shuttingDown: () => shuttingDown,
    apiServicesPending: () => apiServices.pending(),
  });

  let server: Server | undefined;
  const srv: OrchServer = {
    options,
    registry,
    storage,
    admission,
    authentication,
    authorization,
    authz,
    health,
    audit: auditMemory,
    metrics,
    adminToken,
    handle: (req, res) => void handle(req, res),
    caPem: cert?.ca,
    async listen() {
      if (cert) {
        server = createHttpsServer(
          {
            key: cert.key,
            cert: cert.cert,
            requireHostHeader: false,
            maxHeaderSize: MAX_HEADER_BYTES,
            ...clientCertificateTls,
          },
          srv.handle,
        );
      } else {
        server = createHttpServer({ requireHostHeader: false, maxHeaderSize: MAX_HEADER_BYTES }, srv.handle);
      }
      // requests the HTTP parser refuses still get a Status (400, 431)
      server.on('clientError', clientErrorHandler);
      server.on('connect', connectMethodHandler);
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = 66_000;
      // the whole request (headers and body) must arrive within a minute; watch replies may last longer
      server.requestTimeout = 60_000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(options.port, options.host, () => resolve());
      });
      const port = (server.address() as AddressInfo).port;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      url = `${options.tls ? 'https' : 'http'}://${host}:${port}`;
      srv.url = url;
      return { url, port };
    },
    async shutdown() {
      shuttingDown = true;
      await new Promise((r) => setTimeout(r, options.shutdownDelayMs));
      if (server) {
        const closed = new Promise<void>((r) => server!.close(() => r()));
        watches.endAll();
        // keep-alive connections close as soon as their request is done; after a minute
        // (the longest a request may take to arrive) whatever is left is cut
        const idle = setInterval(() => server!.closeIdleConnections(), 50);
        const cut = setTimeout(() => server!.closeAllConnections(), 60_000);
        await closed;
        clearInterval(idle);
        clearTimeout(cut);
        server = undefined;
      }
      await srv.close();
    },
    async close() {
      shuttingDown = true;
      if (server) {
        server.closeAllConnections?.();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      crdController.stop();
      policyStatus.stop();
      flowSchemaStatus.stop();
      stopFlowControlConfiguration();
      apiServices.stop();
      controllers.stop();
      signer?.stop();
      tokens!.stop();
      authz.stop();
      for (const p of plugins) p.close?.();
      await storage.close();
      for (const sink of auditSinks) await sink.close?.();
    },
  };
  return srv;
}

/**
 * `--runtime-config` parsed; a malformed one, or one that switches off what API priority and
 * fairness needs while its gate is on, is a ConfigurationError (the command line reports it as a
 * usage error).
 */
function runtimeConfigOf(s: string, priorityAndFairness: boolean): RuntimeConfig {
  let rc: RuntimeConfig;
  try {
    rc = parseRuntimeConfig(s);
  } catch (e) {
    if (e instanceof RuntimeConfigError) throw new ConfigurationError(`--runtime-config: ${e.message}`);
    throw e;
  }
  const conflict = priorityAndFairness ? priorityAndFairnessConflict(s) : undefined;
  if (conflict) throw new ConfigurationError(conflict);
  return rc;
}

/**
 * Serves the built-in group versions and resources `--runtime-config` and 1.28's defaults
 * select (registry/api-enablement.ts); one it names that the server lacks, or switching off the
 * core group version (namespaces, service accounts and the server's own objects live there), is
 * a ConfigurationError.
 */
function applyRuntimeConfig(registry: Registry, rc: RuntimeConfig): void {
  try {
    registry.configure(rc);
  } catch (e) {
    if (e instanceof RuntimeConfigError) throw new ConfigurationError(`--runtime-config: ${e.message}`);
    throw e;
  }
  if (!registry.lookup('', 'v1', 'namespaces'))
    throw new ConfigurationError(
      '--runtime-config: the core group version v1 cannot be switched off (with api/all=false or api/ga=false, add v1=true)',
    );
}
