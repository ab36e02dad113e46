// Random valid node agent configurations, from doc3's table alone (§ Node agent configuration):
// each field is absent or holds a value its row allows, and the fields tied by a rule are drawn
// together so the rule holds. Values stay inside what the kubelet 1.28 accepts too (e.g.
// containerLogMaxFiles from 2), so a valid draw is valid for any reading of the text. Breakers
// then break one rule of a valid configuration and name the field path the validator must print.
import fc from 'fast-check';
import { API_VERSION, RUNTIME_ENDPOINT } from './bases.ts';

type Obj = Record<string, unknown>;

/** A positive Go duration in one of the forms the table uses (1m, 20s, 4h, 300ms, 1h30m, 2.5s, 0s). */
export const goDuration: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 3600 }).map((n) => `${n}s`),
  fc.integer({ min: 1, max: 600 }).map((n) => `${n}m`),
  fc.integer({ min: 1, max: 48 }).map((n) => `${n}h`),
  fc.integer({ min: 1, max: 999 }).map((n) => `${n}ms`),
  fc.tuple(fc.integer({ min: 1, max: 23 }), fc.integer({ min: 1, max: 59 })).map(([h, m]) => `${h}h${m}m`),
  fc.tuple(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 1, max: 9 })).map(([s, f]) => `${s}.${f}s`),
  fc.constant('0s'),
);

/** A CPU list: ascending, non-overlapping ids and ranges (`0-3,5`). */
export const cpuList: fc.Arbitrary<string> = fc
  .uniqueArray(fc.integer({ min: 0, max: 63 }), { minLength: 1, maxLength: 6 })
  .chain((ids) => {
    const sorted = [...ids].sort((a, b) => a - b);
    return fc.array(fc.boolean(), { minLength: sorted.length, maxLength: sorted.length }).map((asRange) => {
      const parts: string[] = [];
      let last = -2;
      sorted.forEach((id, i) => {
        if (id <= last + 1) return; // keep items apart so a range never swallows the next id
        const end = asRange[i] && (sorted[i + 1] ?? 65) > id + 2 ? id + 1 : id;
        parts.push(end > id ? `${id}-${end}` : `${id}`);
        last = end;
      });
      return parts.join(',');
    });
  });

const SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
];
const threshold = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map((n) => `${n}%`),
  fc.integer({ min: 1, max: 4096 }).map((n) => `${n}Mi`),
);

/** Fields whose only rule is their own type and range. */
const simple = {
  port: fc.integer({ min: 1, max: 65535 }),
  readOnlyPort: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 65535 })),
  healthzPort: fc.integer({ min: 0, max: 65535 }),
  oomScoreAdj: fc.integer({ min: -1000, max: 1000 }),
  registryPullQPS: fc.integer({ min: 0, max: 100 }),
  registryBurst: fc.integer({ min: 0, max: 200 }),
  eventRecordQPS: fc.integer({ min: 0, max: 100 }),
  eventBurst: fc.integer({ min: 0, max: 200 }),
  orchAPIQPS: fc.integer({ min: 0, max: 100 }),
  orchAPIBurst: fc.integer({ min: 0, max: 200 }),
  nodeLeaseDurationSeconds: fc.integer({ min: 1, max: 3600 }),
  nodeStatusMaxImages: fc.integer({ min: -1, max: 1000 }),
  podPidsLimit: fc.integer({ min: -1, max: 1_000_000 }),
  containerLogMaxFiles: fc.integer({ min: 2, max: 20 }),
  containerLogMaxSize: fc.integer({ min: 1, max: 1024 }).map((n) => `${n}Mi`),
  syncFrequency: goDuration,
  fileCheckFrequency: goDuration,
  httpCheckFrequency: goDuration,
  streamingConnectionIdleTimeout: goDuration,
  nodeStatusUpdateFrequency: goDuration,
  nodeStatusReportFrequency: goDuration,
  imageMinimumGCAge: goDuration,
  volumeStatsAggPeriod: goDuration,
  runtimeRequestTimeout: goDuration,
  evictionPressureTransitionPeriod: goDuration,
  cpuManagerReconcilePeriod: goDuration,
  enableDebuggingHandlers: fc.boolean(),
  enableContentionProfiling: fc.boolean(),
  rotateCertificates: fc.boolean(),
  cgroupsPerQOS: fc.boolean(),
  runOnce: fc.boolean(),
  cpuCFSQuota: fc.boolean(),
  failSwapOn: fc.boolean(),
  registerNode: fc.boolean(),
  protectKernelDefaults: fc.boolean(),
  localStorageCapacityIsolation: fc.boolean(),
  cgroupDriver: fc.constantFrom('cgroupfs', 'systemd'),
  address: fc.constantFrom('0.0.0.0', '127.0.0.1', '::'),
  clusterDomain: fc.constantFrom('cluster.local', 'example.internal'),
  clusterDNS: fc.array(fc.constantFrom('10.96.0.10', '10.96.0.11'), { maxLength: 2 }),
  staticPodPath: fc.constantFrom('/etc/orch/manifests', ''),
  agentCgroups: fc.constantFrom('/agent.slice', '/system.slice/agent.service'),
  memorySwap: fc.constantFrom('', 'LimitedSwap', 'UnlimitedSwap').map((swapBehavior) => ({ swapBehavior })),
  qosReserved: fc.integer({ min: 0, max: 100 }).map((n) => ({ memory: `${n}%` })),
  systemReserved: fc.record({ cpu: fc.constantFrom('100m', '1'), memory: fc.constantFrom('512Mi', '1Gi') }),
  orchReserved: fc.record(
    {
      cpu: fc.constantFrom('200m', '2'),
      memory: fc.constantFrom('256Mi', '2Gi'),
      'ephemeral-storage': fc.constantFrom('1Gi'),
    },
    { requiredKeys: [] },
  ),
  evictionHard: fc.dictionary(fc.constantFrom(...SIGNALS), threshold, { maxKeys: 4 }),
  showHiddenMetricsForVersion: fc.constant('1.27'),
  memoryThrottlingFactor: fc.integer({ min: 1, max: 100 }).map((n) => n / 100),
  systemReservedCgroup: fc.constantFrom('/system.slice', '/system'),
  orchReservedCgroup: fc.constantFrom('/orch.slice'),
};

/** Groups of fields tied by a rule of the table, drawn so the rule holds. */
const tied: fc.Arbitrary<Obj>[] = [
  // imageGCHighThresholdPercent above imageGCLowThresholdPercent, both 0 to 100
  fc
    .integer({ min: 0, max: 99 })
    .chain((low) =>
      fc
        .integer({ min: low + 1, max: 100 })
        .map((high) => ({ imageGCLowThresholdPercent: low, imageGCHighThresholdPercent: high })),
    ),
  // podsPerCore not above maxPods
  fc
    .integer({ min: 1, max: 500 })
    .chain((maxPods) =>
      fc.integer({ min: 0, max: maxPods }).map((podsPerCore) => ({ maxPods, podsPerCore })),
    ),
  // systemCgroups needs cgroupRoot
  fc.oneof(
    fc.constant({ systemCgroups: '/system.slice', cgroupRoot: '/' }),
    fc.constant({ cgroupRoot: '/orch' }),
  ),
  // maxParallelImagePulls only with serializeImagePulls false
  fc.oneof(
    fc.integer({ min: 1, max: 10 }).map((n) => ({ serializeImagePulls: false, maxParallelImagePulls: n })),
    fc.boolean().map((serializeImagePulls) => ({ serializeImagePulls })),
  ),
  // the critical period not above the total; by-priority periods only without them
  fc.oneof(
    fc.integer({ min: 0, max: 600 }).chain((total) =>
      fc.integer({ min: 0, max: total }).map((critical) => ({
        shutdownGracePeriod: `${total}s`,
        shutdownGracePeriodCriticalPods: `${critical}s`,
      })),
    ),
    fc
      .uniqueArray(
        fc.record({
          priority: fc.integer({ min: 0, max: 2_000_000_000 }),
          shutdownGracePeriodSeconds: fc.integer({ min: 0, max: 600 }),
        }),
        { minLength: 1, maxLength: 3, selector: (e) => e.priority },
      )
      .map((shutdownGracePeriodByPodPriority) => ({ shutdownGracePeriodByPodPriority })),
  ),
  // enableSystemLogQuery needs enableSystemLogHandler
  fc.oneof(
    fc.boolean().map((q) => ({ enableSystemLogHandler: true, enableSystemLogQuery: q })),
    fc.constant({ enableSystemLogHandler: false, enableSystemLogQuery: false }),
  ),
  // a soft eviction threshold with its grace period
  fc
    .dictionary(fc.constantFrom(...SIGNALS), fc.tuple(threshold, goDuration), { minKeys: 1, maxKeys: 3 })
    .map((m) => ({
      evictionSoft: Object.fromEntries(Object.entries(m).map(([k, [t]]) => [k, t])),
      evictionSoftGracePeriod: Object.fromEntries(Object.entries(m).map(([k, [, d]]) => [k, d])),
    })),
];

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** A valid NodeAgentConfiguration: the required fields, a random subset of the others. */
export const validConfig: fc.Arbitrary<Obj> = fc
  .tuple(
    cpuList,
    fc.constantFrom('text', 'json'),
    fc.record(simple, { requiredKeys: [] }),
    fc.tuple(...tied.map(opt)),
  )
  .map(([cpus, format, fields, groups]) => {
    const out: Obj = {
      apiVersion: API_VERSION,
      kind: 'NodeAgentConfiguration',
      enableServer: true,
      reservedSystemCPUs: cpus,
      containerRuntimeEndpoint: RUNTIME_ENDPOINT,
      logging: { format },
      ...fields,
    };
    for (const g of groups) if (g) Object.assign(out, g);
    return out;
  });

export interface Breaker {
  /** What is broken, in words. */
  name: string;
  /** The configuration broken, and the field paths the validator may name (any one). */
  apply: (c: Obj) => fc.Arbitrary<{ config: Obj; paths: string[] }>;
}

const set = (c: Obj, fields: Obj) => ({ ...c, ...fields });
const one = (config: Obj, ...paths: string[]) => ({ config, paths });
const DURATION_FIELDS = [
  'syncFrequency',
  'fileCheckFrequency',
  'nodeStatusUpdateFrequency',
  'runtimeRequestTimeout',
  'imageMinimumGCAge',
];
const BAD_DURATIONS = ['1x', '10', '1h 2m', 'm', 'soon', '1..5s', '5 s'];
const BAD_CPU_LISTS = ['3-1', 'all', '0-', '1,,2', '-1', '0:3', 'a-b'];
const ORIGINAL_NAMES = ['kubeletCgroups', 'kubeAPIQPS', 'kubeAPIBurst', 'kubeReserved', 'kubeReservedCgroup'];

/** One broken rule each, over the rules of doc3's table. */
export const BREAKERS: Breaker[] = [
  {
    name: 'port out of 1 to 65535',
    apply: (c) =>
      fc
        .oneof(
          fc.constant(0),
          fc.integer({ min: 65536, max: 2_000_000 }),
          fc.integer({ min: -100000, max: -1 }),
        )
        .map((port) => one(set(c, { port }), 'port')),
  },
  {
    name: 'oomScoreAdj out of -1000 to 1000',
    apply: (c) =>
      fc
        .oneof(fc.integer({ min: 1001, max: 100000 }), fc.integer({ min: -100000, max: -1001 }))
        .map((v) => one(set(c, { oomScoreAdj: v }), 'oomScoreAdj')),
  },
  {
    name: 'nodeLeaseDurationSeconds not greater than 0',
    apply: (c) =>
      fc
        .integer({ min: -1000, max: 0 })
        .map((v) => one(set(c, { nodeLeaseDurationSeconds: v }), 'nodeLeaseDurationSeconds')),
  },
  {
    name: 'registryPullQPS negative',
    apply: (c) =>
      fc.integer({ min: -1000, max: -1 }).map((v) => one(set(c, { registryPullQPS: v }), 'registryPullQPS')),
  },
  {
    name: 'nodeStatusMaxImages not above -2',
    apply: (c) =>
      fc
        .integer({ min: -1000, max: -2 })
        .map((v) => one(set(c, { nodeStatusMaxImages: v }), 'nodeStatusMaxImages')),
  },
  {
    name: 'imageGCHighThresholdPercent not above imageGCLowThresholdPercent',
    apply: (c) =>
      fc
        .integer({ min: 0, max: 100 })
        .chain((low) =>
          fc
            .integer({ min: 0, max: low })
            .map((high) =>
              one(
                set(c, { imageGCLowThresholdPercent: low, imageGCHighThresholdPercent: high }),
                'imageGCHighThresholdPercent',
                'imageGCLowThresholdPercent',
              ),
            ),
        ),
  },
  {
    name: 'podsPerCore above maxPods',
    apply: (c) =>
      fc
        .integer({ min: 1, max: 500 })
        .chain((maxPods) =>
          fc
            .integer({ min: maxPods + 1, max: 1000 })
            .map((podsPerCore) => one(set(c, { maxPods, podsPerCore }), 'podsPerCore', 'maxPods')),
        ),
  },
  {
    name: 'systemCgroups without cgroupRoot',
    apply: (c) => {
      const { cgroupRoot: _, ...rest } = c;
      return fc.constant(one({ ...rest, systemCgroups: '/system.slice' }, 'systemCgroups', 'cgroupRoot'));
    },
  },
  {
    name: 'maxParallelImagePulls while serializeImagePulls is true',
    apply: (c) =>
      fc
        .integer({ min: 1, max: 10 })
        .map((n) =>
          one(
            set(c, { serializeImagePulls: true, maxParallelImagePulls: n }),
            'maxParallelImagePulls',
            'serializeImagePulls',
          ),
        ),
  },
  {
    name: 'shutdownGracePeriodCriticalPods above shutdownGracePeriod',
    apply: (c) => {
      const { shutdownGracePeriodByPodPriority: _, ...rest } = c;
      return fc.integer({ min: 0, max: 600 }).chain((total) =>
        fc.integer({ min: total + 1, max: 1200 }).map((critical) =>
          one(
            set(rest, {
              shutdownGracePeriod: `${total}s`,
              shutdownGracePeriodCriticalPods: `${critical}s`,
            }),
            'shutdownGracePeriodCriticalPods',
            'shutdownGracePeriod',
          ),
        ),
      );
    },
  },
  {
    name: 'shutdownGracePeriodByPodPriority with shutdownGracePeriod set',
    apply: (c) =>
      fc.integer({ min: 1, max: 600 }).map((total) =>
        one(
          set(c, {
            shutdownGracePeriod: `${total}s`,
            shutdownGracePeriodCriticalPods: '0s',
            shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 10 }],
          }),
          'shutdownGracePeriodByPodPriority',
          'shutdownGracePeriod',
        ),
      ),
  },
  {
    name: 'enableSystemLogQuery without enableSystemLogHandler',
    apply: (c) =>
      fc.constant(
        one(
          set(c, { enableSystemLogQuery: true, enableSystemLogHandler: false }),
          'enableSystemLogQuery',
          'enableSystemLogHandler',
        ),
      ),
  },
  {
    name: 'a duration that is not Go duration syntax',
    apply: (c) =>
      fc
        .tuple(fc.constantFrom(...DURATION_FIELDS), fc.constantFrom(...BAD_DURATIONS))
        .map(([f, v]) => one(set(c, { [f]: v }), f)),
  },
  {
    name: 'reservedSystemCPUs not a CPU list',
    apply: (c) =>
      fc
        .constantFrom(...BAD_CPU_LISTS)
        .map((v) => one(set(c, { reservedSystemCPUs: v }), 'reservedSystemCPUs')),
  },
  {
    name: 'an eviction map keyed by an unknown signal',
    apply: (c) =>
      fc
        .constantFrom('memory.free', 'disk.available', 'cpu.available')
        .map((s) =>
          one(
            set(c, { evictionHard: { ...((c.evictionHard as Obj) ?? {}), [s]: '10%' } }),
            `evictionHard[${s}]`,
            `evictionHard.${s}`,
          ),
        ),
  },
  {
    name: 'a field of the original interface (an unknown field here)',
    apply: (c) =>
      fc.constantFrom(...ORIGINAL_NAMES).map((f) =>
        one(
          set(c, {
            [f]:
              f === 'kubeReserved' ? { cpu: '1' } : f.endsWith('Cgroup') || f.endsWith('Cgroups') ? '/x' : 10,
          }),
          f,
        ),
      ),
  },
  {
    name: 'a required field missing',
    apply: (c) =>
      fc.constantFrom('reservedSystemCPUs', 'containerRuntimeEndpoint', 'logging').map((f) => {
        const { [f]: _, ...rest } = c;
        return one(rest, f);
      }),
  },
];
