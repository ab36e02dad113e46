// What the two webhook configuration kinds (admissionregistration.orch.io/v1) share: their
// schema, the v1 defaults of a webhook, Kubernetes 1.28's validation of webhooks (rules, client
// configuration, selectors, match conditions, policies) and the table columns. The webhooks
// are not called from here: these are the objects only.
import type { Environment } from '@marcbachmann/cel-js';
import { compile } from '../../cel/compile.ts';
import { newEnvironment } from '../../cel/environment.ts';
import { AUTHORIZER_TYPE } from '../../cel/library-authorizer.ts';
import { type DeclType, declare, type MessageDeclaration, PLAIN_NAMES } from '../../cel/types.ts';
import { errors, type StatusCause } from '../../errors/status.ts';
import { arr, int, mapOf, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import type { KObject } from '../../storage/types.ts';
import type { ResourceDef } from '../types.ts';
import { nameProblem } from '../validation.ts';
import { ADMISSION_REQUEST_SCHEMA, AUTHORIZER_DECL, DYN_DECL } from './admission-cel.ts';
import {
  Causes,
  causesOf,
  fieldErr,
  type LabelSelectorObj,
  list,
  qualifiedName,
  type Rec,
  rec,
  text,
  validateLabelSelector,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { base64ErrorOffset } from './secret.ts';
import { validateClientConfig } from './webhook-client-config.ts';

export const ADMISSION_GROUP = 'admissionregistration.orch.io';

export { list, type Rec, rec, text } from './common.ts';
const strs = (v: unknown): string[] => list(v).map((x) => (typeof x === 'string' ? x : String(x ?? '')));

// ------------------------------------------------------------------ schema

const atomic = (items: Schema): Schema => arr(items, { 'x-orch-list-type': 'atomic' });

const labelSelector: Schema = obj({
  matchLabels: mapOf(str()),
  matchExpressions: arr(obj({ key: str(), operator: str(), values: atomic(str()) }), {
    'x-orch-list-type': 'atomic',
  }),
});

const ruleWithOperations: Schema = obj({
  operations: atomic(str()),
  apiGroups: atomic(str()),
  apiVersions: atomic(str()),
  resources: atomic(str()),
  scope: str(),
});

const clientConfig: Schema = obj({
  url: str(),
  service: obj({ namespace: str(), name: str(), path: str(), port: int({ format: 'int32' }) }),
  caBundle: str({ format: 'byte' }),
});

function webhookSchema(mutating: boolean): Schema {
  return obj({
    name: str(),
    clientConfig,
    rules: arr(ruleWithOperations),
    failurePolicy: str(),
    matchPolicy: str(),
    namespaceSelector: labelSelector,
    objectSelector: labelSelector,
    sideEffects: str(),
    timeoutSeconds: int({ format: 'int32' }),
    admissionReviewVersions: arr(str()),
    ...(mutating ? { reinvocationPolicy: str() } : {}),
    matchConditions: arr(obj({ name: str(), expression: str() }), {
      'x-orch-list-type': 'map',
      'x-orch-list-map-keys': ['name'],
      'x-orch-patch-strategy': 'merge',
      'x-orch-patch-merge-key': 'name',
    }),
  });
}

export function configurationSchema(mutating: boolean): Schema {
  return objectSchema({
    webhooks: arr(webhookSchema(mutating), {
      'x-orch-patch-strategy': 'merge',
      'x-orch-patch-merge-key': 'name',
    }),
  });
}

// ------------------------------------------------------------------ decoding and v1 defaults

/** The body as Go decodes it: the schema's normal forms; a caBundle that is not base64 is a 400. */
function decode(o: KObject, kind: string): void {
  for (const hook of list(o.webhooks)) {
    const cc = rec(rec(hook).clientConfig);
    const ca = cc.caBundle;
    if (typeof ca !== 'string') continue;
    const off = base64ErrorOffset(ca);
    if (off >= 0)
      throw errors.badRequest(
        `${kind} in version "v1" cannot be handled as a ${kind}: illegal base64 data at input byte ${off}`,
      );
    cc.caBundle = Buffer.from(ca.replace(/[\r\n]/g, ''), 'base64').toString('base64');
  }
}

/** Kubernetes 1.28's v1 defaults: only fields that are absent (an empty string is a value, and is validated). */
function setDefaults(o: KObject, mutating: boolean): void {
  for (const raw of list(o.webhooks)) {
    if (!raw || typeof raw !== 'object') continue;
    const hook = raw as Rec;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    for (const rule of list(hook.rules)) if (rule && typeof rule === 'object') (rule as Rec).scope ??= '*';
    const service = rec(hook.clientConfig).service;
    if (service && typeof service === 'object') (service as Rec).port ??= 443;
  }
}

// ------------------------------------------------------------------ validation

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const MAX_MATCH_CONDITIONS = 64;

/** What an update relaxes: a rule the stored object already broke is not enforced on it again. */
interface Options {
  checkMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
}

const CREATE_OPTIONS: Options = {
  checkMatchConditions: true,
  requireNoSideEffects: true,
  requireRecognizedReviewVersion: true,
  requireUniqueNames: true,
};

/** A webhook name: a DNS subdomain of at least three segments. */
function fullyQualifiedName(field: string, v: string): StatusCause[] {
  if (!v) return [fieldErr.required(field)];
  const p = nameProblem(v, 'subdomain');
  if (p) return [fieldErr.invalid(field, v, p)];
  if (v.split('.').length < 3)
    return [fieldErr.invalid(field, v, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** `*` may not be listed with anything else. */
function wildcardAlone(field: string, values: string[], what: string): StatusCause[] {
  return values.length > 1 && values.includes('*')
    ? [fieldErr.invalid(field, values, `if '*' is present, must not specify other ${what}`)]
    : [];
}

// Resources with their subresource patterns: all (`*`), all with subresources (`*` slash `*`),
// every subresource of a type, one subresource of every type.
function validateResources(field: string, resources: string[]): StatusCause[] {
  const out = new Causes();
  if (resources.length === 0) out.required(field);
  const typesWithAnySub = new Set<string>();
  const subsOfAnyType = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((r, i) => {
    if (r === '') {
      out.required(`${field}[${i}]`);
      return;
    }
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      // the last entry without a subresource decides, as Kubernetes 1.28 checks it
      plainResource = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (typesWithAnySub.has(res))
      out.invalid(`${field}[${i}]`, r, `if '${res}/*' is present, must not specify ${r}`);
    if (subsOfAnyType.has(sub))
      out.invalid(`${field}[${i}]`, r, `if '*/${sub}' is present, must not specify ${r}`);
    if (sub === '*') typesWithAnySub.add(res);
    if (res === '*') subsOfAnyType.add(sub);
  });
  if (resources.length > 1 && doubleWildcard)
    out.invalid(field, resources, "if '*/*' is present, must not specify other resources");
  if (singleWildcard && plainResource)
    out.invalid(field, resources, "if '*' is present, must not specify other resources without subresources");
  return out;
}

export function validateRule(field: string, rule: Rec): StatusCause[] {
  const out = new Causes();
  const operations = strs(rule.operations);
  if (operations.length === 0) out.required(`${field}.operations`);
  out.push(...wildcardAlone(`${field}.operations`, operations, 'operations'));
  for (const [i, op] of operations.entries()) out.oneOf(`${field}.operations[${i}]`, op, OPERATIONS);
  const groups = strs(rule.apiGroups);
  if (groups.length === 0) out.required(`${field}.apiGroups`);
  out.push(...wildcardAlone(`${field}.apiGroups`, groups, 'API groups'));
  const versions = strs(rule.apiVersions);
  if (versions.length === 0) out.required(`${field}.apiVersions`);
  out.push(...wildcardAlone(`${field}.apiVersions`, versions, 'API versions'));
  versions.forEach((v, i) => {
    if (v === '') out.required(`${field}.apiVersions[${i}]`);
  });
  out.push(...validateResources(`${field}.resources`, strs(rule.resources)));
  if (rule.scope !== undefined) out.oneOf(`${field}.scope`, rule.scope, SCOPES);
  return out;
}

// ------------------------------------------------------------------ match conditions

let matchEnvironment: { env: Environment; vars: Map<string, DeclType> } | undefined;

/**
 * The environment of match conditions, as Kubernetes 1.28 declares it: `object` and `oldObject`
 * dynamic, `request` the typed review request, `authorizer` the authorizer.
 */
export function matchEnv(): { env: Environment; vars: Map<string, DeclType> } {
  if (!matchEnvironment) {
    const env = newEnvironment();
    const messages: MessageDeclaration[] = [];
    const request = declare(ADMISSION_REQUEST_SCHEMA, 'orch.AdmissionRequest', messages, false, PLAIN_NAMES);
    for (const m of messages) env.registerType(m.name, { ctor: m.ctor, fields: m.fields });
    env.registerVariable('object', 'dyn');
    env.registerVariable('oldObject', 'dyn');
    env.registerVariable('request', request.name);
    env.registerVariable('authorizer', AUTHORIZER_TYPE);
    const vars = new Map<string, DeclType>([
      ['object', DYN_DECL],
      ['oldObject', DYN_DECL],
      ['request', request],
      ['authorizer', AUTHORIZER_DECL],
    ]);
    matchEnvironment = { env, vars };
  }
  return matchEnvironment;
}

/**
 * Why a match condition's expression is refused (compiled as Kubernetes 1.28 does), or undefined.
 * Its type must be exactly bool: one of no known type (a field of `object`, `dyn(...)`) is not.
 */
export function matchConditionProblem(expression: string): string | undefined {
  const { env, vars } = matchEnv();
  const c = compile(env, expression, vars);
  if ('error' in c) return `compilation failed: ${c.error}`;
  if (c.program.type !== 'bool') return 'must evaluate to bool';
  return undefined;
}

/**
 * Match conditions as Kubernetes 1.28 validates them, for webhooks and admission policies
 * alike: at most 64, each with an expression (its problems from `expressionCauses`) and a
 * name that is a qualified name and unique in the list.
 */
export function validateMatchConditions(
  field: string,
  conditions: unknown[],
  expressionCauses: (field: string, expression: string) => StatusCause[],
): StatusCause[] {
  const out = new Causes();
  if (conditions.length > MAX_MATCH_CONDITIONS)
    out.push({
      reason: 'FieldValueTooMany',
      field,
      message: `Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`,
    });
  const names = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = rec(raw);
    const p = `${field}[${i}]`;
    // compiled trimmed, as Kubernetes 1.28 does (its positions count from the first character that is no space)
    const expression = text(c.expression).trim();
    if (!expression) out.required(`${p}.expression`);
    else out.push(...expressionCauses(`${p}.expression`, expression));
    const name = text(c.name);
    if (!name) out.required(`${p}.name`);
    else out.push(...qualifiedName(`${p}.name`, name));
    if (name) {
      if (names.has(name)) out.duplicate(`${p}.name`, name);
      else names.add(name);
    }
  });
  return out;
}

/** A webhook match condition's expression problems. */
function webhookExpressionCauses(field: string, expression: string): StatusCause[] {
  const problem = matchConditionProblem(expression);
  return problem ? [fieldErr.invalid(field, expression, problem)] : [];
}

// ------------------------------------------------------------------ a webhook, a configuration

function validateWebhook(field: string, hook: Rec, mutating: boolean, opts: Options): StatusCause[] {
  const out = causesOf(fullyQualifiedName(`${field}.name`, text(hook.name)));
  list(hook.rules).forEach((r, i) => {
    out.push(...validateRule(`${field}.rules[${i}]`, rec(r)));
  });
  if (hook.failurePolicy !== undefined)
    out.oneOf(`${field}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES);
  if (hook.matchPolicy !== undefined) out.oneOf(`${field}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES);
  const sideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (hook.sideEffects === undefined)
    out.required(`${field}.sideEffects`, `must specify one of ${sideEffects.join(', ')}`);
  else out.oneOf(`${field}.sideEffects`, hook.sideEffects, sideEffects);
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1))
    out.invalid(`${field}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds');
  if (hook.namespaceSelector !== undefined)
    out.push(
      ...validateLabelSelector(`${field}.namespaceSelector`, rec(hook.namespaceSelector) as LabelSelectorObj),
    );
  if (hook.objectSelector !== undefined)
    out.push(
      ...validateLabelSelector(`${field}.objectSelector`, rec(hook.objectSelector) as LabelSelectorObj),
    );
  if (
    mutating &&
    hook.reinvocationPolicy !== undefined &&
    !REINVOCATION_POLICIES.includes(text(hook.reinvocationPolicy))
  )
    out.notSupported(`${field}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES);
  out.push(...validateClientConfig(`${field}.clientConfig`, rec(hook.clientConfig)));
  if (opts.checkMatchConditions)
    out.push(
      ...validateMatchConditions(
        `${field}.matchConditions`,
        list(hook.matchConditions),
        webhookExpressionCauses,
      ),
    );
  return out;
}

function validateReviewVersions(
  field: string,
  versions: string[],
  requireRecognized: boolean,
): StatusCause[] {
  if (versions.length === 0)
    return [fieldErr.required(field, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const out = new Causes();
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      out.invalid(`${field}[${i}]`, v, 'duplicate version');
      return;
    }
    seen.add(v);
    const p = nameProblem(v, 'label1035');
    if (p) out.invalid(`${field}[${i}]`, v, p);
  });
  if (requireRecognized && !versions.some((v) => REVIEW_VERSIONS.includes(v)))
    out.invalid(field, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`);
  return out;
}

function validateConfiguration(o: KObject, mutating: boolean, opts: Options): StatusCause[] {
  const out = new Causes();
  const names = new Set<string>();
  list(o.webhooks).forEach((raw, i) => {
    const hook = rec(raw);
    const p = `webhooks[${i}]`;
    out.push(...validateWebhook(p, hook, mutating, opts));
    out.push(
      ...validateReviewVersions(
        `${p}.admissionReviewVersions`,
        strs(hook.admissionReviewVersions),
        opts.requireRecognizedReviewVersion,
      ),
    );
    const name = text(hook.name);
    if (opts.requireUniqueNames && name) {
      if (names.has(name)) out.duplicate(`${p}.name`, name);
      else names.add(name);
    }
  });
  return out;
}

/** An update enforces what the stored object met: rules it already broke stay unenforced on it. */
function updateOptions(o: KObject, old: KObject): Options {
  const now = list(o.webhooks).map(rec);
  const before = list(old.webhooks).map(rec);
  const sameConditions =
    now.length === before.length &&
    now.every(
      (h, i) =>
        JSON.stringify(h.matchConditions ?? null) === JSON.stringify(before[i]!.matchConditions ?? null),
    );
  const oldNames = before.map((h) => text(h.name));
  return {
    checkMatchConditions: !sameConditions,
    requireNoSideEffects: before.every((h) => NO_SIDE_EFFECTS.includes(text(h.sideEffects))),
    requireRecognizedReviewVersion: before.every((h) => {
      const vs = strs(h.admissionReviewVersions);
      return vs.length === 0 || vs.some((v) => REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueNames: new Set(oldNames).size === oldNames.length,
  };
}

// ------------------------------------------------------------------ the resource

/** A webhook configuration kind: cluster-scoped, served at admissionregistration.orch.io/v1. */
export function webhookConfigurationDef(kind: string, mutating: boolean): ResourceDef {
  const schema = configurationSchema(mutating);
  const prepare = (o: KObject) => {
    decode(o, kind);
    setDefaults(o, mutating);
  };
  return defineKind({
    group: ADMISSION_GROUP,
    kind,
    namespaced: false,
    categories: ['api-extensions'],
    schema,
    nameRule: 'subdomain',
    table: printed(mutating ? 'mutatingWebhook' : 'validatingWebhook', {
      Webhooks: (o) => list(o.webhooks).length,
    }),
    prepare,
    validate: (o) => validateConfiguration(o, mutating, CREATE_OPTIONS),
    validateUpdate: (o, old) => validateConfiguration(o, mutating, updateOptions(o, old)),
    tracksGeneration: true,
  });
}
