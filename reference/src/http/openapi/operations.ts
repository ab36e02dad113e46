// The operations: paths, parameters and responses of every served resource, verb and discovery endpoint.
import { SUBRESOURCES, subresourceVerbs } from '../../registry/subresources.ts';
import { hasProtobuf } from '../../content/protobuf.ts';
import type { Registry } from '../../registry/registry.ts';
import { apiVersionOf, type ResourceDef } from '../../registry/types.ts';
import { camel, gvName, gvTag, type Json, META, ref } from './names.ts';
import { SCALE } from './schemas.ts';

export interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

export interface Op {
  path: string;
  method: 'get' | 'put' | 'post' | 'delete' | 'patch' | 'options' | 'head';
  operationId: string;
  description: string;
  tag: string;
  consumes?: string[];
  produces: string[];
  params: Param[];
  body?: { schema: Json; required: boolean; description: string };
  responses: Record<string, { description: string; schema?: Json }>;
  action?: string;
  gvk?: { group: string; version: string; kind: string };
  /** Which `/openapi/v3` document the operation belongs to (`api/v1`, `apis/apps/v1`, `api`, ...). */
  doc: string;
}

const P = {
  namespace: {
    name: 'namespace',
    in: 'path',
    type: 'string',
    required: true,
    description: 'object name and auth scope, such as for teams and projects',
  },
  name: (kind: string): Param => ({
    name: 'name',
    in: 'path',
    type: 'string',
    required: true,
    description: `name of the ${kind}`,
  }),
  allowWatchBookmarks: {
    name: 'allowWatchBookmarks',
    in: 'query',
    type: 'boolean',
    description:
      'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag.',
  },
  continue: {
    name: 'continue',
    in: 'query',
    type: 'string',
    description:
      'The continue option should be set when retrieving more results from the server. Its value is the metadata.continue of the previous page of the same list; a token that has expired yields 410 Gone.',
  },
  fieldSelector: {
    name: 'fieldSelector',
    in: 'query',
    type: 'string',
    description:
      'A selector to restrict the list of returned objects by their fields. Defaults to everything.',
  },
  labelSelector: {
    name: 'labelSelector',
    in: 'query',
    type: 'string',
    description:
      'A selector to restrict the list of returned objects by their labels. Defaults to everything.',
  },
  limit: {
    name: 'limit',
    in: 'query',
    type: 'integer',
    description:
      'limit is a maximum number of responses to return for a list call. If more items exist, the server sets the continue field on the list metadata.',
  },
  resourceVersion: {
    name: 'resourceVersion',
    in: 'query',
    type: 'string',
    description:
      'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.',
  },
  resourceVersionMatch: {
    name: 'resourceVersionMatch',
    in: 'query',
    type: 'string',
    description:
      'resourceVersionMatch determines how resourceVersion is applied to list calls (NotOlderThan or Exact).',
  },
  sendInitialEvents: {
    name: 'sendInitialEvents',
    in: 'query',
    type: 'boolean',
    description:
      'sendInitialEvents=true may be set together with watch=true: the stream begins with synthetic events for the current state, then a bookmark marking their end (feature gate WatchList).',
  },
  timeoutSeconds: {
    name: 'timeoutSeconds',
    in: 'query',
    type: 'integer',
    description:
      'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.',
  },
  watch: {
    name: 'watch',
    in: 'query',
    type: 'boolean',
    description:
      'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.',
  },
  dryRun: {
    name: 'dryRun',
    in: 'query',
    type: 'string',
    description:
      'When present, indicates that modifications should not be persisted. The only valid value is All.',
  },
  fieldManager: {
    name: 'fieldManager',
    in: 'query',
    type: 'string',
    description: 'fieldManager is a name associated with the actor or entity that is making these changes.',
  },
  fieldValidation: {
    name: 'fieldValidation',
    in: 'query',
    type: 'string',
    description:
      'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict.',
  },
  gracePeriodSeconds: {
    name: 'gracePeriodSeconds',
    in: 'query',
    type: 'integer',
    description:
      'The duration in seconds before the object should be deleted. Zero means delete immediately.',
  },
  propagationPolicy: {
    name: 'propagationPolicy',
    in: 'query',
    type: 'string',
    description:
      "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  },
} satisfies Record<string, Param | ((k: string) => Param)>;

const LIST_PARAMS: Param[] = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS: Param[] = [P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE_PARAMS: Param[] = [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy];

export const JSON_T = 'application/json';
const YAML_T = 'application/yaml';
const PB_T = 'application/vnd.orch.protobuf';
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

export function resourceOps(def: ResourceDef, version: string, kindDef: string, listDef: string): Op[] {
  const ops: Op[] = [];
  const { group, kind, plural } = def;
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const doc = base.slice(1);
  const gv = gvName(group, version);
  const tag = gvTag(group, version);
  const gvk = { group, version, kind };
  const ns = def.namespaced;
  const scope = ns ? 'Namespaced' : '';
  const coll = ns ? `${base}/namespaces/{namespace}/${plural}` : `${base}/${plural}`;
  const item = `${coll}/{name}`;
  const scopeParams: Param[] = ns ? [P.namespace] : [];
  const itemParams = [P.name(kind), ...scopeParams];
  const pb = !def.custom && hasProtobuf(apiVersionOf(group, version), kind);
  const produces = [JSON_T, YAML_T, ...(pb ? [PB_T] : [])];
  const listProduces = [...produces, `${JSON_T};stream=watch`, ...(pb ? [`${PB_T};stream=watch`] : [])];
  const watchProduces = [JSON_T, `${JSON_T};stream=watch`, ...(pb ? [PB_T, `${PB_T};stream=watch`] : [])];
  const consumes = [JSON_T, YAML_T, ...(pb ? [PB_T] : [])];
  const patchConsumes = def.custom ? PATCH_TYPES.filter((t) => !t.includes('strategic')) : PATCH_TYPES;
  const verbs = new Set(def.verbs);
  const unauthorized = { '401': { description: 'Unauthorized' } };
  const ok = (schema: Json, extra: Record<string, { description: string; schema?: Json }> = {}) => ({
    '200': { description: 'OK', schema },
    ...extra,
    ...unauthorized,
  });
  const add = (o: Omit<Op, 'tag' | 'doc' | 'gvk'> & { gvk?: Op['gvk'] }) => ops.push({ tag, doc, gvk, ...o });
  const deleted = def.strategy.returnDeletedObject ? ref(kindDef) : ref(`${META}.Status`);

  if (verbs.has('list'))
    add({
      path: coll,
      method: 'get',
      operationId: `list${gv}${scope}${kind}`,
      description: `list or watch objects of kind ${kind}`,
      produces: listProduces,
      params: [...scopeParams, ...LIST_PARAMS],
      responses: ok(ref(listDef)),
      action: 'list',
    });
  if (verbs.has('create'))
    add({
      path: coll,
      method: 'post',
      operationId: `create${gv}${scope}${kind}`,
      description: `create a ${kind}`,
      consumes,
      produces,
      params: [...scopeParams, ...WRITE_PARAMS],
      body: { schema: ref(kindDef), required: true, description: `the ${kind} to create` },
      responses: ok(ref(kindDef), {
        '201': { description: 'Created', schema: ref(kindDef) },
        '202': { description: 'Accepted', schema: ref(kindDef) },
      }),
      action: 'post',
    });
  if (verbs.has('deletecollection'))
    add({
      path: coll,
      method: 'delete',
      operationId: `deleteCollection${gv}${scope}${kind}`,
      description: `delete collection of ${kind}: answers with the list of the objects deleted or marked for deletion`,
      consumes,
      produces,
      params: [
        ...scopeParams,
        ...LIST_PARAMS.filter((p) => !['watch', 'allowWatchBookmarks'].includes(p.name)),
        ...DELETE_PARAMS,
      ],
      body: { schema: ref(`${META}.DeleteOptions`), required: false, description: 'options of the deletion' },
      responses: ok(ref(listDef)),
      action: 'deletecollection',
    });
  if (verbs.has('get'))
    add({
      path: item,
      method: 'get',
      operationId: `read${gv}${scope}${kind}`,
      description: `read the specified ${kind}`,
      produces,
      params: [...itemParams, P.resourceVersion],
      responses: ok(ref(kindDef)),
      action: 'get',
    });
  if (verbs.has('update'))
    add({
      path: item,
      method: 'put',
      operationId: `replace${gv}${scope}${kind}`,
      description: `replace the specified ${kind}`,
      consumes,
      produces,
      params: [...itemParams, ...WRITE_PARAMS],
      body: { schema: ref(kindDef), required: true, description: `the new state of the ${kind}` },
      responses: ok(ref(kindDef), { '201': { description: 'Created', schema: ref(kindDef) } }),
      action: 'put',
    });
  if (verbs.has('patch'))
    add({
      path: item,
      method: 'patch',
      operationId: `patch${gv}${scope}${kind}`,
      description: `partially update the specified ${kind}`,
      consumes: patchConsumes,
      produces,
      params: [...itemParams, ...WRITE_PARAMS],
      body: { schema: ref(`${META}.Patch`), required: true, description: 'the patch' },
      responses: ok(ref(kindDef)),
      action: 'patch',
    });
  if (verbs.has('delete'))
    add({
      path: item,
      method: 'delete',
      operationId: `delete${gv}${scope}${kind}`,
      description: `delete a ${kind}: a Status when it is gone at once, the object while its deletion is pending (finalizers)`,
      consumes,
      produces,
      params: [...itemParams, ...DELETE_PARAMS],
      body: { schema: ref(`${META}.DeleteOptions`), required: false, description: 'options of the deletion' },
      responses: ok(deleted, { '202': { description: 'Accepted', schema: ref(kindDef) } }),
      action: 'delete',
    });
  if (verbs.has('list') && ns)
    add({
      path: `${base}/${plural}`,
      method: 'get',
      operationId: `list${gv}${kind}ForAllNamespaces`,
      description: `list or watch objects of kind ${kind} in all namespaces`,
      produces: listProduces,
      params: LIST_PARAMS,
      responses: ok(ref(listDef)),
      action: 'list',
    });
  if (verbs.has('watch')) {
    const watchBase = ns ? `${base}/watch/namespaces/{namespace}/${plural}` : `${base}/watch/${plural}`;
    const watchParams = LIST_PARAMS.filter((p) => p.name !== 'watch');
    add({
      path: watchBase,
      method: 'get',
      operationId: `watch${gv}${scope}${kind}List`,
      description: `deprecated: watch individual changes to a list of ${kind}; use the 'watch' parameter with a list operation instead`,
      produces: watchProduces,
      params: [...scopeParams, ...watchParams],
      responses: ok(ref(`${META}.WatchEvent`)),
      action: 'watchlist',
    });
    add({
      path: `${watchBase}/{name}`,
      method: 'get',
      operationId: `watch${gv}${scope}${kind}`,
      description: `deprecated: watch changes to an object of kind ${kind}; use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter`,
      produces: watchProduces,
      params: [...itemParams, ...watchParams],
      responses: ok(ref(`${META}.WatchEvent`)),
      action: 'watch',
    });
    if (ns)
      add({
        path: `${base}/watch/${plural}`,
        method: 'get',
        operationId: `watch${gv}${kind}ListForAllNamespaces`,
        description: `deprecated: watch individual changes to a list of ${kind} in all namespaces; use the 'watch' parameter with a list operation instead`,
        produces: watchProduces,
        params: watchParams,
        responses: ok(ref(`${META}.WatchEvent`)),
        action: 'watchlist',
      });
  }
  for (const sub of def.subresources) {
    const path = `${item}/${sub}`;
    const Sub = camel(sub);
    if (SUBRESOURCES[sub]?.connect) {
      ops.push(...connectOps({ sub, path, Sub, kind, gv, scope, itemParams, tag, doc, gvk, ok }));
      continue;
    }
    // the scale subresource takes and answers autoscaling/v1 Scale (its kind, in the table of subresources)
    const subDef = SUBRESOURCES[sub]?.kind?.kind === 'Scale' ? SCALE : kindDef;
    for (const verb of subresourceVerbs(sub)) {
      if (verb === 'get')
        add({
          path,
          method: 'get',
          operationId: `read${gv}${scope}${kind}${Sub}`,
          description: `read ${sub} of the specified ${kind}`,
          produces,
          params: itemParams,
          responses: ok(ref(subDef)),
          action: 'get',
        });
      else if (verb === 'update')
        add({
          path,
          method: 'put',
          operationId: `replace${gv}${scope}${kind}${Sub}`,
          description: `replace ${sub} of the specified ${kind}`,
          consumes,
          produces,
          params: [...itemParams, ...WRITE_PARAMS],
          body: {
            schema: ref(subDef),
            required: true,
            description: `the ${subDef === SCALE ? 'Scale' : kind}`,
          },
          responses: ok(ref(subDef), { '201': { description: 'Created', schema: ref(subDef) } }),
          action: 'put',
        });
      else if (verb === 'patch')
        add({
          path,
          method: 'patch',
          operationId: `patch${gv}${scope}${kind}${Sub}`,
          description: `partially update ${sub} of the specified ${kind}`,
          consumes: patchConsumes,
          produces,
          params: [...itemParams, ...WRITE_PARAMS],
          body: { schema: ref(`${META}.Patch`), required: true, description: 'the patch' },
          responses: ok(ref(subDef)),
          action: 'patch',
        });
      else if (verb === 'create')
        add({
          path,
          method: 'post',
          operationId: `create${gv}${scope}${kind}${Sub}`,
          description: `create ${sub} of a ${kind}`,
          consumes,
          produces,
          params: [...itemParams, P.dryRun, P.fieldManager],
          body: {
            schema: { type: 'object', description: `the ${sub} request object` },
            required: true,
            description: `the ${sub}`,
          },
          responses: ok(ref(`${META}.Status`), {
            '201': { description: 'Created', schema: ref(`${META}.Status`) },
          }),
          action: 'post',
        });
    }
  }
  return ops;
}

/** The query options of each connect subresource, as 1.28's OpenAPI lists them. */
const CONNECT_PARAMS: Record<string, [string, Param['type']][]> = {
  log: [
    ['container', 'string'],
    ['follow', 'boolean'],
    ['insecureSkipTLSVerifyBackend', 'boolean'],
    ['limitBytes', 'integer'],
    ['pretty', 'string'],
    ['previous', 'boolean'],
    ['sinceSeconds', 'integer'],
    ['tailLines', 'integer'],
    ['timestamps', 'boolean'],
  ],
  exec: [
    ['command', 'string'],
    ['container', 'string'],
    ['stderr', 'boolean'],
    ['stdin', 'boolean'],
    ['stdout', 'boolean'],
    ['tty', 'boolean'],
  ],
  attach: [
    ['container', 'string'],
    ['stderr', 'boolean'],
    ['stdin', 'boolean'],
    ['stdout', 'boolean'],
    ['tty', 'boolean'],
  ],
  portforward: [['ports', 'integer']],
  proxy: [['path', 'string']],
};

const PROXY_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/**
 * The operations of a connect subresource, named as 1.28 names them: `connect<GV><Method><Scope><Kind><Sub>`
 * for each method it serves (the proxies: every method, also with a `{path}`), `read...Log` for logs.
 */
function connectOps(c: {
  sub: string;
  path: string;
  Sub: string;
  kind: string;
  gv: string;
  scope: string;
  itemParams: Param[];
  tag: string;
  doc: string;
  gvk: Op['gvk'];
  ok: (schema: Json) => Op['responses'];
}): Op[] {
  const query: Param[] = (CONNECT_PARAMS[c.sub] ?? []).map(([name, type]) => ({
    name,
    in: 'query',
    type,
    description: `the ${name} option of the ${c.sub} request`,
  }));
  const base = { tag: c.tag, doc: c.doc, gvk: c.gvk, produces: ['*/*'], responses: c.ok({ type: 'string' }) };
  if (c.sub === 'log')
    return [
      {
        ...base,
        path: c.path,
        method: 'get',
        operationId: `read${c.gv}${c.scope}${c.kind}Log`,
        description: `read log of the specified ${c.kind}`,
        produces: [
          'text/plain',
          'application/json',
          'application/yaml',
          'application/vnd.kubernetes.protobuf',
        ],
        params: [...c.itemParams, ...query],
        action: 'get',
      },
    ];
  const methods: readonly Op['method'][] =
    c.sub === 'proxy' ? PROXY_METHODS : subresourceVerbs(c.sub).map((v) => (v === 'create' ? 'post' : 'get'));
  const out: Op[] = [];
  const withPath = c.sub === 'proxy' ? ['', '/{path}'] : [''];
  for (const suffix of withPath)
    for (const m of methods) {
      const M = m[0]!.toUpperCase() + m.slice(1);
      out.push({
        ...base,
        path: `${c.path}${suffix}`,
        method: m,
        operationId: `connect${c.gv}${M}${c.scope}${c.kind}${c.Sub}${suffix ? 'WithPath' : ''}`,
        description: `connect ${m.toUpperCase()} requests to ${c.sub} of ${c.kind}`,
        params: [
          ...c.itemParams,
          ...(suffix
            ? [
                {
                  name: 'path',
                  in: 'path',
                  type: 'string',
                  required: true,
                  description: 'path to the resource',
                } as Param,
              ]
            : []),
          ...query,
        ],
        action: 'connect',
      });
    }
  return out;
}

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
