// The audit policy (`--audit-policy-file`, an `audit.orch.io/v1` Policy in YAML or JSON): its
// rules are read in order and the first that matches a request gives the request's level, the
// stages not recorded and whether managedFields are left out of the objects, as Kubernetes
// 1.28 evaluates them. A request no rule matches is not audited (level None). A policy that
// does not decode or validate is refused with every problem named.
import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../errors/config-error.ts';
import { yaml } from '../util/yaml.ts';
import { AUDIT_LEVELS, AUDIT_STAGES, type AuditLevel, type AuditStage } from './types.ts';

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** What the policy sees of a request (the authorizer's attributes of the authenticated user). */
export interface PolicyAttributes {
  user?: { username: string; groups: readonly string[] };
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

/** How a request is audited. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

export const POLICY_API_VERSION = 'audit.orch.io/v1';

/** What the server does without a policy file: every request at Metadata, one event when it completes. */
export const DEFAULT_AUDIT_CONFIG: RequestAuditConfig = {
  level: 'Metadata',
  omitStages: new Set<AuditStage>(['RequestReceived', 'ResponseStarted']),
  omitManagedFields: false,
};

export class AuditPolicyError extends Error {}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RULE_FIELDS = new Set([
  'level',
  'users',
  'userGroups',
  'verbs',
  'resources',
  'namespaces',
  'nonResourceURLs',
  'omitStages',
  'omitManagedFields',
]);
const POLICY_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const GROUP_RESOURCE_FIELDS = new Set(['group', 'resources', 'resourceNames']);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Collects the problems of a policy document as its parts are read. */
interface Reader {
  errs: string[];
  warn: (msg: string) => void;
}

function unknownFields(r: Reader, o: Record<string, unknown>, known: Set<string>, at: string): void {
  for (const k of Object.keys(o))
    if (!known.has(k)) r.warn(`audit policy: unknown field "${at}${k}" (ignored)`);
}

function strings(r: Reader, v: unknown, at: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    r.errs.push(`${at}: Invalid value: must be a list of strings`);
    return [];
  }
  return v as string[];
}

function bool(r: Reader, v: unknown, at: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    r.errs.push(`${at}: Invalid value: ${JSON.stringify(v)}: must be a boolean`);
    return undefined;
  }
  return v;
}

function stages(r: Reader, v: unknown, at: string): AuditStage[] {
  const out: AuditStage[] = [];
  strings(r, v, at).forEach((s, i) => {
    if ((AUDIT_STAGES as readonly string[]).includes(s)) out.push(s as AuditStage);
    else
      r.errs.push(
        `${at}[${i}]: Invalid value: ${JSON.stringify(s)}: allowed stages are ${AUDIT_STAGES.join(',')}`,
      );
  });
  return out;
}

/** The decoded document, once it is an object of the policy's apiVersion and kind. */
function readDocument(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new AuditPolicyError(`failed decoding: ${(e as Error).message}`);
  }
  if (!isRecord(doc)) throw new AuditPolicyError('failed decoding: the policy must be an object');
  if (doc.apiVersion !== POLICY_API_VERSION || doc.kind !== 'Policy')
    throw new AuditPolicyError(
      `unknown group version field ${JSON.stringify(doc.apiVersion ?? '')}, kind ${JSON.stringify(doc.kind ?? '')} in policy: want apiVersion ${POLICY_API_VERSION}, kind Policy`,
    );
  return doc;
}

/**
 * Reads a policy document. Fields the Policy does not have are reported through `warn` (as
 * Kubernetes' lenient decoding does); anything else wrong throws AuditPolicyError.
 */
export function parseAuditPolicy(text: string, warn: (msg: string) => void = () => {}): AuditPolicy {
  const doc = readDocument(text);
  const r: Reader = { errs: [], warn };
  unknownFields(r, doc, POLICY_FIELDS, '');
  const omitStages = stages(r, doc.omitStages, 'omitStages');
  const omitManagedFields = bool(r, doc.omitManagedFields, 'omitManagedFields') ?? false;
  let rawRules: unknown[] = [];
  if (doc.rules !== undefined && doc.rules !== null) {
    if (Array.isArray(doc.rules)) rawRules = doc.rules;
    else r.errs.push('rules: Invalid value: must be a list of rules');
  }
  const rules: PolicyRule[] = [];
  rawRules.forEach((raw, i) => {
    const rule = parseRule(r, raw, `rules[${i}]`);
    if (rule) rules.push(rule);
  });
  const { errs } = r;
  if (errs.length) throw new AuditPolicyError(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
  if (rules.length === 0) throw new AuditPolicyError('loaded illegal policy with 0 rules');
  return { rules, omitStages, omitManagedFields };
}

/** One rule of the policy at `at` (undefined when it is not an object). */
function parseRule(r: Reader, raw: unknown, at: string): PolicyRule | undefined {
  if (!isRecord(raw)) {
    r.errs.push(`${at}: Invalid value: must be an object`);
    return undefined;
  }
  unknownFields(r, raw, RULE_FIELDS, `${at}.`);
  let level: AuditLevel = 'None';
  if (raw.level === undefined || raw.level === null || raw.level === '')
    r.errs.push(`${at}.level: Required value`);
  else if (!(AUDIT_LEVELS as readonly unknown[]).includes(raw.level))
    r.errs.push(
      `${at}.level: Unsupported value: ${JSON.stringify(raw.level)}: supported values: ${AUDIT_LEVELS.map((l) => `"${l}"`).join(', ')}`,
    );
  else level = raw.level as AuditLevel;
  const nonResourceURLs = parseNonResourceURLs(r, raw.nonResourceURLs, at);
  const resources = parseResources(r, raw.resources, at);
  const namespaces = strings(r, raw.namespaces, `${at}.namespaces`);
  if (nonResourceURLs.length && (resources.length || namespaces.length))
    r.errs.push(
      `${at}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`,
    );
  const rule: PolicyRule = {
    level,
    users: strings(r, raw.users, `${at}.users`),
    userGroups: strings(r, raw.userGroups, `${at}.userGroups`),
    verbs: strings(r, raw.verbs, `${at}.verbs`),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: stages(r, raw.omitStages, `${at}.omitStages`),
  };
  const omf = bool(r, raw.omitManagedFields, `${at}.omitManagedFields`);
  if (omf !== undefined) rule.omitManagedFields = omf;
  return rule;
}

/** The non-resource URLs of the rule at `at`: paths starting with `/`, a `*` only at their end. */
function parseNonResourceURLs(r: Reader, v: unknown, at: string): string[] {
  const nonResourceURLs = strings(r, v, `${at}.nonResourceURLs`);
  nonResourceURLs.forEach((u, j) => {
    if (u === '*') return;
    if (!u.startsWith('/'))
      r.errs.push(
        `${at}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(u)}: non-resource URL rules must begin with a '/' character`,
      );
    if (u !== '' && u.slice(0, -1).includes('*'))
      r.errs.push(
        `${at}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(u)}: non-resource URL wildcards '*' must be the final character of the rule`,
      );
  });
  return nonResourceURLs;
}

/** The group resources of the rule at `at`. */
function parseResources(r: Reader, v: unknown, at: string): GroupResources[] {
  const resources: GroupResources[] = [];
  if (v === undefined || v === null) return resources;
  if (!Array.isArray(v)) {
    r.errs.push(`${at}.resources: Invalid value: must be a list`);
    return resources;
  }
  v.forEach((gr: unknown, j: number) => {
    const gat = `${at}.resources[${j}]`;
    if (!isRecord(gr)) {
      r.errs.push(`${gat}: Invalid value: must be an object`);
      return;
    }
    unknownFields(r, gr, GROUP_RESOURCE_FIELDS, `${gat}.`);
    const group = gr.group ?? '';
    if (typeof group !== 'string') r.errs.push(`${gat}.group: Invalid value: must be a string`);
    else if (group !== '' && (group.length > 253 || !DNS_SUBDOMAIN.test(group)))
      r.errs.push(
        `${gat}.group: Invalid value: ${JSON.stringify(group)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      );
    const res = strings(r, gr.resources, `${gat}.resources`);
    const names = strings(r, gr.resourceNames, `${gat}.resourceNames`);
    if (names.length && !res.length)
      r.errs.push(
        `${gat}.resourceNames: Invalid value: ${JSON.stringify(names)}: using resourceNames requires at least one resource`,
      );
    resources.push({ group: typeof group === 'string' ? group : '', resources: res, resourceNames: names });
  });
  return resources;
}

/** A trailing `*` matches any rest of the path; `*` alone any path. */
function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (!a.resourceRequest) return false;
  if (r.namespaces.length && !r.namespaces.includes(a.namespace)) return false;
  if (!r.resources.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of r.resources) {
    if (gr.group !== a.apiGroup) continue;
    if (!gr.resources.length) return true;
    if (gr.resourceNames.length && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === '*' || res === combined) return true;
      if (a.subresource && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

/** Whether a rule applies to a request: every field it sets must match. */
export function ruleMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (r.users.length && (!a.user || !r.users.includes(a.user.username))) return false;
  if (r.userGroups.length && !a.user?.groups.some((g) => r.userGroups.includes(g))) return false;
  if (r.verbs.length && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces.length || r.resources.length) return resourceMatches(r, a);
  if (r.nonResourceURLs.length)
    return !a.resourceRequest && r.nonResourceURLs.some((s) => pathMatches(a.path, s));
  return true;
}

/** Evaluates a policy: the first matching rule decides; none matching means level None. */
export class PolicyEvaluator {
  private readonly configs: RequestAuditConfig[];
  private readonly none: RequestAuditConfig;

  constructor(private readonly policy: AuditPolicy) {
    this.configs = policy.rules.map((r) => ({
      level: r.level,
      omitStages: new Set([...policy.omitStages, ...r.omitStages]),
      omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields,
    }));
    this.none = {
      level: 'None',
      omitStages: new Set(policy.omitStages),
      omitManagedFields: policy.omitManagedFields,
    };
  }

  evaluate(a: PolicyAttributes): RequestAuditConfig {
    const rules = this.policy.rules;
    for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i]!, a)) return this.configs[i]!;
    return this.none;
  }
}

/** Reads `--audit-policy-file`: a policy that cannot be used stops the server at start, the flag, file and problems named. */
export function loadAuditPolicyFile(
  path: string,
  warn: (msg: string) => void = (m) => console.warn(m),
): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigurationError(
      `--audit-policy-file: failed to read file path "${path}": ${(e as Error).message}`,
    );
  }
  try {
    return parseAuditPolicy(text, warn);
  } catch (e) {
    if (e instanceof AuditPolicyError)
      throw new ConfigurationError(`--audit-policy-file: ${e.message}: from file ${path}`);
    throw e;
  }
}
