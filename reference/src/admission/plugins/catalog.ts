// The built-in admission plugins (doc3's plugin table) by name: the order Kubernetes 1.28 runs
// them in, the default-enabled set, and how each is made. `--enable-admission-plugins` and
// `--disable-admission-plugins` pick from here; the chain runs the enabled ones in PLUGIN_ORDER
// whatever order the flags list them in (doc3: order irrelevant).
//
// A plugin file exports a factory; its entry in FACTORIES makes the name switchable. Every name
// of PLUGIN_ORDER has one (reference/test/admission-catalog.test.ts checks it).
import { dirname } from 'node:path';
import type { Registry } from '../../registry/registry.ts';
import type { ServerOptions } from '../../config.ts';
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { AdmissionPlugin } from '../types.ts';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from '../webhook/plugins.ts';
import { validatingAdmissionPolicy } from '../policy/plugin.ts';
import { alwaysAdmit } from './always-admit.ts';
import { alwaysDeny } from './always-deny.ts';
import { alwaysPullImages } from './always-pull-images.ts';
import { certificateApproval } from './certificate-approval.ts';
import { certificateSigning } from './certificate-signing.ts';
import { certificateSubjectRestriction } from './certificate-subject-restriction.ts';
import { clusterTrustBundleAttest } from './cluster-trust-bundle-attest.ts';
import { defaultTolerationSeconds } from './default-toleration-seconds.ts';
import { denyServiceExternalIPs } from './deny-service-external-ips.ts';
import { eventRateLimit } from './event-rate-limit.ts';
import { extendedResourceToleration } from './extended-resource-toleration.ts';
import { imagePolicyWebhook } from './image-policy-webhook.ts';
import { limitPodHardAntiAffinityTopology } from './limit-pod-hard-anti-affinity-topology.ts';
import { namespaceAutoProvision } from './namespace-auto-provision.ts';
import { namespaceExists } from './namespace-exists.ts';
import { namespaceLifecycle } from './namespace-lifecycle.ts';
import { nodeRestriction } from './node-restriction.ts';
import { ownerReferencesPermissionEnforcement } from './owner-references-permission-enforcement.ts';
import { persistentVolumeLabel } from './persistent-volume-label.ts';
import { podNodeSelector } from './pod-node-selector.ts';
import { podSecurity } from './pod-security/plugin.ts';
import { podTolerationRestriction } from './pod-toleration-restriction.ts';
import { securityContextDeny } from './security-context-deny.ts';
import { serviceAccount } from './service-account.ts';
import { taintNodesByCondition } from './taint-nodes-by-condition.ts';
import { defaultIngressClassPlugin } from './default-ingress-class.ts';
import { defaultStorageClassPlugin } from './default-storage-class.ts';
import { limitRangerPlugin } from './limit-ranger.ts';
import { persistentVolumeClaimResizePlugin } from './persistent-volume-claim-resize.ts';
import { priorityPlugin } from './priority.ts';
import { resourceQuotaPlugin } from './resource-quota.ts';
import { runtimeClassPlugin } from './runtime-class.ts';
import { storageObjectInUseProtection } from './storage-object-in-use-protection.ts';

/** Every plugin of Kubernetes 1.28, in the order the server runs them. */
export const PLUGIN_ORDER = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;
export type PluginName = (typeof PLUGIN_ORDER)[number];

/** Kubernetes 1.28's default-enabled set (../shared/kubernetes-1.28/admission-plugins.txt). */
export const DEFAULT_ENABLED: readonly PluginName[] = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
];

/** What a plugin may use when it is made. */
export interface PluginEnv {
  registry: Registry;
  /** The server's authorizers (plugins that check the user's permissions ask them). */
  authorizer: AuthorizerChain;
  options: ServerOptions;
  /**
   * The plugin's configuration from `--admission-control-config-file` (the `configuration`
   * object of its entry, or the parsed file its `path` names); undefined when none is given.
   */
  config: unknown;
}

/** Plugins that cannot start without a configuration (`--admission-control-config-file`). */
export const NEEDS_CONFIGURATION: readonly PluginName[] = ['EventRateLimit', 'ImagePolicyWebhook'];

/** Makes one plugin; throws (an Error whose message names the plugin) on a bad configuration. */
export type PluginFactory = (env: PluginEnv) => AdmissionPlugin;

export const FACTORIES: Partial<Record<PluginName, PluginFactory>> = {
  MutatingAdmissionWebhook: mutatingAdmissionWebhook,
  ValidatingAdmissionWebhook: validatingAdmissionWebhook,
  ValidatingAdmissionPolicy: validatingAdmissionPolicy,
  AlwaysAdmit: alwaysAdmit,
  NamespaceAutoProvision: namespaceAutoProvision,
  NamespaceLifecycle: namespaceLifecycle,
  NamespaceExists: namespaceExists,
  SecurityContextDeny: securityContextDeny,
  LimitPodHardAntiAffinityTopology: limitPodHardAntiAffinityTopology,
  ServiceAccount: serviceAccount,
  TaintNodesByCondition: taintNodesByCondition,
  AlwaysPullImages: alwaysPullImages,
  PodNodeSelector: podNodeSelector,
  DefaultTolerationSeconds: defaultTolerationSeconds,
  PodTolerationRestriction: podTolerationRestriction,
  ExtendedResourceToleration: extendedResourceToleration,
  PersistentVolumeLabel: persistentVolumeLabel,
  DenyServiceExternalIPs: denyServiceExternalIPs,
  AlwaysDeny: alwaysDeny,
  PodSecurity: podSecurity,
  OwnerReferencesPermissionEnforcement: ownerReferencesPermissionEnforcement,
  CertificateApproval: certificateApproval,
  CertificateSigning: certificateSigning,
  ClusterTrustBundleAttest: clusterTrustBundleAttest,
  CertificateSubjectRestriction: () => certificateSubjectRestriction,
  NodeRestriction: nodeRestriction,
  EventRateLimit: eventRateLimit,
  // the connection file's path is taken relative to the admission configuration file
  ImagePolicyWebhook: (env) =>
    imagePolicyWebhook({
      config: env.config,
      configDir: env.options.admissionControlConfigFile
        ? dirname(env.options.admissionControlConfigFile)
        : undefined,
    }),
  LimitRanger: ({ registry }) => limitRangerPlugin(registry),
  Priority: ({ registry }) => priorityPlugin(registry),
  DefaultStorageClass: ({ registry }) => defaultStorageClassPlugin(registry),
  StorageObjectInUseProtection: () => storageObjectInUseProtection,
  PersistentVolumeClaimResize: ({ registry }) => persistentVolumeClaimResizePlugin(registry),
  RuntimeClass: ({ registry }) => runtimeClassPlugin(registry),
  DefaultIngressClass: ({ registry }) => defaultIngressClassPlugin(registry),
  ResourceQuota: ({ registry }) => resourceQuotaPlugin(registry),
};

export function isPluginName(s: string): s is PluginName {
  return (PLUGIN_ORDER as readonly string[]).includes(s);
}

/**
 * The enabled plugins in run order: the defaults, plus `enable`, minus `disable`. Unknown
 * names are refused (as Kubernetes refuses them at start).
 */
export function enabledPlugins(enable: readonly string[], disable: readonly string[]): PluginName[] {
  for (const [flag, names] of [
    ['--enable-admission-plugins', enable],
    ['--disable-admission-plugins', disable],
  ] as const)
    for (const n of names)
      if (!isPluginName(n))
        throw new Error(`${flag}: unknown admission plugin "${n}" (known: ${PLUGIN_ORDER.join(', ')})`);
  const on = new Set<string>([...DEFAULT_ENABLED, ...enable]);
  for (const n of disable) on.delete(n);
  return PLUGIN_ORDER.filter((n) => on.has(n));
}
