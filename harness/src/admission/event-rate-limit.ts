// The EventRateLimit configuration the embedded run gives its `admission-event-rate-limit`
// server (doc3 plugin table: token buckets of type Server, Namespace, User, SourceAndObject,
// each with qps, burst, cacheSize): a bucket of every type, the Namespace one the smallest, so
// a namespace's sixth event within a second is the first refused.
export const EVENT_RATE_LIMIT_CONFIGURATION = {
  apiVersion: 'eventratelimit.admission.orch.io/v1alpha1',
  kind: 'Configuration',
  limits: [
    { type: 'Server', qps: 100, burst: 1000 },
    { type: 'Namespace', qps: 1, burst: 5, cacheSize: 100 },
    { type: 'User', qps: 100, burst: 1000, cacheSize: 100 },
    { type: 'SourceAndObject', qps: 100, burst: 1000, cacheSize: 1000 },
  ],
} as const;
