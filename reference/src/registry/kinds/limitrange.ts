// LimitRange (core/v1): per-namespace bounds and defaults for the resources of containers,
// pods and volume claims (enforced by the LimitRanger admission plugin). Container items get
// their defaults filled: `default` from `max`, `defaultRequest` from `default`, then from `min`.
import type { StatusCause } from '../../errors/status.ts';
import { arr, mapOf, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import { compareQuantities, nanosOf } from '../../schema/quantity-math.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, quantity } from './common.ts';
import { defineKind } from './define.ts';
import { isOvercommitAllowed, isStandardContainerResource, resourceName } from './resource-lists.ts';

export type ResourceList = Record<string, string>;

export interface LimitRangeItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange {
  metadata: KObject['metadata'];
  spec?: { limits?: LimitRangeItem[] };
}

const list = () => mapOf(quantity());
const schema = objectSchema({
  spec: obj(
    {
      limits: arr(
        obj(
          {
            type: str(),
            max: list(),
            min: list(),
            default: list(),
            defaultRequest: list(),
            maxLimitRequestRatio: list(),
          },
          { required: ['type'] },
        ),
        { 'x-orch-list-type': 'atomic' },
      ),
    },
    { required: ['limits'] },
  ),
});

export const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

function defaults(o: KObject): void {
  for (const item of (o as LimitRange).spec?.limits ?? []) {
    if (item?.type !== 'Container') continue;
    const def: ResourceList = { ...(item.default ?? {}) };
    const req: ResourceList = { ...(item.defaultRequest ?? {}) };
    for (const [k, v] of Object.entries(item.max ?? {})) def[k] ??= v;
    for (const [k, v] of Object.entries(def)) req[k] ??= v;
    for (const [k, v] of Object.entries(item.min ?? {})) req[k] ??= v;
    if (Object.keys(def).length) item.default = def;
    if (Object.keys(req).length) item.defaultRequest = req;
  }
}

const STANDARD = 'must be a standard resource type or fully qualified';

function validateItem(item: LimitRangeItem, p: string): StatusCause[] {
  const causes = new Causes();
  const t = item.type ?? '';
  if (!t.includes('/') && !LIMIT_TYPES.includes(t))
    causes.invalid(`${p}.type`, t, 'must be a standard limit type or fully qualified');
  const keys = new Set<string>();
  for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const)
    for (const k of Object.keys(item[f] ?? {})) {
      causes.push(...resourceName(`${p}.${f}[${k}]`, k, isStandardContainerResource, STANDARD));
      keys.add(k);
    }
  if (t === 'Pod') {
    if (Object.keys(item.default ?? {}).length)
      causes.forbidden(`${p}.default`, "may not be specified when `type` is 'Pod'");
    if (Object.keys(item.defaultRequest ?? {}).length)
      causes.forbidden(`${p}.defaultRequest`, "may not be specified when `type` is 'Pod'");
  }
  if (t === 'PersistentVolumeClaim' && item.min?.storage === undefined && item.max?.storage === undefined)
    causes.required(
      `${p}.limits`,
      'either minimum or maximum storage value is required, but neither was provided',
    );
  for (const k of [...keys].sort()) causes.push(...validateBounds(item, p, k));
  return causes;
}

/** How the values for one resource must be ordered: min <= defaultRequest <= default <= max, and the ratio. */
function validateBounds(item: LimitRangeItem, p: string, k: string): StatusCause[] {
  const causes = new Causes();
  const min = item.min?.[k];
  const max = item.max?.[k];
  const def = item.default?.[k];
  const req = item.defaultRequest?.[k];
  const ratio = item.maxLimitRequestRatio?.[k];
  const gt = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && compareQuantities(a, b) > 0;
  // [out of order, field reported, its value, detail]
  const orderings: [boolean, string, string | undefined, string][] = [
    [gt(min, max), 'min', min, `min value ${min} is greater than max value ${max}`],
    [gt(min, req), 'defaultRequest', req, `min value ${min} is greater than default request value ${req}`],
    [gt(req, max), 'defaultRequest', req, `default request value ${req} is greater than max value ${max}`],
    [
      gt(req, def),
      'defaultRequest',
      req,
      `default request value ${req} is greater than default limit value ${def}`,
    ],
    [gt(min, def), 'default', def, `min value ${min} is greater than default value ${def}`],
    [gt(def, max), 'default', def, `default value ${def} is greater than max value ${max}`],
  ];
  for (const [bad, f, v, detail] of orderings) if (bad) causes.invalid(`${p}.${f}[${k}]`, v, detail);
  if (ratio !== undefined && compareQuantities(ratio, '1') < 0)
    causes.invalid(`${p}.maxLimitRequestRatio[${k}]`, ratio, `ratio ${ratio} is less than 1`);
  if (ratio !== undefined && min !== undefined && max !== undefined) {
    const lo = nanosOf(min) ?? 0n;
    const limit = lo === 0n ? Number.POSITIVE_INFINITY : Number(nanosOf(max) ?? 0n) / Number(lo);
    if (Number(nanosOf(ratio) ?? 0n) / 1e9 > limit)
      causes.invalid(
        `${p}.maxLimitRequestRatio[${k}]`,
        ratio,
        `ratio ${ratio} is greater than max/min = ${limit.toFixed(6)}`,
      );
  }
  if (!isOvercommitAllowed(k) && def !== undefined && req !== undefined && compareQuantities(def, req) !== 0)
    causes.invalid(
      `${p}.defaultRequest[${k}]`,
      req,
      `default value ${def} must equal to defaultRequest value ${req} in ${k}`,
    );
  return causes;
}

function validateLimitRange(o: KObject): StatusCause[] {
  const causes = new Causes();
  const seen = new Set<string>();
  ((o as LimitRange).spec?.limits ?? []).forEach((item, i) => {
    const p = `spec.limits[${i}]`;
    if (!item || typeof item !== 'object') return;
    if (item.type !== undefined && seen.has(item.type)) causes.duplicate(`${p}.type`, item.type);
    if (item.type !== undefined) seen.add(item.type);
    causes.push(...validateItem(item, p));
  });
  return causes;
}

export const limitRangeDef = defineKind({
  group: '',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  schema,
  zeroValue: () => ({ spec: { limits: null } }),
  prepare: defaults,
  validate: validateLimitRange,
});
