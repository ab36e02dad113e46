// ResourceQuota (core/v1) with the `status` subresource: hard limits on what a namespace may
// hold (object counts, compute requests and limits, storage), and the usage the quota
// system records in status (the ResourceQuota admission plugin keeps `status.used`).
import type { StatusCause } from '../../errors/status.ts';
import { arr, mapOf, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import { nanosOf } from '../../schema/quantity-math.ts';
import type { KObject } from '../../storage/types.ts';
import {
  Causes,
  causesOf,
  keepAllButStatus,
  normalizeBySchema,
  quantity,
  specStatusHooks,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { nonNegativeQuantity, resourceName } from './resource-lists.ts';

export interface ScopedRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

export interface ResourceQuota {
  metadata: KObject['metadata'];
  spec?: {
    hard?: Record<string, string>;
    scopes?: string[];
    scopeSelector?: { matchExpressions?: ScopedRequirement[] };
  };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

const list = () => mapOf(quantity());
const schema = objectSchema({
  spec: obj({
    hard: list(),
    scopes: arr(str(), { 'x-orch-list-type': 'atomic' }),
    scopeSelector: obj(
      {
        matchExpressions: arr(
          obj(
            { scopeName: str(), operator: str(), values: arr(str()) },
            { required: ['scopeName', 'operator'] },
          ),
          {
            'x-orch-list-type': 'atomic',
          },
        ),
      },
      { 'x-orch-map-type': 'atomic' },
    ),
  }),
  status: obj({ hard: list(), used: list() }),
});

/** Object counts a quota may name by their short name (beside `count/<resource>.<group>`). */
export const COUNTED = [
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
];
/** Compute and storage resources a quota may name. */
const COMPUTE = [
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
  'ephemeral-storage',
  'requests.ephemeral-storage',
  'limits.ephemeral-storage',
  'requests.storage',
];

export const QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
];
const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Whether a resource is counted in whole numbers (object counts). */
export function isIntegerResource(name: string): boolean {
  return COUNTED.includes(name) || name.startsWith('count/');
}

function isStandardQuotaResource(name: string): boolean {
  return (
    COUNTED.includes(name) ||
    COMPUTE.includes(name) ||
    name.startsWith('count/') ||
    name.startsWith('requests.hugepages-') ||
    name.startsWith('hugepages-')
  );
}

function validateList(field: string, m: Record<string, string> | undefined): StatusCause[] {
  const causes = new Causes();
  for (const [k, v] of Object.entries(m ?? {})) {
    const f = `${field}[${k}]`;
    if (!k.startsWith('count/'))
      causes.push(...resourceName(f, k, isStandardQuotaResource, 'must be a standard resource for quota'));
    causes.push(...nonNegativeQuantity(f, v));
    const n = nanosOf(v);
    if (isIntegerResource(k) && n !== undefined && n % 1_000_000_000n !== 0n)
      causes.invalid(f, v, 'must be an integer');
  }
  return causes;
}

function validateScopes(rq: ResourceQuota): StatusCause[] {
  const causes = new Causes();
  const spec = rq.spec ?? {};
  const scopes = new Set<string>();
  for (const s of spec.scopes ?? []) {
    if (!QUOTA_SCOPES.includes(s))
      causes.invalid('spec.scopes', spec.scopes, 'unsupported scope applied to resource quota');
    scopes.add(s);
  }
  (spec.scopeSelector?.matchExpressions ?? []).forEach((e, i) => {
    const p = `spec.scopeSelector.matchExpressions[${i}]`;
    if (!QUOTA_SCOPES.includes(e.scopeName ?? ''))
      causes.invalid(`${p}.scopeName`, e.scopeName ?? '', 'unsupported scope');
    if (!SELECTOR_OPERATORS.includes(e.operator ?? ''))
      causes.invalid(`${p}.operator`, e.operator ?? '', 'not a valid selector operator');
    const values = e.values ?? [];
    if ((e.operator === 'In' || e.operator === 'NotIn') && values.length === 0)
      causes.required(
        `${p}.values`,
        "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
      );
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length > 0)
      causes.invalid(
        `${p}.values`,
        values,
        "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
      );
    if (
      e.scopeName &&
      e.scopeName !== 'PriorityClass' &&
      e.operator !== 'Exists' &&
      e.operator !== 'DoesNotExist' &&
      SELECTOR_OPERATORS.includes(e.operator ?? '')
    )
      causes.invalid(
        `${p}.operator`,
        e.operator,
        `must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity`,
      );
    if (e.scopeName) scopes.add(e.scopeName);
  });
  if (scopes.has('Terminating') && scopes.has('NotTerminating'))
    causes.invalid('spec.scopes', spec.scopes ?? [], 'conflicting scopes');
  if (scopes.has('BestEffort') && scopes.has('NotBestEffort'))
    causes.invalid('spec.scopes', spec.scopes ?? [], 'conflicting scopes');
  // a best-effort quota can only count pods
  if (scopes.has('BestEffort'))
    for (const k of Object.keys(spec.hard ?? {}))
      if (k !== 'pods' && k !== 'count/pods')
        causes.invalid('spec.hard', k, 'unsupported scope applied to resource');
  return causes;
}

function validateResourceQuota(o: KObject): StatusCause[] {
  const rq = o as ResourceQuota;
  return [
    ...validateList('spec.hard', rq.spec?.hard),
    ...validateScopes(rq),
    ...validateList('status.hard', rq.status?.hard),
    ...validateList('status.used', rq.status?.used),
  ];
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const causes = causesOf(validateResourceQuota(o));
  const now = [...new Set((o as ResourceQuota).spec?.scopes ?? [])].sort();
  const before = [...new Set((old as ResourceQuota).spec?.scopes ?? [])].sort();
  if (JSON.stringify(now) !== JSON.stringify(before))
    causes.invalid('spec.scopes', (o as ResourceQuota).spec?.scopes ?? [], 'field is immutable');
  return causes;
}

/** `requests.cpu: 0/1, pods: 1/10` for the Request column, the `limits.*` entries for the Limit one. */
function usageCell(o: KObject, limits: boolean): string {
  const rq = o as ResourceQuota;
  const hard = rq.status?.hard ?? rq.spec?.hard ?? {};
  const used = rq.status?.used ?? {};
  return Object.keys(hard)
    .filter((k) => k.startsWith('limits') === limits)
    .sort()
    .map((k) => `${k}: ${used[k] ?? '0'}/${hard[k]}`)
    .join(', ');
}

export const resourceQuotaDef = defineKind({
  group: '',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  subresources: ['status'],
  schema,
  ...specStatusHooks(undefined, () => undefined),
  prepareForStatusUpdate: (o, old) => {
    normalizeBySchema(o, schema, 'ResourceQuota');
    keepAllButStatus(o, old);
  },
  validate: validateResourceQuota,
  validateUpdate,
  table: printed('resourceQuota', { Request: (o) => usageCell(o, false), Limit: (o) => usageCell(o, true) }),
});
