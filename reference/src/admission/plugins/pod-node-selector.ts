// PodNodeSelector (doc3 plugin table: node selectors from the namespace annotation
// `scheduler.alpha.orch.io/node-selector` and the configuration; conflicts reject; off by
// default). As Kubernetes 1.28, on a pod's creation:
//  - the namespace's selector is its annotation (`k=v,k2=v2`), or, when the namespace has no
//    such annotation, the configuration's `clusterDefaultNodeSelector`;
//  - a pod node selector that gives one of its keys another value is refused (403, "pod node
//    label selector conflicts with its namespace node label selector"); otherwise the two are
//    merged into the pod's `nodeSelector`;
//  - the configuration's entry named after the namespace is its allow-list: a merged selector
//    with a key it lacks, or another value, is refused (403, "pod node label selector labels
//    conflict with its namespace whitelist").
// Configuration (`--admission-control-config-file`): `podNodeSelectorPluginConfig` maps
// `clusterDefaultNodeSelector` and namespace names to selectors. A malformed annotation is
// refused with 403 naming it (where Kubernetes answers 500).
import type { Registry } from '../../registry/registry.ts';
import { validLabelKey, validLabelValue } from '../../selectors/labels.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { forbidden, isCoreWrite, podSpec } from './util.ts';

export const NODE_SELECTOR_ANNOTATION = 'scheduler.alpha.orch.io/node-selector';
const CLUSTER_DEFAULT = 'clusterDefaultNodeSelector';

type LabelSet = Record<string, string>;

/** Kubernetes' ConvertSelectorToLabelsMap: `k=v,k2=v2` (only `=`); throws an Error saying what is wrong. */
export function selectorToLabels(s: string): LabelSet {
  const out: LabelSet = {};
  if (!s) return out;
  for (const part of s.split(',')) {
    const kv = part.split('=');
    if (kv.length !== 2) throw new Error(`invalid selector: [${kv.join(' ')}]`);
    const key = kv[0]!.trim();
    const value = kv[1]!.trim();
    const badKey = validLabelKey(key);
    if (badKey) throw new Error(`key: Invalid value: "${key}": ${badKey}`);
    const badValue = validLabelValue(value);
    if (badValue) throw new Error(`values[0][${key}]: Invalid value: "${value}": ${badValue}`);
    out[key] = value;
  }
  return out;
}

const conflicts = (x: LabelSet, y: LabelSet) => Object.entries(x).some(([k, v]) => k in y && y[k] !== v);

/** The plugin's configuration: selector strings by namespace name (and clusterDefaultNodeSelector). */
export function readPodNodeSelectorConfig(config: unknown): Record<string, string> {
  if (config === undefined || config === null) return {};
  const what = 'PodNodeSelector configuration';
  if (typeof config !== 'object' || Array.isArray(config)) throw new Error(`${what}: not an object`);
  const m = (config as Record<string, unknown>).podNodeSelectorPluginConfig;
  if (m === undefined || m === null) return {};
  if (typeof m !== 'object' || Array.isArray(m))
    throw new Error(`${what}: podNodeSelectorPluginConfig must map names to selectors`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== 'string') throw new Error(`${what}: podNodeSelectorPluginConfig.${k} must be a string`);
    try {
      selectorToLabels(v);
    } catch (e) {
      throw new Error(`${what}: podNodeSelectorPluginConfig.${k}: ${(e as Error).message}`);
    }
    out[k] = v;
  }
  return out;
}

export const podNodeSelector = (env: { registry: Registry; config: unknown }): AdmissionPlugin => {
  const selectors = readPodNodeSelectorConfig(env.config);
  const namespaceSelector = (a: AdmissionAttributes): LabelSet => {
    const ns = env.registry.byResource('', 'namespaces')?.store.getStored('', a.namespace)?.obj;
    const annotations = (ns?.metadata.annotations ?? {}) as Record<string, string>;
    const v = annotations[NODE_SELECTOR_ANNOTATION];
    if (v === undefined) return selectorToLabels(selectors[CLUSTER_DEFAULT] ?? '');
    try {
      return selectorToLabels(v);
    } catch (e) {
      throw forbidden(
        a,
        `the ${NODE_SELECTOR_ANNOTATION} annotation of namespace ${a.namespace}: ${(e as Error).message}`,
      );
    }
  };
  const check = (a: AdmissionAttributes, nsSel: LabelSet) => {
    const pod = (podSpec(a).nodeSelector ?? {}) as LabelSet;
    if (conflicts(nsSel, pod))
      throw forbidden(a, 'pod node label selector conflicts with its namespace node label selector');
    const allowed = selectorToLabels(selectors[a.namespace] ?? '');
    if (Object.keys(allowed).length && !Object.entries(pod).every(([k, v]) => allowed[k] === v))
      throw forbidden(a, 'pod node label selector labels conflict with its namespace whitelist');
  };
  return {
    name: 'PodNodeSelector',
    handles: (a) => a.operation === 'CREATE' && isCoreWrite(a, 'pods') && !!a.object,
    mutate(a) {
      const nsSel = namespaceSelector(a);
      const spec = podSpec(a);
      const pod = (spec.nodeSelector ?? {}) as LabelSet;
      if (conflicts(nsSel, pod))
        throw forbidden(a, 'pod node label selector conflicts with its namespace node label selector');
      const merged = { ...nsSel, ...pod };
      if (Object.keys(merged).length) spec.nodeSelector = merged;
      check(a, nsSel);
    },
    validate(a) {
      check(a, namespaceSelector(a));
    },
  };
};
