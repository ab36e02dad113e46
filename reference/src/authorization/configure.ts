// The authorization stage as `--authorization-mode` configures it: the privileged group
// first, then each mode in order (AlwaysAllow, AlwaysDeny, RBAC, Webhook). The RBAC API is served
// whatever the modes (as in Kubernetes), so its machinery always runs: the policy held in
// memory, the default roles and bindings created when missing, and the aggregation controller
// (escalation prevention on writes of roles and bindings is an admission plugin the server
// adds: admission/plugins/rbac-escalation.ts).
import type { RulesAnswer } from '../registry/kinds/review-common.ts';
import type { Registry } from '../registry/registry.ts';
import type { UserInfo } from '../registry/types.ts';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer } from './always.ts';
import { AuthorizerChain } from './chain.ts';
import { SuperuserAuthorizer } from './default.ts';
import { type Controller, startAggregation } from './rbac/aggregation.ts';
import { RbacAuthorizer } from './rbac/authorizer.ts';
import { ensureDefaults } from './rbac/bootstrap.ts';
import { aggregate, RbacIndex } from './rbac/rbac-index.ts';
import type { PolicyRule } from './rbac/rules.ts';
import type { Authorizer } from './types.ts';
import { WebhookAuthorizer } from './webhook.ts';
import { loadWebhookConnection } from './webhook-client.ts';

const FULL: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** Why a list of modes is not acceptable, or undefined. */
export function modesProblem(modes: readonly string[]): string | undefined {
  if (modes.length === 0) return 'at least one authorization mode must be given';
  const seen = new Set<string>();
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m))
      return `unknown authorization mode "${m}" (known: ${AUTHORIZATION_MODES.join(', ')})`;
    if (seen.has(m)) return `authorization mode "${m}" is given more than once`;
    seen.add(m);
  }
  return undefined;
}

export interface AuthorizationSetup {
  chain: AuthorizerChain;
  /** The in-memory RBAC policy. */
  rbac: RbacIndex;
  /** What a user may do in a namespace, as the modes tell (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): RulesAnswer;
  /** Creates the default policy objects when missing and starts the controllers (after the system namespaces exist). */
  start(): Promise<void>;
  /** Resolves once the aggregation controller has nothing pending. */
  idle(): Promise<void>;
  stop(): void;
}

export interface WebhookSettings {
  /** `--authorization-webhook-config-file` (kubeconfig format). */
  configFile?: string;
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export function configureAuthorization(
  modes: readonly string[],
  registry: Registry,
  webhook?: WebhookSettings,
): AuthorizationSetup {
  const problem = modesProblem(modes);
  if (problem) throw new Error(problem);
  if (modes.includes('Webhook') && !webhook?.configFile)
    throw new Error('the Webhook authorization mode needs --authorization-webhook-config-file');
  const list: Authorizer[] = [new SuperuserAuthorizer()];
  const closers: (() => void)[] = [];
  const rbac = new RbacIndex(registry.storage);
  for (const m of modes as AuthorizationMode[]) {
    if (m === 'AlwaysAllow') list.push(new AlwaysAllowAuthorizer());
    else if (m === 'AlwaysDeny') list.push(new AlwaysDenyAuthorizer());
    else if (m === 'Webhook') {
      const w = new WebhookAuthorizer(loadWebhookConnection(webhook!.configFile!), {
        version: webhook!.version,
        authorizedTtlMs: webhook!.authorizedTtlMs,
        unauthorizedTtlMs: webhook!.unauthorizedTtlMs,
      });
      closers.push(() => w.close());
      list.push(w);
    } else list.push(new RbacAuthorizer(rbac));
  }
  const chain = new AuthorizerChain(list);
  let aggregation: Controller | undefined;
  let stopped = false;
  const rulesFor = (user: UserInfo, namespace: string): RulesAnswer => {
    const all: PolicyRule[] = [];
    const errs: string[] = [];
    if (user.groups.includes('system:masters')) all.push(...FULL);
    for (const m of modes) {
      if (m === 'AlwaysAllow') all.push(...FULL);
      if (m !== 'RBAC') continue;
      const r = rbac.rulesFor(user, namespace);
      all.push(...r.rules);
      errs.push(...r.errors);
    }
    const out: RulesAnswer = {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: modes.includes('Webhook') || chain.size > modes.length + 1,
    };
    for (const r of all) {
      if (r.resources?.length) {
        const rr: Record<string, unknown> = { verbs: r.verbs };
        if (r.apiGroups?.length) rr.apiGroups = r.apiGroups;
        rr.resources = r.resources;
        if (r.resourceNames?.length) rr.resourceNames = r.resourceNames;
        out.resourceRules.push(rr);
      }
      if (r.nonResourceURLs?.length)
        out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    if (errs.length) out.evaluationError = aggregate(errs);
    return out;
  };
  return {
    chain,
    rbac,
    rulesFor,
    async start() {
      if (stopped) return;
      await ensureDefaults(registry);
      aggregation = startAggregation(registry);
      await aggregation.idle();
    },
    idle: () => aggregation?.idle() ?? Promise.resolve(),
    stop() {
      stopped = true;
      aggregation?.stop();
      rbac.stop();
      for (const c of closers) c();
    },
  };
}
