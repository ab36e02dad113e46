// The fields of a node agent configuration file (doc3 § Node agent configuration): one
// definition per field with its type, default and the single-field constraints (ranges,
// allowed values, formats). Loading, defaulting, validation and the JSON schema all read this
// table. `row` quotes the doc3 table row a field comes from; `beyond` says what follows the
// kubelet 1.28 where the text leaves a value out ("not shown").

export const API_VERSION = 'nodeagent.config.orch.io/v1beta1';
export const KIND = 'NodeAgentConfiguration';

export type FieldKind =
  | 'bool'
  | 'string'
  | 'int32'
  | 'int64'
  | 'float64'
  /** a Go duration string */
  | 'duration'
  | 'stringList'
  /** map of string to string */
  | 'stringMap'
  /** map of string to bool */
  | 'boolMap'
  /** map of string to list of string */
  | 'stringListMap'
  /** map of resource name to quantity (a string, or a number) */
  | 'resourceList'
  | 'object'
  /** a list of objects */
  | 'objectList';

/** Text formats checked beyond the JSON type. */
export type Format =
  | 'cpuList'
  | 'quantity'
  | 'absoluteCgroup'
  | 'minorVersion'
  | 'sysctlPattern'
  | 'evictionThreshold'
  | 'percentage';

export interface FieldDef {
  name: string;
  kind: FieldKind;
  /** The default applied when the field is absent (a copy is made). */
  default?: unknown;
  required?: boolean;
  min?: number;
  max?: number;
  /** The value must be above this. */
  above?: number;
  /** Allowed values of a string (or of each item of a string list). */
  values?: readonly string[];
  /** Allowed keys of a map. */
  keys?: readonly string[];
  /** Format of a string, of each list item, or of each map value. */
  format?: Format;
  /** The map's keys are eviction signal names. */
  signalKeys?: true;
  /** Fields of an object, or of each item of an object list. */
  fields?: readonly FieldDef[];
  row: string;
  beyond?: string;
}

/** Eviction signals of the kubelet 1.28 (doc3 names the maps "keyed by signal name"). */
export const EVICTION_SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
  'allocatableMemory.available',
] as const;

const f = (name: string, kind: FieldKind, row: string, more: Partial<FieldDef> = {}): FieldDef => ({
  name,
  kind,
  row,
  ...more,
});

const PORT = { min: 1, max: 65535 };
const K8S = 'follows the kubelet 1.28';

export const FIELDS: readonly FieldDef[] = [
  f('enableServer', 'bool', 'enableServer | bool | true', { default: true }),
  f('staticPodPath', 'string', 'staticPodPath | string | empty'),
  f('syncFrequency', 'duration', 'syncFrequency | duration | 1m', { default: '1m' }),
  f('fileCheckFrequency', 'duration', 'fileCheckFrequency | duration | 20s', { default: '20s' }),
  f('httpCheckFrequency', 'duration', 'httpCheckFrequency | duration | 20s', { default: '20s' }),
  f('staticPodURL', 'string', 'staticPodURL | string | empty'),
  f('staticPodURLHeader', 'stringListMap', 'staticPodURLHeader | map of string to list of string | unset'),
  f('address', 'string', 'address | string | `0.0.0.0`', { default: '0.0.0.0' }),
  f('port', 'int32', 'port | int32 | 10250; 1 to 65535', { default: 10250, ...PORT }),
  f('readOnlyPort', 'int32', 'readOnlyPort | int32 | 0 (disabled); else 1 to 65535', {
    default: 0,
    min: 0,
    max: 65535,
  }),
  f('tlsCertFile', 'string', 'tlsCertFile | string | empty'),
  f('tlsPrivateKeyFile', 'string', 'tlsPrivateKeyFile | string | empty'),
  f('tlsCipherSuites', 'stringList', 'tlsCipherSuites | list of string | unset'),
  f('tlsMinVersion', 'string', 'tlsMinVersion | string | empty', {
    values: ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'],
    beyond: `${K8S}: the names of Go's TLS versions`,
  }),
  f('rotateCertificates', 'bool', 'rotateCertificates | bool | false', { default: false }),
  f('serverTLSBootstrap', 'bool', 'serverTLSBootstrap | bool | false', { default: false }),
  f('authentication', 'object', 'authentication | object', {
    default: {},
    fields: [
      f('x509', 'object', 'authentication | `x509.clientCAFile`', {
        default: {},
        fields: [f('clientCAFile', 'string', 'authentication | `x509.clientCAFile`')],
      }),
      f('webhook', 'object', 'authentication | `webhook.enabled` (true), `webhook.cacheTTL` (2m)', {
        default: {},
        fields: [
          f('enabled', 'bool', 'authentication | `webhook.enabled` (true)', { default: true }),
          f('cacheTTL', 'duration', 'authentication | `webhook.cacheTTL` (2m)', { default: '2m' }),
        ],
      }),
      f('anonymous', 'object', 'authentication | `anonymous.enabled` (false)', {
        default: {},
        fields: [f('enabled', 'bool', 'authentication | `anonymous.enabled` (false)', { default: false })],
      }),
    ],
  }),
  f('authorization', 'object', 'authorization | object', {
    default: {},
    fields: [
      f('mode', 'string', 'authorization | `mode` (default `Webhook`)', {
        default: 'Webhook',
        values: ['AlwaysAllow', 'Webhook'],
        beyond: `${K8S}: modes AlwaysAllow and Webhook`,
      }),
      f(
        'webhook',
        'object',
        'authorization | `webhook.cacheAuthorizedTTL` (5m), `webhook.cacheUnauthorizedTTL` (30s)',
        {
          default: {},
          fields: [
            f('cacheAuthorizedTTL', 'duration', 'authorization | `webhook.cacheAuthorizedTTL` (5m)', {
              default: '5m',
            }),
            f('cacheUnauthorizedTTL', 'duration', 'authorization | `webhook.cacheUnauthorizedTTL` (30s)', {
              default: '30s',
            }),
          ],
        },
      ),
    ],
  }),
  f('registryPullQPS', 'int32', 'registryPullQPS | int32 | 5 (0 means no limit); not negative', {
    default: 5,
    min: 0,
  }),
  f('registryBurst', 'int32', 'registryBurst | int32 | 10; not negative', { default: 10, min: 0 }),
  f('eventRecordQPS', 'int32', 'eventRecordQPS | int32 | 50 (0 means no limit)', {
    default: 50,
    min: 0,
    beyond: `${K8S}: not negative`,
  }),
  f('eventBurst', 'int32', 'eventBurst | int32 | 100', {
    default: 100,
    min: 0,
    beyond: `${K8S}: not negative`,
  }),
  f('enableDebuggingHandlers', 'bool', 'enableDebuggingHandlers | bool | true', { default: true }),
  f('enableContentionProfiling', 'bool', 'enableContentionProfiling | bool | false', { default: false }),
  f('healthzPort', 'int32', 'healthzPort | int32 | 10248 (0 disables; 1 to 65535)', {
    default: 10248,
    min: 0,
    max: 65535,
  }),
  f('healthzBindAddress', 'string', 'healthzBindAddress | string | `127.0.0.1`', { default: '127.0.0.1' }),
  f('oomScoreAdj', 'int32', 'oomScoreAdj | int32 | -999; range -1000 to 1000', {
    default: -999,
    min: -1000,
    max: 1000,
  }),
  f('clusterDomain', 'string', 'clusterDomain | string | empty'),
  f('clusterDNS', 'stringList', 'clusterDNS | list of string | unset'),
  f('streamingConnectionIdleTimeout', 'duration', 'streamingConnectionIdleTimeout | duration | 4h', {
    default: '4h',
  }),
  f('nodeStatusUpdateFrequency', 'duration', 'nodeStatusUpdateFrequency | duration | 10s', {
    default: '10s',
  }),
  f('nodeStatusReportFrequency', 'duration', 'nodeStatusReportFrequency | duration | 5m', { default: '5m' }),
  f('nodeLeaseDurationSeconds', 'int32', 'nodeLeaseDurationSeconds | int32 | 40; greater than 0', {
    default: 40,
    above: 0,
  }),
  f('imageMinimumGCAge', 'duration', 'imageMinimumGCAge | duration | 2m', { default: '2m' }),
  f(
    'imageGCHighThresholdPercent',
    'int32',
    'imageGCHighThresholdPercent | int32 | 85; 0 to 100; high above low',
    {
      default: 85,
      min: 0,
      max: 100,
    },
  ),
  f(
    'imageGCLowThresholdPercent',
    'int32',
    'imageGCLowThresholdPercent | int32 | 80; 0 to 100; high above low',
    {
      default: 80,
      min: 0,
      max: 100,
    },
  ),
  f('volumeStatsAggPeriod', 'duration', 'volumeStatsAggPeriod | duration | 1m', { default: '1m' }),
  f('agentCgroups', 'string', 'agentCgroups | string | empty'),
  f('systemCgroups', 'string', 'systemCgroups | string | empty (systemCgroups needs cgroupRoot)'),
  f('cgroupRoot', 'string', 'cgroupRoot | string | empty'),
  f('cgroupsPerQOS', 'bool', 'cgroupsPerQOS | bool | true', { default: true }),
  f('cgroupDriver', 'string', 'cgroupDriver | string | `cgroupfs` (or `systemd`)', {
    default: 'cgroupfs',
    values: ['cgroupfs', 'systemd'],
  }),
  f('cpuManagerPolicy', 'string', 'cpuManagerPolicy | string | `None`', {
    default: 'None',
    values: ['None', 'none', 'static'],
    beyond: `${K8S}: policies none and static`,
  }),
  f('cpuManagerPolicyOptions', 'stringMap', 'cpuManagerPolicyOptions | map | unset'),
  f('cpuManagerReconcilePeriod', 'duration', 'cpuManagerReconcilePeriod | duration | 10s', {
    default: '10s',
  }),
  f('memoryManagerPolicy', 'string', 'memoryManagerPolicy | string | `none`', {
    default: 'none',
    values: ['none', 'None', 'Static'],
    beyond: `${K8S}: policies None and Static`,
  }),
  f('topologyManagerPolicy', 'string', 'topologyManagerPolicy | string | `none`', {
    default: 'none',
    values: ['none', 'best-effort', 'restricted', 'single-numa-node'],
    beyond: `${K8S}: valid policies are not shown`,
  }),
  f('topologyManagerScope', 'string', 'topologyManagerScope | string | `container`', {
    default: 'container',
    values: ['container', 'pod'],
    beyond: `${K8S}: valid scopes are not shown`,
  }),
  f('topologyManagerPolicyOptions', 'stringMap', 'topologyManagerPolicyOptions | map | unset'),
  f('qosReserved', 'stringMap', 'qosReserved | map of string to string | unset; only memory supported', {
    keys: ['memory'],
    format: 'percentage',
    beyond: `${K8S}: the value is a percentage`,
  }),
  f('runtimeRequestTimeout', 'duration', 'runtimeRequestTimeout | duration | 2m', { default: '2m' }),
  f('hairpinMode', 'string', 'hairpinMode | string | set of accepted values in the original cut', {
    default: 'promiscuous-bridge',
    values: ['promiscuous-bridge', 'hairpin-veth', 'none'],
    beyond: `${K8S}: values and the default promiscuous-bridge are not shown`,
  }),
  f('maxPods', 'int32', 'maxPods | int32 | 110', { default: 110, min: 0, beyond: `${K8S}: not negative` }),
  f('podsPerCore', 'int32', 'podsPerCore | int32 | 0 (no limit), not above maxPods', {
    default: 0,
    min: 0,
    beyond: `${K8S}: not negative`,
  }),
  f('podCIDR', 'string', 'podCIDR | string | empty'),
  f('podPidsLimit', 'int64', 'podPidsLimit | int64 | -1', { default: -1 }),
  f('resolvConf', 'string', 'resolvConf | string | `/etc/resolv.conf`; empty disables lookups', {
    default: '/etc/resolv.conf',
  }),
  f('runOnce', 'bool', 'runOnce | bool | false', { default: false }),
  f('cpuCFSQuota', 'bool', 'cpuCFSQuota | bool | true', { default: true }),
  f('cpuCFSQuotaPeriod', 'duration', 'cpuCFSQuotaPeriod | duration | unset', {
    default: '100ms',
    beyond: `${K8S}: the default is not shown (100ms); between 1ms and 1s`,
  }),
  f('nodeStatusMaxImages', 'int32', 'nodeStatusMaxImages | int32 | 50; above -2; -1 no cap; 0 none', {
    default: 50,
    above: -2,
  }),
  f('maxOpenFiles', 'int64', 'maxOpenFiles | int64 | 1000000', {
    default: 1000000,
    min: 0,
    beyond: `${K8S}: not negative`,
  }),
  f('contentType', 'string', 'contentType | string | `application/vnd.orch.protobuf`', {
    default: 'application/vnd.orch.protobuf',
  }),
  f('orchAPIQPS', 'int32', 'orchAPIQPS | int32 | 50', {
    default: 50,
    min: 0,
    beyond: `${K8S}: not negative`,
  }),
  f('orchAPIBurst', 'int32', 'orchAPIBurst | int32 | 100', {
    default: 100,
    min: 0,
    beyond: `${K8S}: not negative`,
  }),
  f('serializeImagePulls', 'bool', 'serializeImagePulls | bool | true', { default: true }),
  f(
    'maxParallelImagePulls',
    'int32',
    'maxParallelImagePulls | int32 | unset (cannot be set while serialize is true)',
    {
      min: 1,
      beyond: `${K8S}: at least 1`,
    },
  ),
  f('evictionHard', 'stringMap', 'evictionHard | map of string to string | unset; keyed by signal name', {
    signalKeys: true,
    format: 'evictionThreshold',
  }),
  f('evictionSoft', 'stringMap', 'evictionSoft | map of string to string | unset; keyed by signal name', {
    signalKeys: true,
    format: 'evictionThreshold',
  }),
  f(
    'evictionSoftGracePeriod',
    'stringMap',
    'evictionSoftGracePeriod | map of string to string | unset; keyed by signal name',
    { signalKeys: true },
  ),
  f(
    'evictionMinimumReclaim',
    'stringMap',
    'evictionMinimumReclaim | map of string to string | unset; keyed by signal name',
    { signalKeys: true, format: 'evictionThreshold' },
  ),
  f('evictionPressureTransitionPeriod', 'duration', 'evictionPressureTransitionPeriod | duration | 5m', {
    default: '5m',
  }),
  f('evictionMaxPodGracePeriod', 'int32', 'evictionMaxPodGracePeriod | int32 | 0', { default: 0 }),
  f('enableControllerAttachDetach', 'bool', 'enableControllerAttachDetach | bool | true', { default: true }),
  f('protectKernelDefaults', 'bool', 'protectKernelDefaults | bool | false', { default: false }),
  f('makeIPTablesUtilChains', 'bool', 'makeIPTablesUtilChains | bool | true', { default: true }),
  f('iptablesMasqueradeBit', 'int32', 'iptablesMasqueradeBit | int32 | 14; deprecated, no effect', {
    default: 14,
    min: 0,
    max: 31,
    beyond: `${K8S}: 0 to 31`,
  }),
  f('iptablesDropBit', 'int32', 'iptablesDropBit | int32 | 15; deprecated, no effect', {
    default: 15,
    min: 0,
    max: 31,
    beyond: `${K8S}: 0 to 31`,
  }),
  f('featureGates', 'boolMap', 'featureGates | map of string to bool | unset'),
  f('failSwapOn', 'bool', 'failSwapOn | bool | true', { default: true }),
  f('memorySwap', 'object', 'memorySwap | object | `swapBehavior`: empty, `LimitedSwap` or `UnlimitedSwap`', {
    default: {},
    fields: [
      f('swapBehavior', 'string', 'memorySwap | `swapBehavior`: empty, `LimitedSwap` or `UnlimitedSwap`', {
        values: ['', 'LimitedSwap', 'UnlimitedSwap'],
      }),
    ],
  }),
  f('containerLogMaxSize', 'string', 'containerLogMaxSize | string | `10Mi`', {
    default: '10Mi',
    format: 'quantity',
    beyond: `${K8S}: a quantity`,
  }),
  f('containerLogMaxFiles', 'int32', 'containerLogMaxFiles | int32 | 5', {
    default: 5,
    min: 2,
    beyond: `${K8S}: at least 2`,
  }),
  f(
    'configMapAndSecretChangeDetectionStrategy',
    'string',
    'configMapAndSecretChangeDetectionStrategy | string | `Watch`',
    {
      default: 'Watch',
      values: ['Get', 'Cache', 'Watch'],
      beyond: `${K8S}: strategies Get, Cache and Watch`,
    },
  ),
  f('systemReserved', 'resourceList', 'systemReserved | map of string to string | unset; cpu and memory', {
    keys: ['cpu', 'memory', 'ephemeral-storage', 'pid'],
    beyond: `${K8S}: also ephemeral-storage and pid`,
  }),
  f(
    'orchReserved',
    'resourceList',
    'orchReserved | map of string to string | unset; cpu and memory (orchReserved also local storage)',
    {
      keys: ['cpu', 'memory', 'ephemeral-storage', 'pid'],
      beyond: `${K8S}: also pid`,
    },
  ),
  f('reservedSystemCPUs', 'string', 'reservedSystemCPUs | string | required; CPU list', {
    required: true,
    format: 'cpuList',
  }),
  f(
    'showHiddenMetricsForVersion',
    'string',
    'showHiddenMetricsForVersion | string | previous minor version only',
    {
      format: 'minorVersion',
    },
  ),
  f('systemReservedCgroup', 'string', 'systemReservedCgroup | string | absolute cgroup names', {
    format: 'absoluteCgroup',
  }),
  f('orchReservedCgroup', 'string', 'orchReservedCgroup | string | absolute cgroup names', {
    format: 'absoluteCgroup',
  }),
  f(
    'enforceNodeAllocatable',
    'stringList',
    'enforceNodeAllocatable | list of string | list of enforcement options',
    {
      default: ['pods'],
      values: ['pods', 'system-reserved', 'kube-reserved', 'none'],
      beyond: `${K8S}: options pods, system-reserved, kube-reserved or none alone; default [pods]`,
    },
  ),
  f(
    'allowedUnsafeSysctls',
    'stringList',
    'allowedUnsafeSysctls | list of string | patterns may end with `*`',
    {
      format: 'sysctlPattern',
    },
  ),
  f(
    'volumePluginDir',
    'string',
    'volumePluginDir | string | `/usr/libexec/orch/agent-plugins/volume/exec/`',
    {
      default: '/usr/libexec/orch/agent-plugins/volume/exec/',
    },
  ),
  f('providerID', 'string', 'providerID | string | empty'),
  f('kernelMemcgNotification', 'bool', 'kernelMemcgNotification | bool | false', { default: false }),
  f('logging', 'object', 'logging | object | required', {
    required: true,
    fields: [
      f('format', 'string', 'logging | `format` (default `text`)', {
        default: 'text',
        values: ['text', 'json'],
        beyond: `${K8S}: formats text and json`,
      }),
      f('flushFrequency', 'duration', 'logging | `flushFrequency`', {
        default: '5s',
        beyond: `${K8S}: default 5s`,
      }),
      f('verbosity', 'int32', 'logging | `verbosity`', {
        default: 0,
        min: 0,
        beyond: `${K8S}: not negative`,
      }),
      f('vmodule', 'objectList', 'logging | `vmodule`', {
        fields: [
          f('filePattern', 'string', 'logging | `vmodule`'),
          f('verbosity', 'int32', 'logging | `vmodule`', { min: 0 }),
        ],
      }),
      f(
        'options',
        'object',
        'logging | `options.json.splitStream` (bool), `options.json.infoBufferSize`; options are alpha',
        {
          fields: [
            f('json', 'object', 'logging | `options.json`', {
              fields: [
                f('splitStream', 'bool', 'logging | `options.json.splitStream` (bool)'),
                f('infoBufferSize', 'string', 'logging | `options.json.infoBufferSize`', {
                  format: 'quantity',
                }),
              ],
            }),
          ],
        },
      ),
    ],
  }),
  f('enableSystemLogHandler', 'bool', 'enableSystemLogHandler | bool | true', { default: true }),
  f('enableSystemLogQuery', 'bool', 'enableSystemLogQuery | bool | false (query needs the handler)', {
    default: false,
  }),
  f('shutdownGracePeriod', 'duration', 'shutdownGracePeriod | duration | 0s', { default: '0s' }),
  f(
    'shutdownGracePeriodCriticalPods',
    'duration',
    'shutdownGracePeriodCriticalPods | duration | 0s; critical value below total',
    {
      default: '0s',
    },
  ),
  f(
    'shutdownGracePeriodByPodPriority',
    'objectList',
    'shutdownGracePeriodByPodPriority | list | entries `priority` (int32) and `shutdownGracePeriodSeconds` (int64)',
    {
      fields: [
        f('priority', 'int32', 'shutdownGracePeriodByPodPriority | entries `priority` (int32)'),
        f(
          'shutdownGracePeriodSeconds',
          'int64',
          'shutdownGracePeriodByPodPriority | `shutdownGracePeriodSeconds` (int64)',
          {
            min: 0,
            beyond: `${K8S}: not negative`,
          },
        ),
      ],
    },
  ),
  f(
    'reservedMemory',
    'objectList',
    'reservedMemory | list | entries `numaNode` (int32) and `limits` (resource list)',
    {
      fields: [
        f('numaNode', 'int32', 'reservedMemory | entries `numaNode` (int32)', {
          min: 0,
          beyond: `${K8S}: not negative`,
        }),
        f('limits', 'resourceList', 'reservedMemory | `limits` (resource list)'),
      ],
    },
  ),
  f('enableProfilingHandler', 'bool', 'enableProfilingHandler | bool | true', { default: true }),
  f('enableDebugFlagsHandler', 'bool', 'enableDebugFlagsHandler | bool | true', { default: true }),
  f('seccompDefault', 'bool', 'seccompDefault | bool | default-profile switch', {
    default: false,
    beyond: `${K8S}: default false`,
  }),
  f('memoryThrottlingFactor', 'float64', 'memoryThrottlingFactor | float64 | 0.9', {
    default: 0.9,
    above: 0,
    max: 1,
    beyond: `${K8S}: above 0, at most 1`,
  }),
  f('registerWithTaints', 'objectList', 'registerWithTaints | list of taints | unset', {
    fields: [
      f('key', 'string', 'registerWithTaints | list of taints'),
      f('value', 'string', 'registerWithTaints | list of taints'),
      f('effect', 'string', 'registerWithTaints | list of taints', {
        values: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
      }),
      f('timeAdded', 'string', 'registerWithTaints | list of taints'),
    ],
  }),
  f('registerNode', 'bool', 'registerNode | bool | true', { default: true }),
  f(
    'tracing',
    'object',
    'tracing | object | `endpoint` (string, unencrypted), `samplingRatePerMillion` (int32)',
    {
      fields: [
        f('endpoint', 'string', 'tracing | `endpoint` (string, unencrypted)'),
        f('samplingRatePerMillion', 'int32', 'tracing | `samplingRatePerMillion` (int32)', {
          min: 0,
          max: 1000000,
          beyond: `${K8S}: 0 to 1000000`,
        }),
      ],
    },
  ),
  f('localStorageCapacityIsolation', 'bool', 'localStorageCapacityIsolation | bool | true', {
    default: true,
  }),
  f('containerRuntimeEndpoint', 'string', 'containerRuntimeEndpoint | string | required', { required: true }),
  f('imageServiceEndpoint', 'string', 'imageServiceEndpoint | string | the second falls back to the first'),
];

/** The names of the original interface that this one renames (unknown fields here). */
export const RENAMED: Readonly<Record<string, string>> = {
  kubeletCgroups: 'agentCgroups',
  kubeAPIQPS: 'orchAPIQPS',
  kubeAPIBurst: 'orchAPIBurst',
  kubeReserved: 'orchReserved',
  kubeReservedCgroup: 'orchReservedCgroup',
};
