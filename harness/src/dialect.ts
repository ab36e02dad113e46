// The word mapping between the spec's `orch` identifiers and Kubernetes' own, so the same
// suites run against the reference server (dialect `orch`) and a real cluster (`kubernetes`).

export type DialectName = 'orch' | 'kubernetes';

/** Prefixes `<p>.kubernetes.io/` of Kubernetes' label, annotation and type keys. */
const KUBERNETES_IO_PREFIXES = [
  'ingressclass',
  'storageclass',
  'pod-security',
  'bootstrap',
  'scheduler.alpha',
  'node-restriction',
  'topology',
  'deployment',
  'volume',
  'pv',
];
/** The node condition taints (`node.kubernetes.io/<t>`; `node.k8s.io` is the RuntimeClass group). */
const NODE_TAINTS = [
  'not-ready',
  'unreachable',
  'memory-pressure',
  'disk-pressure',
  'pid-pressure',
  'network-unavailable',
  'unschedulable',
  'out-of-service',
];
/** Names `kubernetes.io/<n>`: well-known labels, annotations, finalizers, secret types, signers. */
const KUBERNETES_IO_NAMES = [
  'pvc-protection',
  'pv-protection',
  'limit-ranger',
  'hostname',
  'os',
  'arch',
  'metadata.name',
  'config.mirror',
  'ingress.class',
  'serviceaccount',
  'service-account-token',
  'service-account.name',
  'service-account.uid',
  'enforce-mountable-secrets',
  'legacy-token-last-used',
  'legacy-token-invalid-since',
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

/** Pairs [orch form, Kubernetes form], most specific first. */
const PAIRS: [string, string][] = [
  ['application/vnd.orch.protobuf', 'application/vnd.kubernetes.protobuf'],
  ['ORCH_EXEC_INFO', 'KUBERNETES_EXEC_INFO'],
  ['x-orch-', 'x-kubernetes-'],
  ['orch-system', 'kube-system'],
  ['orch-public', 'kube-public'],
  ['orch-node-lease', 'kube-node-lease'],
  // the names the root-CA publisher and the ServiceAccount plugin give what they make
  ['orch-root-ca.crt', 'kube-root-ca.crt'],
  ['orch-api-access-', 'kube-api-access-'],
  // labels, annotations, taints, finalizers, secret types and signer names Kubernetes spells
  // with kubernetes.io (checked against a kube-apiserver 1.28: the group names keep k8s.io)
  ...KUBERNETES_IO_PREFIXES.map((p): [string, string] => [`${p}.orch.io/`, `${p}.kubernetes.io/`]),
  ...NODE_TAINTS.map((t): [string, string] => [`node.orch.io/${t}`, `node.kubernetes.io/${t}`]),
  ...KUBERNETES_IO_NAMES.map((n): [string, string] => [`orch.io/${n}`, `kubernetes.io/${n}`]),
  ['orch.io', 'k8s.io'],
  ['orchConfigFile', 'kubeConfigFile'],
  ['orchAPIQPS', 'kubeAPIQPS'],
  ['orchAPIBurst', 'kubeAPIBurst'],
  ['orchReservedCgroup', 'kubeReservedCgroup'],
  ['orchReserved', 'kubeReserved'],
  ['agentCgroups', 'kubeletCgroups'],
];

/** Whole-value words (exact matches only): the namespace finalizer. */
const EXACT: [string, string][] = [['orch', 'kubernetes']];

export interface Dialect {
  name: DialectName;
  /** Maps a spec (orch) string to the target's word. */
  w(s: string): string;
  /** Maps a target string back to the spec's word. */
  back(s: string): string;
  /** Deep-maps keys and string values of a JSON value (spec -> target). */
  out<T>(v: T): T;
  /** Deep-maps keys and string values of a JSON value (target -> spec). */
  in<T>(v: T): T;
}

function replaceAll(s: string, pairs: [string, string][], dir: 0 | 1): string {
  for (const p of EXACT) if (s === p[dir]) return p[1 - dir]!;
  let out = s;
  for (const p of pairs) if (out.includes(p[dir])) out = out.split(p[dir]).join(p[1 - dir]!);
  return out;
}

function deep(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => deep(x, f));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    // defined, not assigned: a key `__proto__` (a JSON object may have one) stays a key
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(o, f(k), {
        value: deep(x, f),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return o;
  }
  return v;
}

export function dialect(name: DialectName = 'orch'): Dialect {
  if (name === 'orch') {
    const id = <T>(v: T) => v;
    return { name, w: (s) => s, back: (s) => s, out: id, in: id };
  }
  const w = (s: string) => replaceAll(s, PAIRS, 0);
  const back = (s: string) => replaceAll(s, PAIRS, 1);
  return {
    name,
    w,
    back,
    out: <T>(v: T) => deep(v, w) as T,
    in: <T>(v: T) => deep(v, back) as T,
  };
}
