// ValidatingAdmissionPolicy (admissionregistration.orch.io v1beta1 and v1alpha1,
// cluster-scoped): expressions a matching write must pass, with their match constraints,
// parameter kind, match conditions, composition variables and audit annotations. Kubernetes
// 1.28's defaults and validation; the status (type checking) is written by a controller.
import type { StatusCause } from '../../errors/status.ts';
import { arr, int, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, fieldErr, qualifiedName, schemaStatusUpdate, specStatusHooks } from './common.ts';
import { defineKind, printed } from './define.ts';
import { compilePolicyExpression, isCelIdentifier, type PolicyVariables } from './policy-cel.ts';
import {
  ADMISSION_GROUP,
  defaultMatchResources,
  isObj,
  list,
  matchResources,
  POLICY_VERSIONS,
  type Rec,
  rec,
  text,
  validateMatchResources,
} from './policy-common.ts';
import { validateMatchConditions } from './webhook-common.ts';

const keyed = (items: Schema, key: string): Schema =>
  arr(items, { 'x-orch-list-type': 'map', 'x-orch-list-map-keys': [key] });

export const policySchema: Schema = objectSchema({
  spec: obj({
    paramKind: obj({ apiVersion: str(), kind: str() }, { 'x-orch-map-type': 'atomic' }),
    matchConstraints: matchResources,
    validations: arr(obj({ expression: str(), message: str(), reason: str(), messageExpression: str() }), {
      'x-orch-list-type': 'atomic',
    }),
    failurePolicy: str(),
    auditAnnotations: arr(obj({ key: str(), valueExpression: str() }), { 'x-orch-list-type': 'atomic' }),
    matchConditions: keyed(obj({ name: str(), expression: str() }), 'name'),
    variables: arr(obj({ name: str(), expression: str() }), { 'x-orch-list-type': 'atomic' }),
  }),
  status: obj({
    observedGeneration: int({ format: 'int64' }),
    typeChecking: obj({
      expressionWarnings: arr(obj({ fieldRef: str(), warning: str() }), { 'x-orch-list-type': 'atomic' }),
    }),
    conditions: keyed(
      obj({
        type: str(),
        status: str(),
        observedGeneration: int({ format: 'int64' }),
        lastTransitionTime: str({ format: 'date-time' }),
        reason: str(),
        message: str(),
      }),
      'type',
    ),
  }),
});

// ------------------------------------------------------------------ defaults

function setDefaults(o: KObject): void {
  if (!isObj(o.spec)) return;
  const spec = o.spec as Rec;
  spec.failurePolicy ??= 'Fail';
  if (isObj(spec.matchConstraints)) defaultMatchResources(spec.matchConstraints);
}

// ------------------------------------------------------------------ validation

const FAILURE_POLICIES = ['Fail', 'Ignore'];
/** The reasons a validation may answer with (Kubernetes 1.28's list, sorted). */
export const VALIDATION_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024;

function validateParamKind(field: string, pk: Rec): StatusCause[] {
  const out = new Causes();
  const apiVersion = text(pk.apiVersion);
  if (!apiVersion) out.required(`${field}.apiVersion`);
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1)
      out.invalid(`${field}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`);
    else if (apiVersion !== '/') {
      const [group, version] = slashes === 0 ? ['', apiVersion] : apiVersion.split('/');
      if (group) {
        const p = nameProblem(group, 'subdomain');
        if (p) out.invalid(`${field}.apiVersion`, group, p);
      }
      if (!version) out.invalid(`${field}.apiVersion`, apiVersion, 'version must be specified');
      else {
        const p = nameProblem(version, 'label1035');
        if (p) out.invalid(`${field}.apiVersion`, version, p);
      }
    }
  }
  const kind = text(pk.kind);
  if (!kind) out.required(`${field}.kind`);
  else {
    const p = nameProblem(kind.toLowerCase(), 'label1035');
    if (p) out.invalid(`${field}.kind`, kind, `may have mixed case, but should otherwise match: ${p}`);
  }
  return out;
}

function compileProblem(
  field: string,
  expression: string,
  vars: PolicyVariables,
  want: 'bool' | 'string' | 'string-or-null' | 'any',
): StatusCause[] {
  const c = compilePolicyExpression(expression, vars, want);
  return 'error' in c ? [fieldErr.invalid(field, expression, c.error)] : [];
}

/** The policy's problems (create, and update: match conditions unchanged are not compiled again). */
export function validatePolicy(o: KObject, checkMatchConditions = true): StatusCause[] {
  const out = new Causes();
  const spec = rec(o.spec);
  const hasParams = isObj(spec.paramKind);
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) out.required('spec.failurePolicy');
  else out.oneOf('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES);
  if (hasParams) out.push(...validateParamKind('spec.paramKind', rec(spec.paramKind)));
  if (!isObj(spec.matchConstraints)) out.required('spec.matchConstraints');
  else {
    out.push(...validateMatchResources('spec.matchConstraints', spec.matchConstraints));
    if (list(spec.matchConstraints.resourceRules).length === 0)
      out.required('spec.matchConstraints.resourceRules');
  }
  const base: PolicyVariables = { hasParams, hasAuthorizer: true, variables: [] };
  if (checkMatchConditions)
    out.push(
      ...validateMatchConditions('spec.matchConditions', list(spec.matchConditions), (field, expression) =>
        compileProblem(field, expression, base, 'bool'),
      ),
    );
  const declared = validateVariables(list(spec.variables), base, out);
  const all: PolicyVariables = { ...base, variables: declared };
  const validations = list(spec.validations);
  const annotations = list(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const why = 'validations or auditAnnotations must contain at least one item';
    out.push(fieldErr.required('spec.validations', why), fieldErr.required('spec.auditAnnotations', why));
    return out;
  }
  validations.forEach((raw, i) => {
    out.push(...validateValidation(rec(raw), `spec.validations[${i}]`, all));
  });
  out.push(...validateAuditAnnotations(annotations, text(o.metadata?.name), all));
  return out;
}

/** The variables (each sees the ones declared before it); their problems go to `out`, their names are returned. */
function validateVariables(variables: unknown[], base: PolicyVariables, out: Causes): string[] {
  const declared: string[] = [];
  variables.forEach((raw, i) => {
    const v = rec(raw);
    const p = `spec.variables[${i}]`;
    const name = text(v.name);
    if (!name.trim()) out.required(`${p}.name`, 'name is not specified');
    else if (!isCelIdentifier(name)) out.invalid(`${p}.name`, name, 'name is not a valid CEL identifier');
    const expression = text(v.expression);
    if (!expression.trim()) out.required(`${p}.expression`, 'expression is not specified');
    else
      out.push(
        ...compileProblem(`${p}.expression`, expression, { ...base, variables: [...declared] }, 'any'),
      );
    if (name.trim() && isCelIdentifier(name)) declared.push(name);
  });
  return declared;
}

function validateValidation(v: Record<string, unknown>, p: string, all: PolicyVariables): StatusCause[] {
  const out = new Causes();
  const expression = text(v.expression);
  if (!expression.trim()) out.required(`${p}.expression`, 'expression is not specified');
  else out.push(...compileProblem(`${p}.expression`, expression, all, 'bool'));
  const me = text(v.messageExpression);
  if (me.length > 0 && !me.trim())
    out.invalid(`${p}.messageExpression`, me, 'must be non-empty if specified');
  else if (me.trim())
    out.push(...compileProblem(`${p}.messageExpression`, me, { ...all, hasAuthorizer: false }, 'string'));
  const msg = text(v.message);
  if (msg.length > 0 && !msg.trim())
    out.invalid(`${p}.message`, msg, 'message must be non-empty if specified');
  else if (/[\n\r]/.test(msg.trim()))
    out.invalid(`${p}.message`, msg, 'message must not contain line breaks');
  if (v.reason !== undefined && v.reason !== null) out.oneOf(`${p}.reason`, v.reason, VALIDATION_REASONS);
  return out;
}

function validateAuditAnnotations(
  annotations: unknown[],
  policyName: string,
  all: PolicyVariables,
): StatusCause[] {
  const out = new Causes();
  if (annotations.length > MAX_AUDIT_ANNOTATIONS)
    out.invalid(
      'spec.auditAnnotations',
      annotations,
      `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
    );
  const keys = new Set<string>();
  annotations.forEach((raw, i) => {
    const a = rec(raw);
    const p = `spec.auditAnnotations[${i}]`;
    const key = text(a.key);
    if (policyName) out.push(...qualifiedName(`${p}.key`, `${policyName}/${key}`));
    else out.invalid(`${p}.key`, key, 'requires metadata.name be non-empty');
    const ve = text(a.valueExpression).trim();
    if (!ve) out.required(`${p}.valueExpression`, 'valueExpression is not specified');
    else if (ve.length > MAX_VALUE_EXPRESSION_LENGTH)
      out.required(`${p}.valueExpression`, `must not exceed ${MAX_VALUE_EXPRESSION_LENGTH} bytes in length`);
    else {
      const c = compilePolicyExpression(ve, all, 'string-or-null');
      if ('error' in c) out.invalid(`${p}.valueExpression`, text(a.valueExpression), c.error);
    }
    if (keys.has(key)) out.duplicate(`${p}.key`, key);
    keys.add(key);
  });
  return out;
}

// ------------------------------------------------------------------ the resource

export const validatingAdmissionPolicyDef = defineKind({
  group: ADMISSION_GROUP,
  versions: POLICY_VERSIONS,
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
  categories: ['api-extensions'],
  subresources: ['status'],
  schema: policySchema,
  nameRule: 'subdomain',
  table: printed('validatingAdmissionPolicy', {
    Validations: (o) => list(rec(o.spec).validations).length,
    ParamKind: (o) => {
      const pk = rec(o.spec).paramKind;
      return isObj(pk) ? `${text(pk.apiVersion)}/${text(pk.kind)}` : '<unset>';
    },
  }),
  ...specStatusHooks(setDefaults, () => undefined),
  prepareForStatusUpdate: schemaStatusUpdate(policySchema, 'ValidatingAdmissionPolicy'),
  validate: (o) => validatePolicy(o),
  validateUpdate: (o, old) =>
    validatePolicy(
      o,
      JSON.stringify(rec(o.spec).matchConditions ?? null) !==
        JSON.stringify(rec(old.spec).matchConditions ?? null),
    ),
  tracksGeneration: true,
});
