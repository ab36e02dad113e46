// Test support: the attributes a write's admission sees, for the chain and plugins tested
// without a server (kind and resource as the request named them, a user without groups).
import type { AdmissionAttributes, Operation } from '../src/admission/types.ts';
import type { KObject } from '../src/storage/types.ts';

export function admissionAttributes(a: {
  operation: Operation;
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespace?: string;
  name: string;
  object?: KObject;
  oldObject?: KObject;
}): AdmissionAttributes {
  const kind = { group: a.group, version: a.version, kind: a.kind };
  const resource = { group: a.group, version: a.version, resource: a.resource };
  return {
    operation: a.operation,
    requestKind: kind,
    requestResource: resource,
    kind,
    resource,
    subresource: '',
    namespace: a.namespace ?? '',
    name: a.name,
    object: a.object,
    oldObject: a.oldObject,
    dryRun: false,
    ctx: { user: { username: 'u', groups: [] }, warnings: [], dryRun: false },
  };
}
