// What the four role-based access control kinds (rbac.authorization.orch.io/v1) share: their
// schemas, the v1 defaults of subjects and role references, Kubernetes 1.28's validation of
// rules, subjects and role references, and the binding table columns.
import type { StatusCause } from '../../errors/status.ts';
import { arr, mapOf, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, fieldErr } from './common.ts';
import { type KindSpec, printed } from './define.ts';

export const RBAC_GROUP = 'rbac.authorization.orch.io';

export const policyRuleSchema: Schema = obj({
  verbs: arr(str()),
  apiGroups: arr(str()),
  resources: arr(str()),
  resourceNames: arr(str()),
  nonResourceURLs: arr(str()),
});

export const labelSelectorSchema: Schema = obj({
  matchLabels: mapOf(str()),
  matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) })),
});

export const subjectSchema: Schema = obj({ kind: str(), apiGroup: str(), name: str(), namespace: str() });
export const roleRefSchema: Schema = obj({ apiGroup: str(), kind: str(), name: str() });

type Rec = Record<string, unknown>;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const len = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

/** Kubernetes' ValidatePolicyRule. */
export function validateRules(o: KObject, namespaced: boolean): Causes {
  const out = new Causes();
  list(o.rules).forEach((raw, i) => {
    const r = (raw && typeof raw === 'object' ? raw : {}) as Rec;
    const p = `rules[${i}]`;
    if (len(r.verbs) === 0) out.required(`${p}.verbs`, 'verbs must contain at least one value');
    if (len(r.nonResourceURLs) > 0) {
      if (namespaced)
        out.invalid(
          `${p}.nonResourceURLs`,
          r.nonResourceURLs,
          'namespaced rules cannot apply to non-resource URLs',
        );
      if (len(r.apiGroups) > 0 || len(r.resources) > 0 || len(r.resourceNames) > 0)
        out.invalid(
          `${p}.nonResourceURLs`,
          r.nonResourceURLs,
          'rules cannot apply to both regular resources and non-resource URLs',
        );
      return;
    }
    if (len(r.apiGroups) === 0)
      out.required(`${p}.apiGroups`, 'resource rules must supply at least one api group');
    if (len(r.resources) === 0)
      out.required(`${p}.resources`, 'resource rules must supply at least one resource');
  });
  return out;
}

/** v1 defaults: a role reference and user or group subjects are in the RBAC group unless they say otherwise. */
export function defaultBinding(o: KObject): void {
  if (o.roleRef && typeof o.roleRef === 'object' && !(o.roleRef as Rec).apiGroup)
    (o.roleRef as Rec).apiGroup = RBAC_GROUP;
  for (const s of list(o.subjects))
    if (
      s &&
      typeof s === 'object' &&
      !(s as Rec).apiGroup &&
      ((s as Rec).kind === 'User' || (s as Rec).kind === 'Group')
    )
      (s as Rec).apiGroup = RBAC_GROUP;
}

/** Kubernetes' ValidateRoleBinding / ValidateClusterRoleBinding. */
export function validateBinding(o: KObject, namespaced: boolean): StatusCause[] {
  const out = new Causes();
  const ref = (o.roleRef && typeof o.roleRef === 'object' ? o.roleRef : {}) as Rec;
  const apiGroup = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
  if (apiGroup !== RBAC_GROUP) out.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]);
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) out.notSupported('roleRef.kind', kind, kinds);
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (!name) out.required('roleRef.name');
  else {
    const p = nameProblem(name, 'path');
    if (p) out.invalid('roleRef.name', name, p);
  }
  list(o.subjects).forEach((raw, i) => {
    const s = (raw && typeof raw === 'object' ? raw : {}) as Rec;
    const p = `subjects[${i}]`;
    const sname = typeof s.name === 'string' ? s.name : '';
    const sgroup = typeof s.apiGroup === 'string' ? s.apiGroup : '';
    if (!sname) out.required(`${p}.name`);
    switch (s.kind) {
      case 'ServiceAccount': {
        const np = sname ? nameProblem(sname, 'subdomain') : undefined;
        if (np) out.invalid(`${p}.name`, sname, np);
        if (sgroup) out.notSupported(`${p}.apiGroup`, sgroup, ['']);
        if (!namespaced && !s.namespace) out.required(`${p}.namespace`);
        break;
      }
      case 'User':
      case 'Group':
        if (sgroup !== RBAC_GROUP) out.notSupported(`${p}.apiGroup`, sgroup, [RBAC_GROUP]);
        break;
      default:
        out.notSupported(`${p}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']);
    }
  });
  return out;
}

/** A binding's role reference may not change (`cannot change roleRef`). */
export function validateRoleRefUpdate(o: KObject, old: KObject): StatusCause[] {
  const a = (o.roleRef ?? {}) as Rec;
  const b = (old.roleRef ?? {}) as Rec;
  if (a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name) return [];
  return [fieldErr.invalidShown('roleRef', goRoleRef(a), 'cannot change roleRef')];
}

/** A role reference as Go's %#v prints it (`rbac.RoleRef{APIGroup:"...", Kind:"...", Name:"..."}`). */
function goRoleRef(r: Rec): string {
  return `rbac.RoleRef{APIGroup:${JSON.stringify(r.apiGroup ?? '')}, Kind:${JSON.stringify(r.kind ?? '')}, Name:${JSON.stringify(r.name ?? '')}}`;
}

function subjectsOf(o: KObject, kind: string): string {
  const out: string[] = [];
  for (const raw of list(o.subjects)) {
    const s = (raw ?? {}) as Rec;
    if (s.kind !== kind) continue;
    out.push(kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : String(s.name ?? ''));
  }
  return out.join(', ');
}

/** What RoleBinding and ClusterRoleBinding share: schema, strategy and kubectl's columns (the scope differs). */
export function bindingShape(namespaced: boolean): Omit<KindSpec, 'group' | 'kind' | 'namespaced'> {
  return {
    schema: objectSchema({ subjects: arr(subjectSchema), roleRef: roleRefSchema }),
    nameRule: 'path',
    normalize: false,
    table: printed(namespaced ? 'roleBindings' : 'clusterRoleBindings', {
      Role: (o) => {
        const r = (o.roleRef ?? {}) as Rec;
        return `${r.kind ?? ''}/${r.name ?? ''}`;
      },
      Users: (o) => subjectsOf(o, 'User'),
      Groups: (o) => subjectsOf(o, 'Group'),
      ServiceAccounts: (o) => subjectsOf(o, 'ServiceAccount'),
    }),
    zeroValue: () => ({ roleRef: { apiGroup: '', kind: '', name: '' } }),
    prepare: defaultBinding,
    validate: (o) => validateBinding(o, namespaced),
    validateUpdate: (o, old) => [...validateBinding(o, namespaced), ...validateRoleRefUpdate(o, old)],
  };
}
