// The operations of the discovery endpoints: `/api/`, `/apis/`, `/version/`, each group's and
// each group version's.
import type { Registry } from '../../registry/registry.ts';
import { gvName, gvTag, META, ref } from './names.ts';
import type { Op } from './op.ts';
import { JSON_T, YAML_T } from './params.ts';

export function discoveryOps(registry: Registry): Op[] {
  const ops: Op[] = [];
  const produces = [JSON_T, YAML_T];
  const r = (schema: string) => ({
    '200': { description: 'OK', schema: ref(schema) },
    '401': { description: 'Unauthorized' },
  });
  ops.push({
    path: '/api/',
    method: 'get',
    operationId: 'getCoreAPIVersions',
    description: 'get available API versions',
    tag: 'core',
    produces,
    params: [],
    responses: r(`${META}.APIVersions`),
    doc: 'api',
  });
  ops.push({
    path: '/apis/',
    method: 'get',
    operationId: 'getAPIVersions',
    description: 'get available API versions',
    tag: 'apis',
    produces,
    params: [],
    responses: r(`${META}.APIGroupList`),
    doc: 'apis',
  });
  ops.push({
    path: '/version/',
    method: 'get',
    operationId: 'getCodeVersion',
    description: 'get the code version',
    tag: 'version',
    produces: [JSON_T],
    params: [],
    responses: r('io.orch.apimachinery.pkg.version.Info'),
    doc: 'version',
  });
  const groups = new Map<string, Set<string>>();
  for (const { def } of registry.all())
    for (const v of def.versions)
      if (registry.servesGroupVersion(def.group, v))
        (groups.get(def.group) ?? groups.set(def.group, new Set()).get(def.group)!).add(v);
  for (const [group, versions] of groups) {
    if (group)
      ops.push({
        path: `/apis/${group}/`,
        method: 'get',
        operationId: `get${gvName(group, '')}APIGroup`,
        description: 'get information of a group',
        tag: gvTag(group, ''),
        produces,
        params: [],
        responses: r(`${META}.APIGroup`),
        doc: `apis/${group}`,
      });
    for (const v of versions) {
      const base = group ? `apis/${group}/${v}` : `api/${v}`;
      ops.push({
        path: `/${base}/`,
        method: 'get',
        operationId: `get${gvName(group, v)}APIResources`,
        description: 'get available resources',
        tag: gvTag(group, v),
        produces,
        params: [],
        responses: r(`${META}.APIResourceList`),
        doc: base,
      });
    }
  }
  return ops;
}
