// What the admission plugin cases share: where the plugin table is, namespaces and RBAC grants
// made through the case's own client (a case may run on a target other than the main one), and
// the Warning headers of an answer.
import { checkStatus } from '../../harness/src/assert.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';

export const SECTION = 'Webhook configuration objects';
const RBAC = '/apis/rbac.authorization.orch.io/v1';

/** A plugin table row, as the case's place: `<Plugin> | <Kind> | <Behaviour>`. */
export const row = (plugin: string, kind: string, behaviour: string) =>
  `Plugin behaviours: ${plugin} | ${kind} | ${behaviour}`;

/** The rule (suites/rules/doc3.yaml) of each row of the plugin table, by the row's first cell. */
export const PLUGIN_RULES: Record<string, string> = {
  'AlwaysAdmit, AlwaysDeny': 'doc3/webhook-configuration-objects/alwaysadmit-alwaysdeny-v-admit-all-reject',
  AlwaysPullImages: 'doc3/webhook-configuration-objects/alwayspullimages-m-sets-image-pull-policy',
  CertificateApproval: 'doc3/webhook-configuration-objects/certificateapproval-v-checks-approver-has-approve',
  CertificateSigning: 'doc3/webhook-configuration-objects/certificatesigning-v-checks-signer-has-permission',
  CertificateSubjectRestriction:
    'doc3/webhook-configuration-objects/certificatesubjectrestriction-v-rejects-client-signer-requests',
  DefaultIngressClass: 'doc3/webhook-configuration-objects/defaultingressclass-m-adds-default-ingress-class',
  DefaultStorageClass: 'doc3/webhook-configuration-objects/defaultstorageclass-m-same-volume-claims-storage',
  DefaultTolerationSeconds:
    'doc3/webhook-configuration-objects/defaulttolerationseconds-m-adds-tolerations-not-ready',
  DenyServiceExternalIPs:
    'doc3/webhook-configuration-objects/denyserviceexternalips-v-rejects-new-use-externalips',
  EventRateLimit: 'doc3/webhook-configuration-objects/eventratelimit-v-token-buckets-type-server',
  ExtendedResourceToleration:
    'doc3/webhook-configuration-objects/extendedresourcetoleration-m-adds-tolerations-taints-named',
  ImagePolicyWebhook: 'doc3/webhook-configuration-objects/imagepolicywebhook-v-asks-backend-imagereview-off',
  LimitPodHardAntiAffinityTopology:
    'doc3/webhook-configuration-objects/limitpodhardantiaffinitytopology-v-rejects-required-anti-affinity',
  LimitRanger: 'doc3/webhook-configuration-objects/limitranger-m-v-enforces-per-namespace',
  MutatingAdmissionWebhook:
    'doc3/webhook-configuration-objects/mutatingadmissionwebhook-m-calls-matching-mutating-webhooks',
  NamespaceAutoProvision:
    'doc3/webhook-configuration-objects/namespaceautoprovision-m-creates-missing-namespace',
  NamespaceExists: 'doc3/webhook-configuration-objects/namespaceexists-v-rejects-requests-naming-missing',
  NamespaceLifecycle:
    'doc3/webhook-configuration-objects/namespacelifecycle-v-blocks-creation-terminating-namespaces',
  NodeRestriction: 'doc3/webhook-configuration-objects/noderestriction-v-limits-node-agent-user',
  OwnerReferencesPermissionEnforcement:
    'doc3/webhook-configuration-objects/ownerreferencespermissionenforcement-v-only-holders-delete-permission',
  PersistentVolumeClaimResize:
    'doc3/webhook-configuration-objects/persistentvolumeclaimresize-v-blocks-size-changes-unless',
  PodNodeSelector: 'doc3/webhook-configuration-objects/podnodeselector-v-node-selectors-namespace-annotation',
  PodSecurity: 'doc3/webhook-configuration-objects/podsecurity-v-checks-new-workload-units',
  PodTolerationRestriction:
    'doc3/webhook-configuration-objects/podtolerationrestriction-m-v-merges-namespace-tolerations',
  Priority: 'doc3/webhook-configuration-objects/priority-m-v-fills-priority-priorityclassname',
  ResourceQuota: 'doc3/webhook-configuration-objects/resourcequota-v-enforces-quota-objects',
  RuntimeClass: 'doc3/webhook-configuration-objects/runtimeclass-m-v-rejects-workload-units',
  SecurityContextDeny:
    'doc3/webhook-configuration-objects/securitycontextdeny-v-rejects-several-security-context',
  ServiceAccount: 'doc3/webhook-configuration-objects/serviceaccount-m-v-automates-service-accounts',
  StorageObjectInUseProtection:
    'doc3/webhook-configuration-objects/storageobjectinuseprotection-m-adds-protection-finalizers-new',
  TaintNodesByCondition: 'doc3/webhook-configuration-objects/taintnodesbycondition-m-adds-not-ready-no',
  ValidatingAdmissionPolicy:
    'doc3/webhook-configuration-objects/validatingadmissionpolicy-v-runs-expression-language-policies',
  ValidatingAdmissionWebhook:
    'doc3/webhook-configuration-objects/validatingadmissionwebhook-v-calls-matching-validating-webhooks',
};

/**
 * The rule a plugin table row quotes (`<Plugin> | <Kind> | <Behaviour>`, with or without the
 * `Plugin behaviours: ` prefix of `row`); none for a place that is not a row of the table.
 */
export function pluginRules(place: string): string[] | undefined {
  const id = PLUGIN_RULES[place.replace(/^Plugin behaviours: /, '').split(' | ')[0]!];
  return id ? [id] : undefined;
}

/** Makes a namespace with these labels; returns its name and a function that removes it. */
export async function namespace(c: Client, prefix: string, labels: Record<string, string> = {}) {
  const name = uniqueName(prefix);
  const r = await c.post('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
  });
  checkStatus(r, 201, undefined, `setup: namespace ${name}`);
  return { name, remove: () => dropNamespace(c, name) };
}

export interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/** Grants a user or group these rules cluster-wide; returns a function that takes them back. */
export async function grant(c: Client, subject: { kind: 'User' | 'Group'; name: string }, rules: Rule[]) {
  const name = uniqueName('plugin-grant');
  const role = await c.post(`${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules,
  });
  checkStatus(role, 201, undefined, `setup: ClusterRole ${name}`);
  const binding = await c.post(`${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name },
    subjects: [{ ...subject, apiGroup: 'rbac.authorization.orch.io' }],
  });
  checkStatus(binding, 201, undefined, `setup: ClusterRoleBinding ${name}`);
  return async () => {
    await c.delete(`${RBAC}/clusterrolebindings/${name}`);
    await c.delete(`${RBAC}/clusterroles/${name}`);
  };
}

/**
 * Retries a write until RBAC has caught up with a grant (the authorizer may read a cache that
 * trails the write by a moment): until `done` holds or 5 s pass; returns the last answer.
 */
export async function settle(
  write: () => Promise<Response>,
  done: (r: Response) => boolean,
): Promise<Response> {
  const until = Date.now() + 5_000;
  let r = await write();
  while (!done(r) && Date.now() < until) {
    await new Promise((res) => setTimeout(res, 100));
    r = await write();
  }
  return r;
}

/** Every Warning header of an answer, as one text (warnings hold commas, so they are not split). */
export function warningsOf(r: Response): string {
  const h = r.headers.warning ?? r.headers.Warning;
  return (Array.isArray(h) ? h : h ? [h] : []).join('\n').replace(/\\"/g, '"');
}
