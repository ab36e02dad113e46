// ValidatingAdmissionPolicyBinding (admissionregistration.orch.io v1beta1 and v1alpha1,
// cluster-scoped): which policy applies where (match resources), with which parameters
// (paramRef: a name or a selector, a namespace, what to do when none is found) and what a
// failure does (validationActions: Deny, Warn, Audit). Kubernetes 1.28's defaults and validation:
// what to do when no parameter is found defaults to Deny in v1alpha1 only, and is required.
import type { StatusCause } from '../../errors/status.ts';
import { arr, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, formatLabelSelector, type LabelSelectorObj, validateLabelSelector } from './common.ts';
import { defineKind, printed } from './define.ts';
import {
  ADMISSION_GROUP,
  defaultMatchResources,
  isObj,
  labelSelector,
  list,
  matchResources,
  POLICY_VERSIONS,
  pathSegmentProblems,
  type Rec,
  rec,
  text,
  validateMatchResources,
} from './policy-common.ts';

export const bindingSchema: Schema = objectSchema({
  spec: obj({
    policyName: str(),
    paramRef: obj(
      { name: str(), namespace: str(), selector: labelSelector, parameterNotFoundAction: str() },
      { 'x-orch-map-type': 'atomic' },
    ),
    matchResources,
    validationActions: arr(str(), { 'x-orch-list-type': 'set' }),
  }),
});

function setDefaults(o: KObject): void {
  if (!isObj(o.spec)) return;
  const spec = o.spec as Rec;
  if (isObj(spec.matchResources)) defaultMatchResources(spec.matchResources);
}

/** v1alpha1's own default, set as a v1alpha1 object is read (v1beta1 has none: the field is required). */
function alphaToStorage(o: KObject): KObject {
  const spec = o.spec;
  if (isObj(spec) && isObj(spec.paramRef)) {
    const pr = spec.paramRef as Rec;
    if (pr.parameterNotFoundAction === undefined || pr.parameterNotFoundAction === null)
      pr.parameterNotFoundAction = 'Deny';
  }
  return o;
}

/** The actions a binding may take on a failed validation (sorted, as Kubernetes lists them). */
export const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const NOT_FOUND_ACTIONS = ['Deny', 'Allow'];

function validateParamRef(field: string, pr: Rec): StatusCause[] {
  const out = new Causes();
  const name = text(pr.name);
  const hasSelector = isObj(pr.selector);
  if (name) {
    for (const p of pathSegmentProblems(name)) out.invalid(`${field}.name`, name, p);
    if (hasSelector) out.forbidden(`${field}.name`, 'name and selector are mutually exclusive');
  }
  if (hasSelector) {
    out.push(...validateLabelSelector(`${field}.selector`, pr.selector as LabelSelectorObj));
    if (name) out.forbidden(`${field}.selector`, 'name and selector are mutually exclusive');
  }
  if (!name && !hasSelector) out.required(field, 'one of name or selector must be specified');
  const ns = text(pr.namespace);
  if (ns) {
    const p = nameProblem(ns, 'label');
    if (p) out.invalid(`${field}.namespace`, ns, p);
  }
  const action = pr.parameterNotFoundAction;
  if (action === undefined || action === null || action === '')
    out.required(`${field}.parameterNotFoundAction`);
  else out.oneOf(`${field}.parameterNotFoundAction`, action, NOT_FOUND_ACTIONS);
  return out;
}

function validateActions(field: string, actions: unknown[]): StatusCause[] {
  const out = new Causes();
  const seen = new Set<string>();
  actions.forEach((raw, i) => {
    const a = text(raw);
    if (!VALIDATION_ACTIONS.includes(a)) out.notSupported(`${field}[${i}]`, raw, VALIDATION_ACTIONS);
    if (seen.has(a)) out.duplicate(`${field}[${i}]`, raw);
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    out.invalid(
      field,
      actions,
      'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    );
  if (seen.size === 0) out.required(field, 'at least one validation action is required');
  return out;
}

export function validateBinding(o: KObject): StatusCause[] {
  const out = new Causes();
  const spec = rec(o.spec);
  const policyName = text(spec.policyName);
  if (!policyName) out.required('spec.policyName');
  else {
    const p = nameProblem(policyName, 'subdomain');
    if (p) out.invalid('spec.policyName', policyName, p);
  }
  if (isObj(spec.paramRef)) out.push(...validateParamRef('spec.paramRef', spec.paramRef));
  if (isObj(spec.matchResources))
    out.push(...validateMatchResources('spec.matchResources', spec.matchResources));
  out.push(...validateActions('spec.validationActions', list(spec.validationActions)));
  return out;
}

/** `<namespace>/<name>`, `*\/<name>` (any namespace), the selector, or `<unset>`. */
function paramRefCell(o: KObject): string {
  const pr = rec(o.spec).paramRef;
  if (!isObj(pr)) return '<unset>';
  const name = text(pr.name);
  if (name) return `${text(pr.namespace) || '*'}/${name}`;
  if (isObj(pr.selector)) return formatLabelSelector(pr.selector as LabelSelectorObj) || '<everything>';
  return '<unset>';
}

function prepare(o: KObject): void {
  setDefaults(o);
}

export const validatingAdmissionPolicyBindingDef = defineKind({
  group: ADMISSION_GROUP,
  versions: POLICY_VERSIONS,
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  schema: bindingSchema,
  versionInfo: {
    v1beta1: { served: true, storage: true },
    v1alpha1: { served: true, storage: false, toStorage: alphaToStorage, fromStorage: (o) => o },
  },
  nameRule: 'subdomain',
  table: printed('validatingAdmissionPolicyBinding', {
    PolicyName: 'spec.policyName',
    ParamRef: paramRefCell,
  }),
  prepare,
  validate: (o) => validateBinding(o),
  validateUpdate: (o) => validateBinding(o),
  tracksGeneration: true,
});
