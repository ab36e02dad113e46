// APIService (apiregistration.orch.io/v1) with the `status` subresource. Cluster-scoped. Names
// a group version and who serves it: this server (`service` unset, a "Local" APIService) or a
// Service. Validation and defaults as Kubernetes 1.28's: the name is `<version>.<group>`;
// groupPriorityMinimum 1..20000 and versionPriority 1..1000; a local APIService has no
// caBundle and no insecureSkipTLSVerify; a service reference has a namespace, a name and a
// valid port (443 by default). Writes of the main resource keep the stored status.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, keepAllButStatus, specStatusHooks } from './common.ts';
import { defineKind, printed } from './define.ts';

export const APIREGISTRATION_GROUP = 'apiregistration.orch.io';

export interface APIServiceCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface APIService {
  metadata: KObject['metadata'];
  spec?: {
    service?: { namespace?: string; name?: string; port?: number } | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: APIServiceCondition[] };
}

const specOf = (o: KObject) => (o as APIService).spec ?? {};

const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Bytes of a base64 value (the caBundle as the server decodes it). */
function byteLength(b64: string): number {
  return Buffer.from(b64, 'base64').length;
}

function validateAPIService(o: KObject): StatusCause[] {
  const s = specOf(o);
  const causes = new Causes();
  const group = s.group ?? '';
  const version = s.version ?? '';
  const required = `${version}.${group}`;
  const name = o.metadata.name ?? '';
  // a name that is no valid path segment is reported with the other name checks
  if (name && !nameProblem(name, 'path') && name !== required)
    causes.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: "${required}"`);
  if (!group && version !== 'v1')
    causes.required('spec.group', 'only v1 may have an empty group and it better be legacy kube');
  if (group) {
    if (group.length > 253) causes.invalid('spec.group', group, 'must be no more than 253 characters');
    else if (nameProblem(group, 'subdomain')) causes.invalid('spec.group', group, DNS1123_SUBDOMAIN_MSG);
  }
  const vp = nameProblem(version, 'label1035');
  if (vp) causes.invalid('spec.version', version, vp);
  const gpm = s.groupPriorityMinimum ?? 0;
  if (gpm <= 0 || gpm > 20000)
    causes.invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000');
  const vpr = s.versionPriority ?? 0;
  if (vpr <= 0 || vpr > 1000)
    causes.invalid('spec.versionPriority', vpr, 'must be positive and less than 1000');
  const ca = s.caBundle ? byteLength(s.caBundle) : 0;
  if (s.service == null) {
    if (ca) causes.invalid('spec.caBundle', `${ca} bytes`, 'local APIServices may not have a caBundle');
    if (s.insecureSkipTLSVerify)
      causes.invalid(
        'spec.insecureSkipTLSVerify',
        true,
        'local APIServices may not have insecureSkipTLSVerify',
      );
    return causes;
  }
  if (!s.service.namespace) causes.required('spec.service.namespace');
  if (!s.service.name) causes.required('spec.service.name');
  const port = s.service.port ?? 0;
  if (!(port >= 1 && port <= 65535))
    causes.invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive');
  if (s.insecureSkipTLSVerify && ca)
    causes.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present');
  return causes;
}

function validateStatus(o: KObject): StatusCause[] {
  const causes = new Causes();
  for (const [i, c] of ((o as APIService).status?.conditions ?? []).entries())
    if (!['True', 'False', 'Unknown'].includes(c?.status ?? ''))
      causes.notSupported(`status.conditions[${i}].status`, c?.status ?? '', ['True', 'False', 'Unknown']);
  return causes;
}

function prepare(o: KObject): void {
  const svc = specOf(o).service;
  if (svc && typeof svc === 'object') svc.port ??= 443;
}

/** The Available column: the condition's status, with its reason when not True; Unknown without one. */
export function availableCell(o: KObject): string {
  const c = (o as APIService).status?.conditions?.find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  if (c.status === 'True' || !c.reason) return c.status ?? '';
  return `${c.status} (${c.reason})`;
}

export const apiServiceDef = defineKind({
  group: APIREGISTRATION_GROUP,
  kind: 'APIService',
  namespaced: false,
  categories: ['api-extensions'],
  subresources: ['status'],
  schema: builtinSchema(`${APIREGISTRATION_GROUP}/v1`, 'APIService'),
  nameRule: 'path',
  zeroValue: () => ({ spec: { groupPriorityMinimum: 0, versionPriority: 0 } }),
  ...specStatusHooks(prepare),
  prepareForStatusUpdate: keepAllButStatus,
  validate: (o) => [...validateAPIService(o), ...validateStatus(o)],
  validateUpdate: (o) => [...validateAPIService(o), ...validateStatus(o)],
  table: printed('apiService', {
    Service: (o) => {
      const svc = specOf(o).service;
      return svc ? `${svc.namespace ?? ''}/${svc.name ?? ''}` : 'Local';
    },
    Available: availableCell,
  }),
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  normalize: false,
});
