// What the HTTP layer is built from: the registry, the stages of a request, and the routes
// that are not resources.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmissionChain } from '../admission/chain.ts';
import type { PolicyEvaluator } from '../audit/policy.ts';
import type { AuditSink } from '../audit/types.ts';
import type { AuthenticationUnion } from '../authentication/union.ts';
import type { AuthorizerChain } from '../authorization/chain.ts';
import type { FlowClassifier } from '../flowcontrol/classifier.ts';
import type { Handler } from '../handlers/scope.ts';
import type { RequestMetrics } from '../metrics/requests.ts';
import type { Registry } from '../registry/registry.ts';
import type { RequestLog } from './request-log.ts';

export type NonResourceRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) => boolean | Promise<boolean>;

export interface HttpDeps {
  registry: Registry;
  authn: AuthenticationUnion;
  authz: AuthorizerChain;
  admission: AdmissionChain;
  audit: readonly AuditSink[];
  /** `--audit-policy-file`: each request's level and stages (without it, every request at Metadata, one event). */
  auditPolicy?: PolicyEvaluator;
  maxBodyBytes: number;
  compression: () => boolean;
  version: Record<string, string>;
  serverAddress: () => string;
  health: (res: ServerResponse, url: URL) => Promise<boolean>;
  /** Extra non-resource routes (openapi, ...). */
  routes: NonResourceRoute[];
  /** Handlers of subresources wired by the server, by `<plural>/<subresource>` (serviceaccounts/token). */
  subresourceHandlers?: Readonly<Record<string, Handler>>;
  /** The request metrics (none: nothing is recorded). */
  metrics?: RequestMetrics;
  /** The request log (`-v 3` and up; none: nothing is logged). */
  requestLog?: RequestLog;
  /** API priority and fairness: each request's FlowSchema and priority level, said in its response headers. */
  flowcontrol?: Pick<FlowClassifier, 'classify'>;
}
