// Shared names of the OpenAPI documents: the Json type, definition references and group-version naming.

export type Json = Record<string, unknown>;

export const META = 'io.orch.apimachinery.pkg.apis.meta.v1';
export const REF = '#/definitions/';
export const ref = (name: string): Json => ({ $ref: REF + name });

export function camel(s: string): string {
  return s
    .split(/[.-]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** `Core`, `Apps`, `RbacAuthorization`, `StableExampleCom`. */
function groupName(group: string): string {
  return camel(
    group === '' ? 'core' : group.endsWith('.orch.io') ? group.slice(0, -'.orch.io'.length) : group,
  );
}

/** `CoreV1`, `AppsV1`, `RbacAuthorizationV1`, `StableExampleComV1`. */
export function gvName(group: string, version: string): string {
  return groupName(group) + camel(version);
}

/** `core_v1`, `apps_v1`, `rbacAuthorization_v1`; `apps` for the group alone. */
export function gvTag(group: string, version: string): string {
  const n = groupName(group);
  return `${n[0]!.toLowerCase()}${n.slice(1)}${version ? `_${version}` : ''}`;
}

/** Definition name prefix: `io.orch.api.core.v1`, `io.orch.api.apps.v1`, `com.example.stable.v1`. */
export function definitionPrefix(group: string, version: string): string {
  if (group === '') return `io.orch.api.core.${version}`;
  if (!group.includes('.')) return `io.orch.api.${group}.${version}`;
  if (group.endsWith('.orch.io')) return `io.orch.api.${group.split('.')[0]}.${version}`;
  return `${group.split('.').reverse().join('.')}.${version}`;
}
