// PodSecurity (doc3 plugin table: "checks new workload units against namespace pod security
// standards"; the rest follows Kubernetes 1.28's pod security admission):
// - a pod is checked against its namespace's enforce level (a violation rejects it with 403
//   `violates PodSecurity "<level>:<version>": ...`), its audit level (violations become the
//   audit annotation `pod-security.orch.io/audit-violations`) and its warn level (a warning);
// - the kinds that carry pod templates (Deployment, ReplicaSet, Job, ...) get warn and audit only;
// - a namespace's pod security labels are validated (422), and a change of its enforce level
//   warns about the existing pods that violate the new level;
// - exempt users, runtime classes and namespaces of the configuration are not checked (the
//   audit annotation `pod-security.orch.io/exempt` says why);
// - pod updates that change only what 1.28 leaves out (metadata other than the seccomp and
//   AppArmor annotations, activeDeadlineSeconds, tolerations) and subresources other than
//   ephemeralcontainers are not checked.
import { errors } from '../../../errors/status.ts';
import type { Registry } from '../../../registry/registry.ts';
import type { KObject } from '../../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../types.ts';
import { APPARMOR_PREFIX, describe, evaluate, type Violation } from './checks.ts';
import {
  LABEL_PREFIX,
  type LevelVersion,
  noStricter,
  type Policy,
  type PodSecurityConfig,
  parseConfig,
  policyOf,
  show,
} from './policy.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The resources that carry a pod template, and where it is: by group, then resource. */
const TEMPLATES = new Map<string, Map<string, (o: any) => any>>([
  [
    '',
    new Map([
      ['replicationcontrollers', (o: any) => o?.spec?.template],
      ['podtemplates', (o: any) => o?.template],
    ]),
  ],
  [
    'apps',
    new Map(
      ['replicasets', 'deployments', 'statefulsets', 'daemonsets'].map((r) => [
        r,
        (o: any) => o?.spec?.template,
      ]),
    ),
  ],
  [
    'batch',
    new Map([
      ['jobs', (o: any) => o?.spec?.template],
      ['cronjobs', (o: any) => o?.spec?.jobTemplate?.spec?.template],
    ]),
  ],
]);
/** Where a request's resource holds its pod template (undefined: it holds none). */
const templateOf = (a: AdmissionAttributes) => TEMPLATES.get(a.resource.group)?.get(a.resource.resource);
const isPods = (a: AdmissionAttributes) => a.resource.group === '' && a.resource.resource === 'pods';
const isNamespaces = (a: AdmissionAttributes) =>
  a.resource.group === '' && a.resource.resource === 'namespaces';

export const ANNOTATION = {
  enforcePolicy: `${LABEL_PREFIX}enforce-policy`,
  auditViolations: `${LABEL_PREFIX}audit-violations`,
  exempt: `${LABEL_PREFIX}exempt`,
};

const SECCOMP_ANNOTATIONS =
  /^(seccomp\.security\.alpha\.orch\.io\/pod|container\.seccomp\.security\.alpha\.orch\.io\/)/;

/** Whether a pod update changes something the checks look at. */
function significantUpdate(pod: any, old: any): boolean {
  const securityAnnotations = (o: any) =>
    Object.entries((o?.metadata?.annotations ?? {}) as Record<string, string>)
      .filter(([k]) => k.startsWith(APPARMOR_PREFIX) || SECCOMP_ANNOTATIONS.test(k))
      .sort(([a], [b]) => (a < b ? -1 : 1));
  if (JSON.stringify(securityAnnotations(pod)) !== JSON.stringify(securityAnnotations(old))) return true;
  const checked = (o: any) => {
    const s = { ...(o?.spec ?? {}) };
    delete s.activeDeadlineSeconds;
    delete s.tolerations;
    return s;
  };
  return !deepEqual(checked(pod), checked(old));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as any)[k], (b as any)[k]));
}

/** What the checks read: the plugin's configuration and the registry. */
interface Context {
  cfg: PodSecurityConfig;
  registry: Registry;
}

async function namespaceLabels(registry: Registry, ns: string): Promise<Record<string, string> | undefined> {
  const store = registry.byResource('', 'namespaces')?.store;
  if (!store) return undefined;
  try {
    const o = await store.get('', ns);
    return (o.metadata?.labels ?? {}) as Record<string, string>;
  } catch {
    return undefined;
  }
}

const annotate = (a: AdmissionAttributes, k: string, v: string) => a.ctx.audit?.annotate(k, v);
const wouldViolate = (lv: LevelVersion, vs: Violation[]) =>
  `would violate PodSecurity "${show(lv)}": ${describe(vs)}`;

/** Exempt by user or namespace (runtime class is the pod's): the reason, or undefined. */
function exemptRequest(
  cfg: PodSecurityConfig,
  a: AdmissionAttributes,
  checkUser: boolean,
): string | undefined {
  if (cfg.exemptions.namespaces.includes(a.namespace)) return 'namespace';
  if (checkUser && cfg.exemptions.usernames.includes(a.ctx.user.username)) return 'user';
  return undefined;
}
const exemptRuntimeClass = (cfg: PodSecurityConfig, spec: any) =>
  typeof spec?.runtimeClassName === 'string' && cfg.exemptions.runtimeClasses.includes(spec.runtimeClassName);

async function namespacePolicy(ctx: Context, a: AdmissionAttributes): Promise<Policy> {
  const labels = await namespaceLabels(ctx.registry, a.namespace);
  return policyOf(labels, ctx.cfg.defaults).policy;
}

async function checkPod(ctx: Context, a: AdmissionAttributes): Promise<void> {
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
  if (a.subresource && a.subresource !== 'ephemeralcontainers') return;
  const pod = a.object as any;
  if (!pod) return;
  if (a.operation === 'UPDATE' && !a.subresource && !significantUpdate(pod, a.oldObject)) return;
  const exempt =
    exemptRequest(ctx.cfg, a, true) ?? (exemptRuntimeClass(ctx.cfg, pod.spec) ? 'runtimeClass' : undefined);
  if (exempt) {
    annotate(a, ANNOTATION.exempt, exempt);
    return;
  }
  const policy = await namespacePolicy(ctx, a);
  const meta = pod.metadata;
  const enforce = evaluate(policy.enforce.level, meta, pod.spec);
  annotate(a, ANNOTATION.enforcePolicy, show(policy.enforce));
  if (enforce.length) {
    throw errors.forbidden(
      `pods ${JSON.stringify(a.name)} is forbidden: violates PodSecurity "${show(policy.enforce)}": ${describe(enforce)}`,
      { name: a.name, kind: 'pods' },
    );
  }
  const audit = evaluate(policy.audit.level, meta, pod.spec);
  if (audit.length) annotate(a, ANNOTATION.auditViolations, wouldViolate(policy.audit, audit));
  if (show(policy.warn) !== show(policy.enforce)) {
    const warn = evaluate(policy.warn.level, meta, pod.spec);
    if (warn.length) a.ctx.warnings.push(wouldViolate(policy.warn, warn));
  }
}

async function checkTemplate(ctx: Context, a: AdmissionAttributes, template: any): Promise<void> {
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
  if (a.subresource) return;
  if (!template || typeof template !== 'object') return;
  if (a.operation === 'UPDATE') {
    const old = templateOf(a)!(a.oldObject);
    if (old && !significantUpdate(template, old)) return;
  }
  const exempt =
    exemptRequest(ctx.cfg, a, false) ??
    (exemptRuntimeClass(ctx.cfg, template.spec) ? 'runtimeClass' : undefined);
  if (exempt) {
    annotate(a, ANNOTATION.exempt, exempt);
    return;
  }
  const policy = await namespacePolicy(ctx, a);
  const audit = evaluate(policy.audit.level, template.metadata, template.spec);
  if (audit.length) annotate(a, ANNOTATION.auditViolations, wouldViolate(policy.audit, audit));
  const warn = evaluate(policy.warn.level, template.metadata, template.spec);
  if (warn.length) a.ctx.warnings.push(wouldViolate(policy.warn, warn));
}

async function checkNamespace(ctx: Context, a: AdmissionAttributes): Promise<void> {
  const { cfg } = ctx;
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
  if (a.subresource) return;
  const ns = a.object as KObject | undefined;
  if (!ns) return;
  const labels = (ns.metadata?.labels ?? {}) as Record<string, string>;
  const { policy, problems } = policyOf(labels, cfg.defaults);
  if (problems.length)
    throw errors.invalid(
      { group: '', kind: 'Namespace' },
      a.name,
      problems.map((p) => ({
        reason: 'FieldValueInvalid',
        field: p.field,
        message: `Invalid value: ${JSON.stringify(p.value)}: ${p.message}`,
      })),
    );
  if (a.operation !== 'UPDATE') return;
  const oldPolicy = policyOf(
    (a.oldObject?.metadata?.labels ?? {}) as Record<string, string>,
    cfg.defaults,
  ).policy;
  if (show(oldPolicy.enforce) === show(policy.enforce)) return;
  if (cfg.exemptions.namespaces.includes(a.name)) {
    a.ctx.warnings.push(
      `namespace ${JSON.stringify(a.name)} is exempt from Pod Security, and the policy (enforce=${show(policy.enforce)}) will be ignored`,
    );
    return;
  }
  if (policy.enforce.level === 'privileged' || noStricter(policy.enforce, oldPolicy.enforce)) return;
  return warnViolatingPods(ctx, a, policy);
}

/** Warns about the pods of namespace `a.name` that violate its new enforce level. */
async function warnViolatingPods(ctx: Context, a: AdmissionAttributes, policy: Policy): Promise<void> {
  const pods = ctx.registry.byResource('', 'pods')?.store;
  if (!pods) return;
  const { items } = await pods.list(a.name, {});
  // pods with the same reasons are told together: `<first> (and N other pods): reasons`
  const groups = new Map<string, string[]>();
  for (const p of items as any[]) {
    if (exemptRuntimeClass(ctx.cfg, p.spec)) continue;
    const vs = evaluate(policy.enforce.level, p.metadata, p.spec);
    if (!vs.length) continue;
    const reasons = [...new Set(vs.map((v) => v.reason))].join(', ');
    const g = groups.get(reasons) ?? [];
    g.push(String(p.metadata?.name ?? ''));
    groups.set(reasons, g);
  }
  if (!groups.size) return;
  a.ctx.warnings.push(
    `existing pods in namespace ${JSON.stringify(a.name)} violate the new PodSecurity enforce level ${JSON.stringify(show(policy.enforce))}`,
  );
  for (const [reasons, names] of groups) {
    const others = names.length - 1;
    a.ctx.warnings.push(
      `${names[0]}${others ? ` (and ${others} other ${others === 1 ? 'pod' : 'pods'})` : ''}: ${reasons}`,
    );
  }
}

export function podSecurity(env: { registry: Registry; config: unknown }): AdmissionPlugin {
  const ctx: Context = { cfg: parseConfig(env.config), registry: env.registry };
  return {
    name: 'PodSecurity',
    handles: (a) => isPods(a) || isNamespaces(a) || templateOf(a) !== undefined,
    async validate(a) {
      if (isNamespaces(a)) return checkNamespace(ctx, a);
      if (isPods(a)) return checkPod(ctx, a);
      return checkTemplate(ctx, a, templateOf(a)!(a.object));
    },
  };
}
