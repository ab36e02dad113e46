// The metrics the reference server exposes, with Kubernetes 1.28's names, types, label names,
// buckets, stability levels and deprecation releases (k8s.io/apiserver and component-base
// of 1.28; names, types and labels are checked against a 1.28 server's /metrics in the tests).
import type { LifecycleFacts } from './lifecycle.ts';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricDescriptor extends LifecycleFacts {
  name: string;
  help: string;
  type: MetricType;
  /** Label names, in the order values are given. */
  labels: readonly string[];
  /** Histogram upper bounds (without +Inf). */
  buckets?: readonly number[];
}

/** ExponentialBuckets(start, factor, count) of the Prometheus Go client. */
function exponential(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}

/** The request latency buckets of 1.28 (apiserver_request_duration_seconds, etcd_request_duration_seconds). */
const LATENCY_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
/** The SLI latency buckets of 1.28 (apiserver_request_sli_duration_seconds and its deprecated _slo_ twin). */
const SLI_BUCKETS = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** Labels of the request counter, in the order RequestMetrics gives them. */
export const REQUEST_LABELS = [
  'verb',
  'dry_run',
  'group',
  'version',
  'resource',
  'subresource',
  'scope',
  'component',
] as const;
const NO_DRY_RUN = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

export const REQUEST_TOTAL: MetricDescriptor = {
  name: 'apiserver_request_total',
  help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  type: 'counter',
  labels: [...REQUEST_LABELS, 'code'],
  stability: 'STABLE',
};

export const REQUEST_DURATION: MetricDescriptor = {
  name: 'apiserver_request_duration_seconds',
  help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  type: 'histogram',
  labels: REQUEST_LABELS,
  buckets: LATENCY_BUCKETS,
  stability: 'STABLE',
};

const SLI_HELP =
  'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.';

export const REQUEST_SLI_DURATION: MetricDescriptor = {
  name: 'apiserver_request_sli_duration_seconds',
  help: SLI_HELP,
  type: 'histogram',
  labels: NO_DRY_RUN,
  buckets: SLI_BUCKETS,
  stability: 'ALPHA',
};

/** Deprecated in 1.27 for apiserver_request_sli_duration_seconds: hidden in 1.28. */
export const REQUEST_SLO_DURATION: MetricDescriptor = {
  ...REQUEST_SLI_DURATION,
  name: 'apiserver_request_slo_duration_seconds',
  deprecatedVersion: '1.27',
};

export const RESPONSE_SIZES: MetricDescriptor = {
  name: 'apiserver_response_sizes',
  help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
  type: 'histogram',
  labels: NO_DRY_RUN,
  buckets: exponential(100, 10, 8),
  stability: 'STABLE',
};

export const CURRENT_INFLIGHT: MetricDescriptor = {
  name: 'apiserver_current_inflight_requests',
  help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  type: 'gauge',
  labels: ['request_kind'],
  stability: 'STABLE',
};

export const LONGRUNNING: MetricDescriptor = {
  name: 'apiserver_longrunning_requests',
  help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
  type: 'gauge',
  labels: NO_DRY_RUN,
  stability: 'STABLE',
};

export const REQUESTED_DEPRECATED_APIS: MetricDescriptor = {
  name: 'apiserver_requested_deprecated_apis',
  help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
  type: 'gauge',
  labels: ['group', 'version', 'resource', 'subresource', 'removed_release'],
  stability: 'STABLE',
};

export const STORAGE_OBJECTS: MetricDescriptor = {
  name: 'apiserver_storage_objects',
  help: 'Number of stored objects at the time of last check split by kind.',
  type: 'gauge',
  labels: ['resource'],
  stability: 'STABLE',
};

/** Deprecated in 1.28 for apiserver_storage_size_bytes: still exposed by 1.28. */
export const STORAGE_DB_TOTAL_SIZE: MetricDescriptor = {
  name: 'apiserver_storage_db_total_size_in_bytes',
  help: 'Total size of the storage database file physically allocated in bytes.',
  type: 'gauge',
  labels: ['endpoint'],
  stability: 'ALPHA',
  deprecatedVersion: '1.28',
};

export const STORAGE_SIZE: MetricDescriptor = {
  name: 'apiserver_storage_size_bytes',
  help: 'Size of the storage database file physically allocated in bytes.',
  type: 'gauge',
  labels: ['cluster'],
  stability: 'ALPHA',
};

export const BUILD_INFO: MetricDescriptor = {
  name: 'kubernetes_build_info',
  help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
  type: 'gauge',
  labels: [
    'major',
    'minor',
    'git_version',
    'git_commit',
    'git_tree_state',
    'build_date',
    'go_version',
    'compiler',
    'platform',
  ],
  stability: 'ALPHA',
};

/** component-base's own metrics: what the life cycle did at registration. */
export const REGISTERED_METRICS: MetricDescriptor = {
  name: 'registered_metrics_total',
  help: 'The count of registered metrics broken by stability level and deprecation version.',
  type: 'counter',
  labels: ['stability_level', 'deprecated_version'],
  stability: 'BETA',
};

export const HIDDEN_METRICS: MetricDescriptor = {
  name: 'hidden_metrics_total',
  help: 'The count of hidden metrics.',
  type: 'counter',
  labels: [],
  stability: 'BETA',
};

/** API priority and fairness: a priority level's nominal concurrency (flowcontrol/classifier.ts). */
export const FLOWCONTROL_NOMINAL_LIMIT_SEATS: MetricDescriptor = {
  name: 'apiserver_flowcontrol_nominal_limit_seats',
  help: 'Nominal number of execution seats configured for each priority level',
  type: 'gauge',
  labels: ['priority_level'],
  stability: 'BETA',
};
