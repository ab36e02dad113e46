// The node agent configuration fields from eviction to the runtime endpoints (the second part
// of the table in ./fields.ts, in the order of doc3's table).
import { type FieldDef, f, K8S } from './field-def.ts';

export const RESOURCE_FIELDS: readonly FieldDef[] = [
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
