// The priority-and-fairness configuration a Kubernetes 1.28 server keeps (v1beta3 shape, every
// default already applied): the mandatory `exempt` and `catch-all` priority levels and flow
// schemas, whose spec no write may change, and the suggested ones. Each carries
// `apf.orch.io/autoupdate-spec: "true"`.
import type { KObject } from '../../storage/types.ts';
import {
  AUTO_UPDATE_ANNOTATION,
  FLOWCONTROL_GROUP,
  type FlowSchemaSpec,
  type PolicyRulesWithSubjects,
  type ResourcePolicyRule,
  type Subject,
} from './flowcontrol-common.ts';

export interface PriorityLevelSpec {
  type?: string;
  exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
  limited?: {
    nominalConcurrencyShares?: number;
    lendablePercent?: number;
    borrowingLimitPercent?: number;
    limitResponse?: {
      type?: string;
      queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number };
    };
  };
}

const SYSTEM_NAMESPACE = 'orch-system';

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const systemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: SYSTEM_NAMESPACE } }));

const resourceRule = (
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  namespaces: string[],
  clusterScope: boolean,
): ResourcePolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(clusterScope ? { clusterScope } : {}),
  namespaces,
});

const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({
  subjects,
  resourceRules: [resourceRule(['*'], ['*'], ['*'], ['*'], true)],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
});

const fs = (
  name: string,
  priorityLevel: string,
  matchingPrecedence: number,
  distinguisher: string,
  ...rules: PolicyRulesWithSubjects[]
): { name: string; spec: FlowSchemaSpec } => ({
  name,
  spec: {
    priorityLevelConfiguration: { name: priorityLevel },
    matchingPrecedence,
    ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
    rules,
  },
});

const limited = (
  name: string,
  nominalConcurrencyShares: number,
  lendablePercent: number,
  queuing?: { queues: number; handSize: number; queueLengthLimit: number },
): { name: string; spec: PriorityLevelSpec } => ({
  name,
  spec: {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares,
      lendablePercent,
      limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' },
    },
  },
});

const queuing = (queues: number, handSize: number, queueLengthLimit: number) => ({
  queues,
  handSize,
  queueLengthLimit,
});

export const MANDATORY_PRIORITY_LEVELS = [
  limited('catch-all', 5, 0),
  {
    name: 'exempt',
    spec: {
      type: 'Exempt',
      exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 },
    } as PriorityLevelSpec,
  },
];

export const MANDATORY_FLOW_SCHEMAS = [
  fs('exempt', 'exempt', 1, '', everything(groups('system:masters'))),
  fs(
    'catch-all',
    'catch-all',
    10000,
    'ByUser',
    everything(groups('system:unauthenticated', 'system:authenticated')),
  ),
];

export const SUGGESTED_PRIORITY_LEVELS = [
  limited('system', 30, 33, queuing(64, 6, 50)),
  limited('node-high', 40, 25, queuing(64, 6, 50)),
  limited('leader-election', 10, 0, queuing(16, 4, 50)),
  limited('workload-high', 40, 50, queuing(128, 6, 50)),
  limited('workload-low', 100, 90, queuing(128, 6, 50)),
  limited('global-default', 20, 50, queuing(128, 6, 50)),
];

export const SUGGESTED_FLOW_SCHEMAS = [
  fs('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  fs('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [
      resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
      resourceRule(['*'], ['coordination.orch.io'], ['leases'], ['*'], false),
    ],
  }),
  fs('probes', 'exempt', 2, '', {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  fs('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [
      ...users('system:kube-controller-manager', 'system:kube-scheduler'),
      ...systemServiceAccounts('*'),
    ],
    resourceRules: [
      resourceRule(['get', 'create', 'update'], ['coordination.orch.io'], ['leases'], ['*'], false),
    ],
  }),
  fs('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: systemServiceAccounts('*'),
    resourceRules: [
      resourceRule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], ['*'], false),
      resourceRule(['get', 'create', 'update'], ['coordination.orch.io'], ['leases'], ['*'], false),
    ],
  }),
  fs('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [
      ...users('system:kube-controller-manager'),
      ...systemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller'),
    ],
    resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], ['*'], false)],
  }),
  fs(
    'kube-controller-manager',
    'workload-high',
    800,
    'ByNamespace',
    everything(users('system:kube-controller-manager')),
  ),
  fs('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
  fs(
    'kube-system-service-accounts',
    'workload-high',
    900,
    'ByNamespace',
    everything(systemServiceAccounts('*')),
  ),
  fs('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  fs(
    'global-default',
    'global-default',
    9900,
    'ByUser',
    everything(groups('system:unauthenticated', 'system:authenticated')),
  ),
];

/** The fixed spec of a mandatory flow schema, if the name is one. */
export function mandatoryFlowSchemaSpec(name: string): FlowSchemaSpec | undefined {
  return MANDATORY_FLOW_SCHEMAS.find((x) => x.name === name)?.spec;
}

/** The fixed spec of a mandatory priority level, if the name is one. */
export function mandatoryPriorityLevelSpec(name: string): PriorityLevelSpec | undefined {
  return MANDATORY_PRIORITY_LEVELS.find((x) => x.name === name)?.spec;
}

/** A configuration object as the server writes it. */
export function bootstrapObject(
  kind: 'FlowSchema' | 'PriorityLevelConfiguration',
  c: { name: string; spec: object },
): KObject {
  return {
    apiVersion: `${FLOWCONTROL_GROUP}/v1beta3`,
    kind,
    metadata: { name: c.name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: structuredClone(c.spec),
  };
}
