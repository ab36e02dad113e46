// The reference's words in its two dialects. The sources say everything a client can see in the
// spec's `orch` words; the Kubernetes dialect is the same sources built once more with every
// string and template literal, and the data files they read, put through `inKubernetesWords`
// (reference/src/server/dialect-build.ts). Each pair here was checked against the Kubernetes
// 1.28 sources and the captured facts in ../shared/kubernetes-1.28 (reference/test/words.test.ts
// finds every mapped word the real kube-apiserver says).
//
// One word that has two Kubernetes spellings (`node.orch.io` is the RuntimeClass group
// `node.k8s.io` and the label domain `node.kubernetes.io`; the namespace finalizer `orch` is
// also the dialect's own name) is chosen in code from `DIALECT` (./dialect.ts), never here.
//
// This module is never itself put through the mapping (the build leaves it as written).

/** Label, annotation, taint and type domains `<d>.orch.io` that Kubernetes spells `<d>.kubernetes.io`. */
const KUBERNETES_IO_DOMAINS = [
  'ingressclass',
  'storageclass',
  'storageclass.beta',
  'pod-security',
  'bootstrap',
  'scheduler.alpha',
  'node-restriction',
  'node-role',
  'topology',
  'deployment',
  'volume',
  'volume.beta',
  'pv',
  'beta',
  'failure-domain.beta',
  'batch',
  'endpointslice',
  'kubectl',
  'kubelet',
  'autoscaling.alpha',
  'container.apparmor.security.beta',
  'seccomp.security.alpha',
  'container.seccomp.security.alpha',
  'apf',
  'kube-aggregator',
];

/** Keys `<d>.orch.io/<k>` whose domain is an API group elsewhere (`k8s.io` as a group). */
const KUBERNETES_IO_KEYS = [
  'rbac.authorization.orch.io/autoupdate',
  'authentication.orch.io/pod-name',
  'authentication.orch.io/pod-uid',
  ...[
    'not-ready',
    'unreachable',
    'memory-pressure',
    'disk-pressure',
    'pid-pressure',
    'network-unavailable',
    'unschedulable',
    'out-of-service',
    'instance-type',
  ].map((t) => `node.orch.io/${t}`),
];

/** Names `orch.io/<n>` that Kubernetes spells `kubernetes.io/<n>`. */
const KUBERNETES_IO_NAMES = [
  'pvc-protection',
  'pv-protection',
  'limit-ranger',
  'hostname',
  'os',
  'arch',
  'role',
  'bootstrapping',
  'service-name',
  'metadata.name',
  'config.mirror',
  'ingress.class',
  'serviceaccount',
  'service-account-token',
  'service-account.name',
  'service-account.uid',
  'enforce-mountable-secrets',
  'legacy-token-last-used',
  'dockerconfigjson',
  'dockercfg',
  'basic-auth',
  'ssh-auth',
  'tls',
  'kube-apiserver-client-kubelet',
  'kube-apiserver-client',
  'kubelet-serving',
  'legacy-unknown',
  'description',
];

/** The CEL types of the admission policy and authorizer libraries (`kubernetes.<T>` in 1.28). */
const CEL_TYPES = ['AdmissionRequest', 'URL'];
/** The authorizer library's types (`kubernetes.authorization.<T>` in 1.28). */
const CEL_AUTHORIZER_TYPES = ['Authorizer', 'PathCheck', 'GroupCheck', 'ResourceCheck', 'Decision'];

/** [orch, Kubernetes]; at each place the longest orch word that starts there is taken. */
export const KUBERNETES_PAIRS: readonly (readonly [string, string])[] = [
  ['application/vnd.orch.protobuf', 'application/vnd.kubernetes.protobuf'],
  ['ORCH_EXEC_INFO', 'KUBERNETES_EXEC_INFO'],
  ['x-orch-', 'x-kubernetes-'],
  ['io.orch.', 'io.k8s.'],
  ['orch-system', 'kube-system'],
  ['orch-public', 'kube-public'],
  ['orch-node-lease', 'kube-node-lease'],
  ['orch-root-ca.crt', 'kube-root-ca.crt'],
  ['orch-api-access-', 'kube-api-access-'],
  ['orch-controller-manager', 'kube-controller-manager'],
  ['orch-apiserver', 'kube-apiserver'],
  ['orch.default.svc', 'kubernetes.default.svc'],
  ['/var/run/secrets/orch.io/', '/var/run/secrets/kubernetes.io/'],
  ['/usr/libexec/orch/agent-plugins/', '/usr/libexec/kubernetes/kubelet-plugins/'],
  ['nodeagent.config.orch.io', 'kubelet.config.k8s.io'],
  ['credentialprovider.nodeagent.orch.io', 'credentialprovider.kubelet.k8s.io'],
  ['orchConfigFile', 'kubeConfigFile'],
  ['orchAPIQPS', 'kubeAPIQPS'],
  ['orchAPIBurst', 'kubeAPIBurst'],
  ['orchReservedCgroup', 'kubeReservedCgroup'],
  ['orchReserved', 'kubeReserved'],
  ['agentCgroups', 'kubeletCgroups'],
  ...CEL_TYPES.map((t): [string, string] => [`orch.${t}`, `kubernetes.${t}`]),
  // an admission policy's `request` and `variables` (the reference names them apart from a
  // webhook's match conditions; Kubernetes' policy environment has these names)
  ['orch.PolicyAdmissionRequest', 'kubernetes.AdmissionRequest'],
  ['orch.PolicyVariables', 'kubernetes.variables'],
  ...CEL_AUTHORIZER_TYPES.map((t): [string, string] => [`orch.${t}`, `kubernetes.authorization.${t}`]),
  ...KUBERNETES_IO_DOMAINS.map((d): [string, string] => [`${d}.orch.io`, `${d}.kubernetes.io`]),
  ...KUBERNETES_IO_KEYS.map((k): [string, string] => [k, k.replace('orch.io/', 'kubernetes.io/')]),
  ...KUBERNETES_IO_NAMES.map((n): [string, string] => [`orch.io/${n}`, `kubernetes.io/${n}`]),
  ['orch.io', 'k8s.io'],
];

const MAP = new Map(KUBERNETES_PAIRS.map(([o, k]) => [o, k]));
const inRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Every orch word, longest first: the alternation takes the first that matches at a place. */
const WORDS = new RegExp(
  [...MAP.keys()]
    .sort((a, b) => b.length - a.length)
    .map(inRegExp)
    .join('|'),
  'g',
);

/**
 * An identifier's Kubernetes spelling, when the whole identifier is a word of the table (the
 * configuration fields `orchConfigFile`, `orchReserved`, ...: the sources read them as
 * properties).
 */
export function kubernetesIdentifier(name: string): string | undefined {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? MAP.get(name) : undefined;
}

/** A text in the Kubernetes dialect's words (each place mapped once, never mapped again). */
export function inKubernetesWords(text: string): string {
  return text.replace(WORDS, (w) => MAP.get(w) ?? w);
}
