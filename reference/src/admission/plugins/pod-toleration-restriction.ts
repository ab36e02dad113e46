// PodTolerationRestriction (doc3 plugin table: merges namespace tolerations
// (`scheduler.alpha.orch.io/defaultTolerations`) and checks the allow-list
// (`scheduler.alpha.orch.io/tolerationsWhitelist`); off by default). As Kubernetes 1.28:
//  - on a pod's creation, the namespace's default tolerations (its annotation, a JSON list of
//    tolerations; without one, the configuration's `default`) are merged into the pod's;
//  - a pod that is not BestEffort (some container requests or limits a resource) also gets
//    `{key: node.orch.io/memory-pressure, operator: Exists, effect: NoSchedule}`;
//  - merging keeps a toleration only when no other one tolerates a superset of what it does;
//  - on creation and update, every toleration of the pod must be tolerated by one of the
//    namespace's allow-list (its annotation; without one, the configuration's `whitelist`;
//    an empty list allows all), else 403 ("pod tolerations (possibly merged with namespace
//    default tolerations) conflict with its namespace whitelist").
// A malformed annotation is refused with 403 naming it (where Kubernetes answers 500).
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { forbidden, isPodWrite, podSpec, type Toleration } from './util.ts';
import { deepEqual } from '../../util/object.ts';

export const DEFAULT_TOLERATIONS_ANNOTATION = 'scheduler.alpha.orch.io/defaultTolerations';
export const TOLERATIONS_WHITELIST_ANNOTATION = 'scheduler.alpha.orch.io/tolerationsWhitelist';
export const MEMORY_PRESSURE_TAINT = 'node.orch.io/memory-pressure';

const same = (x: Toleration, y: Toleration) =>
  deepEqual(
    {
      key: x.key ?? '',
      operator: x.operator ?? '',
      value: x.value ?? '',
      effect: x.effect ?? '',
      s: x.tolerationSeconds,
    },
    {
      key: y.key ?? '',
      operator: y.operator ?? '',
      value: y.value ?? '',
      effect: y.effect ?? '',
      s: y.tolerationSeconds,
    },
  );

/** Whether `ss` tolerates everything `t` does (Kubernetes' isSuperset). */
export function tolerationCovers(ss: Toleration, t: Toleration): boolean {
  if (same(ss, t)) return true;
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false;
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds !== undefined) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Kubernetes' MergeTolerations: both lists, less what another toleration covers (equal ones: the first). */
export function mergeTolerations(first: Toleration[], second: Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => tolerationCovers(m, t))) return;
    if (all.slice(i + 1).some((t2) => !same(t, t2) && tolerationCovers(t2, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Every toleration is covered by one of the allow-list (an empty list or no tolerations: true). */
export function allowedBy(tolerations: Toleration[], whitelist: Toleration[]): boolean {
  if (!whitelist.length || !tolerations.length) return true;
  return tolerations.every((t) => whitelist.some((w) => tolerationCovers(w, t)));
}

function tolerationList(v: unknown, what: string): Toleration[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not a list of tolerations`);
  for (const t of v)
    if (!t || typeof t !== 'object' || Array.isArray(t))
      throw new Error(`${what} is not a list of tolerations`);
  const fields: [keyof Toleration, string][] = [
    ['key', 'string'],
    ['operator', 'string'],
    ['value', 'string'],
    ['effect', 'string'],
    ['tolerationSeconds', 'number'],
  ];
  return (v as Record<string, unknown>[]).map((t) => {
    const out: Toleration = {};
    for (const [f, type] of fields) {
      if (t[f] === undefined || t[f] === null) continue;
      if (typeof t[f] !== type) throw new Error(`${what}: ${f} must be a ${type}`);
      (out as Record<string, unknown>)[f] = t[f];
    }
    return out;
  });
}

/** The configuration: `default` and `whitelist` tolerations (PodTolerationRestrictionConfig). */
export function readTolerationConfig(config: unknown): { default?: Toleration[]; whitelist?: Toleration[] } {
  if (config === undefined || config === null) return {};
  const what = 'PodTolerationRestriction configuration';
  if (typeof config !== 'object' || Array.isArray(config)) throw new Error(`${what}: not an object`);
  const c = config as Record<string, unknown>;
  return {
    default: c.default == null ? undefined : tolerationList(c.default, `${what}: default`),
    whitelist: c.whitelist == null ? undefined : tolerationList(c.whitelist, `${what}: whitelist`),
  };
}

const isBestEffort = (a: AdmissionAttributes) => {
  const spec = podSpec(a);
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])].every(
    (c) =>
      !Object.keys(c?.resources?.requests ?? {}).length && !Object.keys(c?.resources?.limits ?? {}).length,
  );
};

export const podTolerationRestriction = (env: { registry: Registry; config: unknown }): AdmissionPlugin => {
  const config = readTolerationConfig(env.config);
  /** The namespace's annotation as tolerations; undefined when it has none. */
  const fromNamespace = (a: AdmissionAttributes, annotation: string): Toleration[] | undefined => {
    const ns = env.registry.byResource('', 'namespaces')?.store.getStored('', a.namespace)?.obj;
    const v = ((ns?.metadata.annotations ?? {}) as Record<string, string>)[annotation];
    if (v === undefined) return undefined;
    if (v === '') return [];
    try {
      return tolerationList(JSON.parse(v), `the ${annotation} annotation of namespace ${a.namespace}`);
    } catch (e) {
      const msg =
        e instanceof SyntaxError
          ? `the ${annotation} annotation of namespace ${a.namespace} is not JSON`
          : (e as Error).message;
      throw forbidden(a, msg);
    }
  };
  return {
    name: 'PodTolerationRestriction',
    handles: (a) => isPodWrite(a) && !!a.object,
    mutate(a) {
      const spec = podSpec(a);
      let extra: Toleration[] = [];
      if (a.operation === 'CREATE')
        extra = fromNamespace(a, DEFAULT_TOLERATIONS_ANNOTATION) ?? config.default ?? [];
      if (!isBestEffort(a))
        extra = [...extra, { key: MEMORY_PRESSURE_TAINT, operator: 'Exists', effect: 'NoSchedule' }];
      if (extra.length) spec.tolerations = mergeTolerations((spec.tolerations ?? []) as Toleration[], extra);
    },
    validate(a) {
      const tolerations = (podSpec(a).tolerations ?? []) as Toleration[];
      if (!tolerations.length) return;
      let whitelist = fromNamespace(a, TOLERATIONS_WHITELIST_ANNOTATION);
      let scope = 'namespace';
      if (whitelist === undefined) {
        whitelist = config.whitelist ?? [];
        scope = 'cluster';
      }
      if (!allowedBy(tolerations, whitelist))
        throw forbidden(
          a,
          `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`,
        );
    },
  };
};
