// The reference server: `build(options)` wires storage, registry, admission, authentication
// and the HTTP handler without opening a socket; `listen()` serves it over HTTPS (default)
// or plain HTTP. Each component wires itself (server/); build() assembles them in the order
// they depend on each other.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdmissionChain } from './admission/chain.ts';
import type { MemoryAuditSink } from './audit/sinks.ts';
import type { AuthenticationUnion } from './authentication/union.ts';
import type { AuthorizerChain } from './authorization/chain.ts';
import type { AuthorizationSetup } from './authorization/configure.ts';
import { installReviews } from './authorization/reviews.ts';
import { resolveOptions, type ServerOptions, type ServerOptionsInput } from './config.ts';
import { startApiServerService } from './controllers/apiserver-service.ts';
import { startAuthenticationInfo } from './controllers/authentication-info.ts';
import type { Controller } from './controllers/types.ts';
import { FlowClassifier } from './flowcontrol/classifier.ts';
import { HealthChecks } from './health/checks.ts';
import { addHealthChecks } from './health/server-checks.ts';
import { type CertBundle, ensureCertificate } from './http/tls.ts';
import type { MetricsRegistry } from './metrics/registry.ts';
import type { ActiveWatches } from './registry/active-watches.ts';
import type { Registry } from './registry/registry.ts';
import { applyRuntimeConfig, runtimeConfigOf } from './server/api-enablement.ts';
import { type AuditSetup, wireAudit } from './server/audit.ts';
import {
  type AuthenticationSetup,
  clusterAuthenticationInfo,
  wireAuthentication,
} from './server/authentication.ts';
import { type AdmissionPlugins, wireAdmission, wireAuthorization } from './server/authorization.ts';
import { type Controllers, wireControllers } from './server/controllers.ts';
import { wireHandler } from './server/handler.ts';
import { Listener } from './server/listener.ts';
import { checkShowHiddenMetrics, type MetricsSetup, wireMetrics } from './server/metrics.ts';
import { type PostStart, startPostStart } from './server/post-start.ts';
import { openStorage, wireRegistry } from './server/storage.ts';
import { ensureSystemObjects, type FlowControlSetup, wireFlowControl } from './server/system-objects.ts';
import type { MemoryStore } from './storage/memory.ts';
import type { Storage } from './storage/types.ts';
import { DIALECT } from './util/dialect.ts';

export { SERVER_RELEASE, SERVER_VERSION } from './server/version.ts';

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

export async function build(partial: ServerOptionsInput = {}): Promise<OrchServer> {
  // another dialect: the same sources built in its words, asked to build the server
  if (partial.dialect !== undefined && partial.dialect !== DIALECT) {
    const { dialectBuild } = await import('./server/dialect-build.ts');
    const other = (await dialectBuild(partial.dialect)) as { build: typeof build };
    return other.build(partial);
  }
  const options = resolveOptions(partial);
  // --runtime-config: its form is checked before anything opens, its names once the kinds are in
  const runtimeConfig = runtimeConfigOf(options);
  // an audit policy or log that cannot be used stops the start before anything is opened
  const audit = wireAudit(options);
  checkShowHiddenMetrics(options);
  // the serving certificate, known before the server listens: the root-CA publisher hands its CA out
  const cert = options.tls ? await ensureCertificate(options) : undefined;
  const { storage, storeDir } = await openStorage(options);
  const admission = new AdmissionChain();
  const { registry, watches } = wireRegistry(options, storage);
  // API priority and fairness: the FlowSchemas and priority levels, as requests are classified
  const flowcontrol = new FlowClassifier(registry);
  const metrics = wireMetrics(options, registry, storage, storeDir, flowcontrol);
  const authn = await wireAuthentication(options, registry, storage);
  const authz = wireAuthorization(options, registry);
  const plugins = wireAdmission(admission, options, registry, authz);
  installReviews(registry, authz, authn.authentication);
  try {
    applyRuntimeConfig(registry, runtimeConfig);
  } catch (e) {
    authn.tokens.stop();
    authn.signer?.stop();
    authz.stop();
    for (const p of plugins) p.close?.();
    await storage.close();
    throw e;
  }
  const health = new HealthChecks(Date.now() + options.livezGracePeriodMs);
  // the API server's own Service, kept once the server listens (assemble's listen)
  const apiServerService: { controller?: Controller } = {};
  const listener = new Listener(options, cert, authn.clientCertificateTls);
  const handle = wireHandler({
    options,
    registry,
    authn,
    authz,
    admission,
    audit,
    metrics,
    health,
    listener,
    flowcontrol,
  });
  await ensureSystemObjects(registry);
  const flowControl = await wireFlowControl(registry);
  const controllers = await wireControllers(options, registry, admission, cert);
  // the cluster's authentication information for extension API servers
  const authenticationInfo = startAuthenticationInfo(registry, clusterAuthenticationInfo(options));
  await authenticationInfo.ready;
  await authz.start();
  const postStart = await startPostStart(options, registry);
  addHealthChecks(health, {
    storage,
    crdSynced: () => postStart.crdController.synced,
    rbac: options.authorizationModes.includes('RBAC'),
    shuttingDown: () => listener.shuttingDown,
    apiServicesPending: () => postStart.apiServices.pending(),
    apiServerService: () => (apiServerService.controller ? undefined : 'the server does not listen yet'),
  });
  const parts = {
    options,
    cert,
    storage,
    watches,
    registry,
    admission,
    metrics,
    authn,
    authz,
    plugins,
    flowcontrol,
  };
  return assemble({
    ...parts,
    audit,
    health,
    listener,
    handle,
    flowControl,
    controllers,
    postStart,
    authenticationInfo,
    apiServerService,
  });
}

/** What build() wired, for the server object and its close. */
interface Parts {
  options: ServerOptions;
  cert?: CertBundle;
  storage: MemoryStore;
  watches: ActiveWatches;
  registry: Registry;
  admission: AdmissionChain;
  audit: AuditSetup;
  metrics: MetricsSetup;
  authn: AuthenticationSetup;
  authz: AuthorizationSetup;
  plugins: AdmissionPlugins;
  health: HealthChecks;
  listener: Listener;
  handle: ReturnType<typeof wireHandler>;
  flowControl: FlowControlSetup;
  controllers: Controllers;
  postStart: PostStart;
  flowcontrol: FlowClassifier;
  authenticationInfo: Controller;
  /** The API server's own Service, its controller started once the server listens. */
  apiServerService: { controller?: Controller };
}

/** Stops what build() started, in this order, then closes the store and the audit sinks. */
async function stopAll(p: Parts): Promise<void> {
  p.postStart.crdController.stop();
  p.postStart.policyStatus.stop();
  p.flowControl.status.stop();
  p.flowControl.stopKeeping();
  p.postStart.apiServices.stop();
  p.controllers.stop();
  p.apiServerService.controller?.stop();
  p.authenticationInfo.stop();
  p.flowcontrol.stop();
  p.authn.signer?.stop();
  p.authn.tokens.stop();
  p.authz.stop();
  for (const plugin of p.plugins) plugin.close?.();
  await p.storage.close();
  for (const sink of p.audit.sinks) await sink.close?.();
}

function assemble(p: Parts): OrchServer {
  const srv: OrchServer = {
    options: p.options,
    registry: p.registry,
    storage: p.storage,
    admission: p.admission,
    authentication: p.authn.authentication,
    authorization: p.authz.chain,
    authz: p.authz,
    health: p.health,
    audit: p.audit.memory,
    metrics: p.metrics.metrics,
    adminToken: p.authn.adminToken,
    handle: (req, res) => void p.handle(req, res),
    caPem: p.cert?.ca,
    async listen() {
      const r = await p.listener.listen(srv.handle);
      srv.url = r.url;
      // the API server's own Service, once its port is known
      p.apiServerService.controller ??= startApiServerService(p.registry, r.port);
      await p.apiServerService.controller.ready;
      return r;
    },
    async shutdown() {
      await p.listener.drain(p.watches);
      await srv.close();
    },
    async close() {
      await p.listener.close();
      await stopAll(p);
    },
  };
  return srv;
}
