// Faults against doc3's plugin table for the plugins of the scheduling, node, quota,
// networking and storage kinds: each keeps one plugin from doing its part, by rewriting what a
// client writes (so the plugin has nothing to act on, or acts on something else) or what the
// server answers (so what the plugin filled in is missing). suites/admission/plugins-kinds
// must catch every one.
import type { Fault, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
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
function mapAnswered(r: ProxiedRequest, res: ProxiedResponse, path: RegExp, f: (o: Obj) => void): ProxiedResponse {
  if (!path.test(r.url.pathname)) return res;
  return mapJson(res, (j) => {
    for (const o of Array.isArray(j?.items) ? j.items : [j]) if (o && typeof o === 'object' && o.kind !== 'Status') f(o);
    return j;
  });
}

const plugin = (id: string) => `admission/plugins/${id}`;

export const FAULTS: Fault[] = [
  {
    name: 'priority-not-filled',
    breaks: 'doc3 plugin table, Priority: fills priority from `priorityClassName` (the proxy leaves spec.priority out of every pod the server answers)',
    area: 'admission',
    catchers: [plugin('priority-from-class'), plugin('priority-global-default')],
    response: (r, res) =>
      mapAnswered(r, res, PODS, (o) => {
        if (o.spec) delete o.spec.priority;
      }),
  },
  {
    name: 'priority-unknown-class-admitted',
    breaks:
      'doc3 plugin table, Priority: unknown class rejects (the proxy drops a priorityClassName naming a missing class, so the pod is accepted)',
    area: 'admission',
    catchers: [plugin('priority-unknown-class')],
    request: (r) =>
      rewriteCreate(r, PODS, (o) => {
        if (typeof o.spec?.priorityClassName !== 'string' || !o.spec.priorityClassName.startsWith('missing-')) return false;
        delete o.spec.priorityClassName;
        return true;
      }),
  },
  {
    name: 'runtimeclass-overhead-not-filled',
    breaks: 'doc3 plugin table, RuntimeClass: fills `.spec.overhead` from the runtime class (the proxy leaves spec.overhead out of every pod the server answers)',
    area: 'admission',
    catchers: [plugin('runtimeclass-fills-overhead')],
    response: (r, res) =>
      mapAnswered(r, res, PODS, (o) => {
        if (o.spec) delete o.spec.overhead;
      }),
  },
  {
    name: 'runtimeclass-pod-overhead-admitted',
    breaks:
      'doc3 plugin table, RuntimeClass: rejects workload units that set `overhead` (the proxy drops the overhead of a pod naming no runtime class, so it is accepted)',
    area: 'admission',
    catchers: [plugin('runtimeclass-rejects-pod-overhead')],
    request: (r) =>
      rewriteCreate(r, PODS, (o) => {
        if (!o.spec?.overhead || o.spec.runtimeClassName) return false;
        delete o.spec.overhead;
        return true;
      }),
  },
  {
    name: 'limitranger-defaults-dropped',
    breaks: 'doc3 plugin table, LimitRanger: applies default requests (the proxy strips default and defaultRequest from limit ranges written)',
    area: 'admission',
    catchers: [plugin('limitranger-defaults')],
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
    breaks:
      'doc3 plugin table, LimitRanger: enforces per-namespace limit ranges (the proxy strips min, max and maxLimitRequestRatio from limit ranges written, so nothing is enforced)',
    area: 'admission',
    catchers: [plugin('limitranger-max'), plugin('limitranger-min'), plugin('limitranger-pod-and-claim')],
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
    breaks:
      'doc3 plugin table, ResourceQuota: enforces quota objects (the proxy multiplies the whole-number hard limits of quotas written by 1000, so a namespace goes over what the client asked for)',
    area: 'admission',
    catchers: [plugin('quota-exceeded'), plugin('quota-exceeded/kubernetes-shape'), plugin('quota-usage-in-status'), plugin('quota-scopes')],
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
    breaks: "doc3 plugin table, ResourceQuota: a quota's usage in status.used (Kubernetes 1.28; the proxy leaves status.used out of every quota the server answers)",
    area: 'admission',
    catchers: [plugin('quota-usage-in-status')],
    response: (r, res) =>
      mapAnswered(r, res, QUOTAS, (o) => {
        if (o.status) delete o.status.used;
      }),
  },
  {
    name: 'default-ingress-class-skipped',
    breaks:
      'doc3 plugin table, DefaultIngressClass: adds the default ingress class to creations lacking one (the proxy names a class in the older annotation of every ingress naming none, so no default is added and two defaults refuse nothing)',
    area: 'admission',
    catchers: [plugin('default-ingress-class'), plugin('default-ingress-class-two-defaults')],
    request: (r) =>
      rewriteCreate(r, INGRESSES, (o) => {
        if (o.spec?.ingressClassName !== undefined) return false;
        o.metadata = { ...(o.metadata ?? {}), annotations: { ...(o.metadata?.annotations ?? {}), 'orch.io/ingress.class': 'proxy' } };
        return true;
      }),
  },
  {
    name: 'default-storage-class-skipped',
    breaks:
      'doc3 plugin table, DefaultStorageClass: adds the default storage class to claims lacking one (the proxy asks for no class, "", in every claim naming none)',
    area: 'admission',
    catchers: [plugin('default-storage-class'), plugin('default-storage-class-two-defaults')],
    request: (r) =>
      rewriteCreate(r, CLAIMS, (o) => {
        if (!o.spec || o.spec.storageClassName !== undefined) return false;
        o.spec.storageClassName = '';
        return true;
      }),
  },
  {
    name: 'pvc-resize-always-allowed',
    breaks:
      'doc3 plugin table, PersistentVolumeClaimResize: blocks size changes unless the class sets `allowVolumeExpansion` true (the proxy writes every storage class with allowVolumeExpansion true)',
    area: 'admission',
    catchers: [plugin('pvc-resize-refused')],
    request: (r) =>
      rewriteCreate(r, STORAGE_CLASSES, (o) => {
        if (o.allowVolumeExpansion === true) return false;
        o.allowVolumeExpansion = true;
        return true;
      }),
  },
  {
    name: 'pvc-resize-never-allowed',
    breaks:
      'doc3 plugin table, PersistentVolumeClaimResize: a class with `allowVolumeExpansion` true lets bound claims grow (the proxy writes every storage class with allowVolumeExpansion false)',
    area: 'admission',
    catchers: [plugin('pvc-resize-allowed')],
    request: (r) =>
      rewriteCreate(r, STORAGE_CLASSES, (o) => {
        if (o.allowVolumeExpansion !== true) return false;
        o.allowVolumeExpansion = false;
        return true;
      }),
  },
  {
    name: 'protection-finalizers-dropped',
    breaks:
      'doc3 plugin table, StorageObjectInUseProtection: adds protection finalizers to new volume claims and volumes (the proxy leaves them out of every claim and volume the server answers)',
    area: 'admission',
    catchers: [plugin('protection-finalizers')],
    response: (r, res) => {
      const drop = (o: Obj) => {
        const f = o.metadata?.finalizers;
        if (Array.isArray(f)) o.metadata.finalizers = f.filter((x: string) => x !== 'orch.io/pvc-protection' && x !== 'orch.io/pv-protection');
      };
      return mapAnswered(r, mapAnswered(r, res, CLAIMS, drop), VOLUMES, drop);
    },
  },
];
