// Faults against doc3's plugin table for the plugins of the scheduling, node, quota,
// networking and storage kinds: each keeps one plugin from doing its part, by rewriting what a
// client writes (so the plugin has nothing to act on, or acts on something else) or what the
// server answers (so what the plugin filled in is missing). suites/admission/plugins-kinds
// must catch every one.
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const ns = '/api/v1/namespaces/[^/]+';
const PODS = new RegExp(`^${ns}/pods(/[^/]+)?$`);
const CLAIMS = new RegExp(`^${ns}/persistentvolumeclaims(/[^/]+)?$`);
const VOLUMES = /^\/api\/v1\/persistentvolumes(\/[^/]+)?$/;
const LIMIT_RANGES = new RegExp(`^${ns}/limitranges$`);
const QUOTAS = new RegExp(`^${ns}/resourcequotas(/[^/]+)?$`);
const INGRESSES = /^\/apis\/networking\.orch\.io\/v1\/namespaces\/[^/]+\/ingresses$/;
const STORAGE_CLASSES = /^\/apis\/storage\.orch\.io\/v1\/storageclasses$/;

type Obj = Record<string, any>;

/** A create (POST) to a collection matching `path`, its JSON body changed by `f` (left alone when `f` says no change). */
function rewriteCreate(r: ProxiedRequest, path: RegExp, f: (o: Obj) => boolean): ProxiedRequest {
  if (r.method !== 'POST' || !path.test(r.url.pathname)) return r;
  const b = bodyOf(r.body);
  if (!b || typeof b !== 'object') return r;
  return f(b) ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
}

/** Every object of an answer about `path` (an object or a list), changed by `f`. */
function mapAnswered(
  r: ProxiedRequest,
  res: ProxiedResponse,
  path: RegExp,
  f: (o: Obj) => void,
): ProxiedResponse {
  if (!path.test(r.url.pathname)) return res;
  return mapJson(res, (j) => {
    for (const o of Array.isArray(j?.items) ? j.items : [j])
      if (o && typeof o === 'object' && o.kind !== 'Status') f(o);
    return j;
  });
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'priority-not-filled',
    response: (r, res) =>
      mapAnswered(r, res, PODS, (o) => {
        if (o.spec) delete o.spec.priority;
      }),
  },
  {
    name: 'priority-unknown-class-admitted',
    request: (r) =>
      rewriteCreate(r, PODS, (o) => {
        if (typeof o.spec?.priorityClassName !== 'string' || !o.spec.priorityClassName.startsWith('missing-'))
          return false;
        delete o.spec.priorityClassName;
        return true;
      }),
  },
  {
    name: 'runtimeclass-overhead-not-filled',
    response: (r, res) =>
      mapAnswered(r, res, PODS, (o) => {
        if (o.spec) delete o.spec.overhead;
      }),
  },
  {
    name: 'runtimeclass-pod-overhead-admitted',
    request: (r) =>
      rewriteCreate(r, PODS, (o) => {
        if (!o.spec?.overhead || o.spec.runtimeClassName) return false;
        delete o.spec.overhead;
        return true;
      }),
  },
  {
    name: 'limitranger-defaults-dropped',
    request: (r) =>
      rewriteCreate(r, LIMIT_RANGES, (o) => {
        let changed = false;
        for (const item of Array.isArray(o.spec?.limits) ? o.spec.limits : [])
          for (const k of ['default', 'defaultRequest'])
            if (item?.[k] !== undefined) {
              delete item[k];
              changed = true;
            }
        return changed;
      }),
  },
  {
    name: 'limitranger-bounds-dropped',
    request: (r) =>
      rewriteCreate(r, LIMIT_RANGES, (o) => {
        let changed = false;
        for (const item of Array.isArray(o.spec?.limits) ? o.spec.limits : [])
          for (const k of ['min', 'max', 'maxLimitRequestRatio'])
            if (item?.[k] !== undefined) {
              delete item[k];
              changed = true;
            }
        return changed;
      }),
  },
  {
    name: 'quota-hard-raised',
    request: (r) =>
      rewriteCreate(r, QUOTAS, (o) => {
        let changed = false;
        const hard = o.spec?.hard ?? {};
        for (const [k, v] of Object.entries(hard))
          if (typeof v === 'string' && /^[1-9]\d*$/.test(v)) {
            hard[k] = String(Number(v) * 1000);
            changed = true;
          }
        return changed;
      }),
  },
  {
    name: 'quota-usage-not-recorded',
    response: (r, res) =>
      mapAnswered(r, res, QUOTAS, (o) => {
        if (o.status) delete o.status.used;
      }),
  },
  {
    name: 'default-ingress-class-skipped',
    request: (r) =>
      rewriteCreate(r, INGRESSES, (o) => {
        if (o.spec?.ingressClassName !== undefined) return false;
        o.metadata = {
          ...(o.metadata ?? {}),
          annotations: { ...(o.metadata?.annotations ?? {}), 'orch.io/ingress.class': 'proxy' },
        };
        return true;
      }),
  },
  {
    name: 'default-storage-class-skipped',
    request: (r) =>
      rewriteCreate(r, CLAIMS, (o) => {
        if (!o.spec || o.spec.storageClassName !== undefined) return false;
        o.spec.storageClassName = '';
        return true;
      }),
  },
  {
    name: 'pvc-resize-always-allowed',
    request: (r) =>
      rewriteCreate(r, STORAGE_CLASSES, (o) => {
        if (o.allowVolumeExpansion === true) return false;
        o.allowVolumeExpansion = true;
        return true;
      }),
  },
  {
    name: 'pvc-resize-never-allowed',
    request: (r) =>
      rewriteCreate(r, STORAGE_CLASSES, (o) => {
        if (o.allowVolumeExpansion !== true) return false;
        o.allowVolumeExpansion = false;
        return true;
      }),
  },
  {
    name: 'protection-finalizers-dropped',
    response: (r, res) => {
      const drop = (o: Obj) => {
        const f = o.metadata?.finalizers;
        if (Array.isArray(f))
          o.metadata.finalizers = f.filter(
            (x: string) => x !== 'orch.io/pvc-protection' && x !== 'orch.io/pv-protection',
          );
      };
      return mapAnswered(r, mapAnswered(r, res, CLAIMS, drop), VOLUMES, drop);
    },
  },
];
