// The request handler: the HTTP pipeline over the components (authentication, authorization,
// admission, audit, metrics, health, the non-resource routes and the token subresource).
import type { AdmissionChain } from '../admission/chain.ts';
import type { AuthorizationSetup } from '../authorization/configure.ts';
import type { ServerOptions } from '../config.ts';
import type { FlowClassifier } from '../flowcontrol/classifier.ts';
import { tokenRequestHandler } from '../handlers/token-request.ts';
import type { HealthChecks } from '../health/checks.ts';
import { healthHandler } from '../http/health.ts';
import { REQUEST_LOG_VERBOSITY, requestLog } from '../http/request-log.ts';
import { createHandlerFn } from '../http/server.ts';
import type { Registry } from '../registry/registry.ts';
import type { AuditSetup } from './audit.ts';
import type { AuthenticationSetup } from './authentication.ts';
import type { Listener } from './listener.ts';
import type { MetricsSetup } from './metrics.ts';
import { SERVER_VERSION } from './version.ts';

export interface HandlerParts {
  options: ServerOptions;
  registry: Registry;
  authn: AuthenticationSetup;
  authz: AuthorizationSetup;
  admission: AdmissionChain;
  audit: AuditSetup;
  metrics: MetricsSetup;
  health: HealthChecks;
  /** Knows the server's address once it listens. */
  listener: Listener;
  flowcontrol: FlowClassifier;
}

export function wireHandler(p: HandlerParts): ReturnType<typeof createHandlerFn> {
  return createHandlerFn({
    registry: p.registry,
    authn: p.authn.authentication,
    authz: p.authz.chain,
    admission: p.admission,
    audit: p.audit.sinks,
    auditPolicy: p.audit.policy,
    maxBodyBytes: p.options.maxBodyBytes,
    compression: () => p.options.featureGates.APIResponseCompression,
    version: SERVER_VERSION,
    serverAddress: () => p.listener.url.replace(/^https?:\/\//, ''),
    health: healthHandler(p.health),
    routes: p.metrics.routes,
    subresourceHandlers: { 'serviceaccounts/token': tokenRequestHandler(p.authn.tokens) },
    metrics: p.metrics.requestMetrics,
    flowcontrol: p.flowcontrol,
    requestLog:
      (p.options.verbosity ?? 0) >= REQUEST_LOG_VERBOSITY
        ? requestLog((line) => process.stderr.write(line))
        : undefined,
  });
}
