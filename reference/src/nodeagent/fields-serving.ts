// The node agent configuration fields from the server to the image pulls (the first part of
// the table in ./fields.ts, in the order of doc3's table).
import { type FieldDef, f, K8S, PORT } from './field-def.ts';

export const SERVING_FIELDS: readonly FieldDef[] = [
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
];
