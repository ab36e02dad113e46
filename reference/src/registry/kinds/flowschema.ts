// FlowSchema (flowcontrol.apiserver.orch.io v1beta3, and the deprecated v1beta2 of the same
// shape) with the `status` subresource. Cluster-scoped. Classifies requests by subject and
// target into a priority level. Defaults and validation as Kubernetes 1.28's: matchingPrecedence
// 1..10000 (1 only for `exempt`, 1000 by default), distinguisher ByUser or ByNamespace, subjects
// of kind User, Group or ServiceAccount, resource and non-resource rules; the mandatory schemas
// (`exempt`, `catch-all`) keep their fixed spec.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, fieldErr, goValue, keepAllButStatus, specStatusHooks } from './common.ts';
import { defineKind, printed } from './define.ts';
import { mandatoryFlowSchemaSpec } from './flowcontrol-bootstrap.ts';
import {
  FLOWCONTROL_GROUP,
  FLOWCONTROL_VERSIONS,
  type FlowSchemaSpec,
  flowcontrolVersionInfo,
  type NonResourcePolicyRule,
  type PolicyRulesWithSubjects,
  type ResourcePolicyRule,
  type Subject,
  sameSpec,
  validateConditions,
} from './flowcontrol-common.ts';

export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000;
export const FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE = 1000;

const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const SUPPORTED_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'proxy',
  'update',
  'watch',
];
const NS_REQUIRED = 'resource rules that are not cluster scoped must supply at least one namespace';
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

export interface FlowSchema {
  metadata: KObject['metadata'];
  spec?: FlowSchemaSpec;
  status?: {
    conditions?: {
      type?: string;
      status?: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
  };
}

const specOf = (o: KObject) => ((o as FlowSchema).spec ?? {}) as FlowSchemaSpec;

/** v1beta3's (and v1beta2's) defaults. */
export function defaultFlowSchema(o: KObject): void {
  const spec = ((o as FlowSchema).spec ??= {});
  if (!spec.matchingPrecedence) spec.matchingPrecedence = FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE;
  spec.priorityLevelConfiguration ??= {};
  spec.priorityLevelConfiguration.name ??= '';
}

const hasWildcard = (xs: string[]) => xs.includes('*');

/**
 * A list of a rule that may be `['*']`: `required` (the detail) when empty, `*` among other
 * members invalid, else each member checked by `each` (a problem, or undefined).
 */
function wildcardList<R>(
  rule: R,
  key: keyof R & string,
  path: string,
  [noun, required]: [string, string?],
  each: (x: string) => string | undefined = () => undefined,
): StatusCause[] {
  const xs = (rule[key] as string[] | undefined) ?? [];
  const field = `${path}.${key}`;
  if (!xs.length) return required === undefined ? [] : [fieldErr.required(field, required)];
  if (hasWildcard(xs))
    return xs.length > 1
      ? [fieldErr.invalid(field, xs, `if '*' is present, must not specify other ${noun}`)]
      : [];
  const causes = new Causes();
  xs.forEach((x, i) => {
    const p = each(x);
    if (p) causes.invalid(`${field}[${i}]`, x, p);
  });
  return causes;
}

function validateVerbs(r: { verbs?: string[] }, path: string): StatusCause[] {
  const verbs = r.verbs ?? [];
  if (verbs.length && !hasWildcard(verbs) && !verbs.every((v) => SUPPORTED_VERBS.includes(v)))
    return [fieldErr.notSupported(`${path}.verbs`, verbs, SUPPORTED_VERBS)];
  return wildcardList(r, 'verbs', path, ['verbs', 'verbs must contain at least one value']);
}

function validateSubject(s: Subject, path: string): StatusCause[] {
  const causes = new Causes();
  const forbidUser = () => {
    if (s.user != null) causes.forbidden(`${path}.user`, "user is forbidden when subject kind is not 'User'");
  };
  const forbidGroup = () => {
    if (s.group != null)
      causes.forbidden(`${path}.group`, "group is forbidden when subject kind is not 'Group'");
  };
  const forbidSa = () => {
    if (s.serviceAccount != null)
      causes.forbidden(
        `${path}.serviceAccount`,
        "serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
      );
  };
  switch (s.kind) {
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (sa == null)
        causes.required(
          `${path}.serviceAccount`,
          "serviceAccount is required when subject kind is 'ServiceAccount'",
        );
      else {
        if (!sa.name) causes.required(`${path}.serviceAccount.name`);
        else if (sa.name !== '*') {
          const p = nameProblem(sa.name, 'subdomain');
          if (p) causes.invalid(`${path}.serviceAccount.name`, sa.name, p);
        }
        if (!sa.namespace)
          causes.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account');
        else {
          const p = nameProblem(sa.namespace, 'label');
          if (p) causes.invalid(`${path}.serviceAccount.namespace`, sa.namespace, p);
        }
      }
      forbidUser();
      forbidGroup();
      break;
    }
    case 'User':
      if (s.user == null) causes.required(`${path}.user`, "user is required when subject kind is 'User'");
      else if (!s.user.name) causes.required(`${path}.user.name`);
      forbidSa();
      forbidGroup();
      break;
    case 'Group':
      if (s.group == null) causes.required(`${path}.group`, "group is required when subject kind is 'Group'");
      else if (!s.group.name) causes.required(`${path}.group.name`);
      forbidSa();
      forbidUser();
      break;
    default:
      causes.notSupported(`${path}.kind`, s.kind ?? '', SUBJECT_KINDS);
  }
  return causes;
}

function validateResourceRule(r: ResourcePolicyRule, path: string): StatusCause[] {
  const namespaceProblem = (ns: string) => {
    const p = nameProblem(ns, 'label');
    return p && NS_ERR_INTRO + p;
  };
  const need = (what: string) => `resource rules must supply at least one ${what}`;
  const nsRequired = r.clusterScope ? undefined : NS_REQUIRED;
  return [
    ...validateVerbs(r, path),
    ...wildcardList(r, 'apiGroups', path, ['api groups', need('api group')]),
    ...wildcardList(r, 'resources', path, ['resources', need('resource')]),
    ...wildcardList(r, 'namespaces', path, ['namespaces', nsRequired], namespaceProblem),
  ];
}

/** A non-resource URL: `/`, or a path from `/` without spaces or `//`, `*` only as a final `/*`. */
export function nonResourceUrlProblem(p: string): string | undefined {
  if (p === '') return 'must not be empty';
  if (p === '/') return undefined;
  if (!p.startsWith('/')) return 'must start with slash';
  if (p.includes(' ')) return 'must not contain white-space';
  if (p.includes('//')) return 'must not contain double slash';
  const stars = p.split('*').length - 1;
  if (stars > 1 || (stars === 1 && !p.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

function validateNonResourceRule(r: NonResourcePolicyRule, path: string): StatusCause[] {
  const required = 'nonResourceURLs must contain at least one value';
  return [
    ...validateVerbs(r, path),
    ...wildcardList(r, 'nonResourceURLs', path, ['non-resource URLs', required], nonResourceUrlProblem),
  ];
}

function validateRule(rule: PolicyRulesWithSubjects, path: string): StatusCause[] {
  const causes = new Causes();
  const subjects = rule.subjects ?? [];
  if (subjects.length)
    for (const [i, s] of subjects.entries())
      causes.push(...validateSubject(s ?? {}, `${path}.subjects[${i}]`));
  else causes.required(`${path}.subjects`, 'subjects must contain at least one value');
  if (!rule.resourceRules?.length && !rule.nonResourceRules?.length)
    causes.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty');
  for (const [i, r] of (rule.resourceRules ?? []).entries())
    causes.push(...validateResourceRule(r ?? {}, `${path}.resourceRules[${i}]`));
  for (const [i, r] of (rule.nonResourceRules ?? []).entries())
    causes.push(...validateNonResourceRule(r ?? {}, `${path}.nonResourceRules[${i}]`));
  return causes;
}

function validateSpec(name: string, spec: FlowSchemaSpec): Causes {
  const causes = new Causes();
  const mp = spec.matchingPrecedence ?? 0;
  if (mp <= 0) causes.invalid('spec.matchingPrecedence', mp, 'must be a positive value');
  if (mp > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE)
    causes.invalid(
      'spec.matchingPrecedence',
      mp,
      `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`,
    );
  if (mp === 1 && name !== 'exempt')
    causes.invalid(
      'spec.matchingPrecedence',
      mp,
      "only the schema named 'exempt' may have matchingPrecedence 1",
    );
  const dm = spec.distinguisherMethod;
  if (dm != null && !DISTINGUISHER_METHODS.includes(dm.type ?? ''))
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.distinguisherMethod.type',
      message: `Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:${goValue(dm.type ?? '')}}: supported values: ${DISTINGUISHER_METHODS.map((m) => `"${m}"`).join(', ')}`,
    });
  const pl = spec.priorityLevelConfiguration?.name ?? '';
  if (pl) {
    const p = nameProblem(pl, 'subdomain');
    if (p) causes.invalid('spec.priorityLevelConfiguration.name', pl, p);
  } else causes.required('spec.priorityLevelConfiguration.name', 'must reference a priority level');
  for (const [i, r] of (spec.rules ?? []).entries())
    causes.push(...validateRule(r ?? {}, `spec.rules[${i}]`));
  return causes;
}

function validateFlowSchema(o: KObject): StatusCause[] {
  const name = o.metadata.name ?? '';
  const spec = specOf(o);
  const causes = validateSpec(name, spec);
  const mandatory = mandatoryFlowSchemaSpec(name);
  if (mandatory && !sameSpec(spec, mandatory))
    causes.invalid('spec', spec, `spec of '${name}' must equal the fixed value`);
  causes.push(...validateConditions((o as FlowSchema).status));
  return causes;
}

// v1beta2 and v1beta3 FlowSchemas have the same fields and defaults
const sameShape = (o: KObject) => {
  defaultFlowSchema(o);
  return o;
};

export const flowSchemaDef = defineKind({
  group: FLOWCONTROL_GROUP,
  versions: FLOWCONTROL_VERSIONS,
  kind: 'FlowSchema',
  namespaced: false,
  subresources: ['status'],
  schema: builtinSchema(`${FLOWCONTROL_GROUP}/v1beta3`, 'FlowSchema'),
  versionInfo: flowcontrolVersionInfo('FlowSchema', { toStorage: sameShape, fromStorage: (o) => o }),
  zeroValue: () => ({ spec: { priorityLevelConfiguration: { name: '' }, matchingPrecedence: 0 } }),
  ...specStatusHooks(defaultFlowSchema),
  prepareForStatusUpdate: keepAllButStatus,
  validate: validateFlowSchema,
  validateUpdate: (o) => validateFlowSchema(o),
  table: printed('flowSchema', {
    PriorityLevel: 'spec.priorityLevelConfiguration.name',
    MatchingPrecedence: (o) => specOf(o).matchingPrecedence ?? 0,
    DistinguisherMethod: (o) => specOf(o).distinguisherMethod?.type ?? '<none>',
    MissingPL: (o) => (o as FlowSchema).status?.conditions?.find((c) => c.type === 'Dangling')?.status ?? '?',
  }),
  tracksGeneration: true,
  normalize: false,
});
