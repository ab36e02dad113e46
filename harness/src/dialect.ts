// The word mapping between the spec's `orch` identifiers and Kubernetes' own, so the same
// suites run against the reference server (dialect `orch`) and a real cluster (`kubernetes`).

export type DialectName = 'orch' | 'kubernetes';

/** Pairs [orch form, Kubernetes form], most specific first. */
const PAIRS: [string, string][] = [
  ['application/vnd.orch.protobuf', 'application/vnd.kubernetes.protobuf'],
  ['ORCH_EXEC_INFO', 'KUBERNETES_EXEC_INFO'],
  ['x-orch-', 'x-kubernetes-'],
  ['orch-system', 'kube-system'],
  ['orch-public', 'kube-public'],
  ['orch-node-lease', 'kube-node-lease'],
  // annotations and finalizers Kubernetes spells with kubernetes.io
  ['ingressclass.orch.io/', 'ingressclass.kubernetes.io/'],
  ['storageclass.orch.io/', 'storageclass.kubernetes.io/'],
  ['orch.io/pvc-protection', 'kubernetes.io/pvc-protection'],
  ['orch.io/pv-protection', 'kubernetes.io/pv-protection'],
  ['orch.io/limit-ranger', 'kubernetes.io/limit-ranger'],
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
    for (const [k, x] of Object.entries(v)) o[f(k)] = deep(x, f);
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
