// Metrics: the registry /metrics exposes (with the storage and build-info series), the request
// series and the non-resource routes (/metrics, /openapi).
import type { ServerOptions } from '../config.ts';
import { ConfigurationError } from '../errors/config-error.ts';
import type { FlowClassifier } from '../flowcontrol/classifier.ts';
import { metricsRoute } from '../http/metrics.ts';
import { openapiRoute } from '../http/openapi/index.ts';
import type { NonResourceRoute } from '../http/server.ts';
import { registerBuildInfo } from '../metrics/build-info.ts';
import { registerFlowControlMetrics } from '../metrics/flowcontrol.ts';
import { showHiddenProblem } from '../metrics/lifecycle.ts';
import { MetricsRegistry } from '../metrics/registry.ts';
import { RequestMetrics } from '../metrics/requests.ts';
import { registerStorageMetrics } from '../metrics/storage.ts';
import type { Registry } from '../registry/registry.ts';
import type { Storage } from '../storage/types.ts';
import { SERVER_RELEASE, SERVER_VERSION } from './version.ts';

/** `--show-hidden-metrics-for-version` other than the previous minor release stops the start. */
export function checkShowHiddenMetrics(options: ServerOptions): void {
  const hiddenProblem = showHiddenProblem(options.showHiddenMetricsForVersion, SERVER_RELEASE);
  if (hiddenProblem) throw new ConfigurationError(hiddenProblem);
}

export interface MetricsSetup {
  metrics: MetricsRegistry;
  requestMetrics: RequestMetrics;
  routes: NonResourceRoute[];
}

export function wireMetrics(
  options: ServerOptions,
  registry: Registry,
  storage: Storage,
  storeDir: string | undefined,
  flowcontrol: FlowClassifier,
): MetricsSetup {
  const metrics = new MetricsRegistry({
    release: SERVER_RELEASE,
    showHiddenFor: options.showHiddenMetricsForVersion,
  });
  const requestMetrics = new RequestMetrics(metrics);
  registerStorageMetrics(metrics, registry, storage, storeDir);
  registerFlowControlMetrics(metrics, flowcontrol);
  registerBuildInfo(metrics, SERVER_VERSION);
  const routes: NonResourceRoute[] = [
    openapiRoute(registry, { version: SERVER_VERSION.gitVersion }),
    metricsRoute(metrics),
  ];
  return { metrics, requestMetrics, routes };
}
