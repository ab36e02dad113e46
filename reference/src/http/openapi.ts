// The OpenAPI documents: `/openapi/v2` (one Swagger 2.0 document, as JSON or in the
// gnostic Protobuf form clients ask for) and `/openapi/v3` (an index of one OpenAPI 3.0
// document per group version, served at content-addressed URLs). Both are generated from
// the registry: every served resource's paths, operations, parameters and the structural
// schema of its kind, so they change when custom resources come and go.
//
// Extensions use the orch names (`x-orch-group-version-kind`, `x-orch-action`,
// `x-orch-list-type`, ...), as the spec renames them. Kubernetes clients that look for the
// `x-kubernetes-` names find no kind in these documents: kubectl then skips its client-side
// schema check (the server validates, `fieldValidation`) and computes strategic merge
// patches from its compiled-in types; `kubectl explain` finds no schema.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import protobuf from 'protobufjs';
import { parseAccept } from '../content/negotiate.ts';
import { hasProtobuf } from '../content/protobuf.ts';
import { errors } from '../errors/status.ts';
import type { Registry } from '../registry/registry.ts';
import { apiVersionOf, type ResourceDef } from '../registry/types.ts';
import { objectMeta } from '../schema/meta.ts';
import type { Schema } from '../schema/types.ts';
import type { NonResourceRoute } from './server.ts';

/** What clients ask for; `@` is not a valid media type character, so replies use the dotted form. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** The form replies carry (Go's mime parser rejects the `@` one), also accepted in `Accept`. */
export const OPENAPI_V2_PROTOBUF_REPLY = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Json = Record<string, unknown>;

const META = 'io.orch.apimachinery.pkg.apis.meta.v1';
const REF = '#/definitions/';
const ref = (name: string): Json => ({ $ref: REF + name });

// ------------------------------------------------------------------ the model

interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

interface Op {
  path: string;
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
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

const JSON_T = 'application/json';
const YAML_T = 'application/yaml';
const PB_T = 'application/vnd.orch.protobuf';
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

// --------------------------------------------------------------- naming

function camel(s: string): string {
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
function gvName(group: string, version: string): string {
  return groupName(group) + camel(version);
}

/** `core_v1`, `apps_v1`, `rbacAuthorization_v1`; `apps` for the group alone. */
function gvTag(group: string, version: string): string {
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

// ---------------------------------------------------------------- schemas

/** A registry schema as an OpenAPI schema (internal markers dropped). */
function convertSchema(s: Schema): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined || k === 'x-proto' || k === 'x-proto-message') continue;
    if (k === 'properties') {
      const props: Json = {};
      for (const [name, sub] of Object.entries(v as Record<string, Schema>)) {
        // ObjectMeta is shared: refer to its definition, as Kubernetes does
        props[name] =
          name === 'metadata' && sub === objectMeta ? ref(`${META}.ObjectMeta`) : convertSchema(sub);
      }
      out.properties = props;
    } else if (k === 'items') out.items = convertSchema(v as Schema);
    else if (k === 'additionalProperties')
      out.additionalProperties = typeof v === 'boolean' ? v : convertSchema(v as Schema);
    else out[k] = structuredClone(v);
  }
  return out;
}

const str = (description: string, extra: Json = {}): Json => ({ type: 'string', description, ...extra });
const int = (description: string, format = 'int64'): Json => ({ type: 'integer', format, description });
const gvkExt = (group: string, version: string, kind: string) => ({
  'x-orch-group-version-kind': [{ group, kind, version }],
});
const TYPE_META = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
};

/** Definitions every document shares (the meta types). */
function commonDefinitions(): Record<string, Json> {
  const d: Record<string, Json> = {};
  d[`${META}.ObjectMeta`] = {
    ...convertSchema(objectMeta),
    description: 'ObjectMeta is metadata that all persisted resources must have.',
  };
  d[`${META}.ListMeta`] = {
    description: 'ListMeta describes metadata that synthetic resources must have, including lists.',
    type: 'object',
    properties: {
      continue: str(
        'continue may be set if the user set a limit on the number of items returned; it is the token for the next page.',
      ),
      remainingItemCount: int(
        'remainingItemCount is the number of subsequent items in the list which are not included in this list response.',
      ),
      resourceVersion: str("String that identifies the server's internal version of this object."),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated.'),
    },
  };
  d[`${META}.StatusCause`] = {
    description: 'StatusCause provides more information about an api.Status failure.',
    type: 'object',
    properties: {
      field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
      message: str('A human-readable description of the cause of the error.'),
      reason: str('A machine-readable description of the cause of the error.'),
    },
  };
  d[`${META}.StatusDetails`] = {
    description:
      'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    type: 'object',
    properties: {
      causes: {
        type: 'array',
        items: ref(`${META}.StatusCause`),
        description: 'The Causes array includes more details associated with the StatusReason failure.',
      },
      group: str('The group attribute of the resource associated with the status StatusReason.'),
      kind: str('The kind attribute of the resource associated with the status StatusReason.'),
      name: str('The name attribute of the resource associated with the status StatusReason.'),
      retryAfterSeconds: int(
        'If specified, the time in seconds before the operation should be retried.',
        'int32',
      ),
      uid: str('UID of the resource.'),
    },
  };
  d[`${META}.Status`] = {
    description: 'Status is a return value for calls that do not return other objects.',
    type: 'object',
    properties: {
      ...TYPE_META,
      code: int('Suggested HTTP return code for this status, 0 if not set.', 'int32'),
      details: ref(`${META}.StatusDetails`),
      message: str('A human-readable description of the status of this operation.'),
      metadata: ref(`${META}.ListMeta`),
      reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
      status: str('Status of the operation. One of: "Success" or "Failure".'),
    },
    ...gvkExt('', 'v1', 'Status'),
  };
  d[`${META}.Preconditions`] = {
    description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    type: 'object',
    properties: {
      resourceVersion: str('Specifies the target ResourceVersion'),
      uid: str('Specifies the target UID.'),
    },
  };
  d[`${META}.DeleteOptions`] = {
    description: 'DeleteOptions may be provided when deleting an API object.',
    type: 'object',
    properties: {
      ...TYPE_META,
      dryRun: {
        type: 'array',
        items: { type: 'string' },
        description: 'When present, indicates that modifications should not be persisted.',
      },
      gracePeriodSeconds: int('The duration in seconds before the object should be deleted.'),
      preconditions: ref(`${META}.Preconditions`),
      propagationPolicy: str('Whether and how garbage collection will be performed.'),
    },
    ...gvkExt('', 'v1', 'DeleteOptions'),
  };
  d[`${META}.WatchEvent`] = {
    description: 'Event represents a single event to a watched resource.',
    type: 'object',
    required: ['type', 'object'],
    properties: {
      object: ref('io.orch.apimachinery.pkg.runtime.RawExtension'),
      type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR'),
    },
    ...gvkExt('', 'v1', 'WatchEvent'),
  };
  d['io.orch.apimachinery.pkg.runtime.RawExtension'] = {
    description:
      'RawExtension holds a complete object: for a watch event, the object that changed (or a Status for ERROR).',
    type: 'object',
  };
  d[`${META}.Patch`] = {
    description:
      'Patch is the body of a PATCH request: a JSON patch, a merge patch or a strategic merge patch.',
    type: 'object',
  };
  // discovery documents
  d[`${META}.GroupVersionForDiscovery`] = {
    description: 'GroupVersion contains the "group/version" and "version" string of a version.',
    type: 'object',
    required: ['groupVersion', 'version'],
    properties: {
      groupVersion: str('groupVersion specifies the API group and version in the form "group/version"'),
      version: str('version specifies the version in the form of "version".'),
    },
  };
  d[`${META}.ServerAddressByClientCIDR`] = {
    description:
      'ServerAddressByClientCIDR helps the client to determine the server address that they should use.',
    type: 'object',
    required: ['clientCIDR', 'serverAddress'],
    properties: {
      clientCIDR: str('The CIDR with which clients can match their IP.'),
      serverAddress: str('Address of this server.'),
    },
  };
  d[`${META}.APIGroup`] = {
    description: 'APIGroup contains the name, the supported versions, and the preferred version of a group.',
    type: 'object',
    required: ['name', 'versions'],
    properties: {
      ...TYPE_META,
      name: str('name is the name of the group.'),
      preferredVersion: ref(`${META}.GroupVersionForDiscovery`),
      serverAddressByClientCIDRs: {
        type: 'array',
        items: ref(`${META}.ServerAddressByClientCIDR`),
        description: 'a map of client CIDR to server address.',
      },
      versions: {
        type: 'array',
        items: ref(`${META}.GroupVersionForDiscovery`),
        description: 'versions are the versions supported in this group.',
      },
    },
    ...gvkExt('', 'v1', 'APIGroup'),
  };
  d[`${META}.APIGroupList`] = {
    description: 'APIGroupList is a list of APIGroup, to allow clients to discover the API at /apis.',
    type: 'object',
    required: ['groups'],
    properties: {
      ...TYPE_META,
      groups: { type: 'array', items: ref(`${META}.APIGroup`), description: 'groups is a list of APIGroup.' },
    },
    ...gvkExt('', 'v1', 'APIGroupList'),
  };
  d[`${META}.APIVersions`] = {
    description:
      'APIVersions lists the versions that are available, to allow clients to discover the API at /api.',
    type: 'object',
    required: ['versions', 'serverAddressByClientCIDRs'],
    properties: {
      ...TYPE_META,
      serverAddressByClientCIDRs: {
        type: 'array',
        items: ref(`${META}.ServerAddressByClientCIDR`),
        description: 'a map of client CIDR to server address.',
      },
      versions: {
        type: 'array',
        items: { type: 'string' },
        description: 'versions are the api versions that are available.',
      },
    },
    ...gvkExt('', 'v1', 'APIVersions'),
  };
  d[`${META}.APIResource`] = {
    description: 'APIResource specifies the name of a resource and whether it is namespaced.',
    type: 'object',
    required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
    properties: {
      categories: {
        type: 'array',
        items: { type: 'string' },
        description: 'categories is a list of the grouped resources this resource belongs to.',
      },
      group: str('group is the preferred group of the resource.'),
      kind: str("kind is the kind for the resource (e.g. 'Foo' is the kind for a resource 'foo')"),
      name: str('name is the plural name of the resource.'),
      namespaced: {
        type: 'boolean',
        description: 'namespaced indicates if a resource is namespaced or not.',
      },
      shortNames: {
        type: 'array',
        items: { type: 'string' },
        description: 'shortNames is a list of suggested short names of the resource.',
      },
      singularName: str('singularName is the singular name of the resource.'),
      storageVersionHash: str('The hash value of the storage version.'),
      verbs: {
        type: 'array',
        items: { type: 'string' },
        description: 'verbs is a list of supported kube verbs.',
      },
      version: str('version is the preferred version of the resource.'),
    },
  };
  d[`${META}.APIResourceList`] = {
    description:
      'APIResourceList is a list of APIResource, it is used to expose the name of the resources supported in a specific group and version, and if the resource is namespaced.',
    type: 'object',
    required: ['groupVersion', 'resources'],
    properties: {
      ...TYPE_META,
      groupVersion: str('groupVersion is the group and version this APIResourceList is for.'),
      resources: {
        type: 'array',
        items: ref(`${META}.APIResource`),
        description: 'resources contains the name of the resources and if they are namespaced.',
      },
    },
    ...gvkExt('', 'v1', 'APIResourceList'),
  };
  d['io.orch.apimachinery.pkg.version.Info'] = {
    description: 'Info contains versioning information.',
    type: 'object',
    required: [
      'major',
      'minor',
      'gitVersion',
      'gitCommit',
      'gitTreeState',
      'buildDate',
      'goVersion',
      'compiler',
      'platform',
    ],
    properties: Object.fromEntries(
      [
        'buildDate',
        'compiler',
        'gitCommit',
        'gitTreeState',
        'gitVersion',
        'goVersion',
        'major',
        'minor',
        'platform',
      ].map((k) => [k, { type: 'string' }]),
    ),
  };
  return d;
}

const SCALE = 'io.orch.api.autoscaling.v1.Scale';

function scaleDefinitions(): Record<string, Json> {
  return {
    [SCALE]: {
      description: 'Scale represents a scaling request for a resource.',
      type: 'object',
      properties: {
        ...TYPE_META,
        metadata: ref(`${META}.ObjectMeta`),
        spec: {
          type: 'object',
          properties: {
            replicas: int('replicas is the desired number of instances for the scaled object.', 'int32'),
          },
        },
        status: {
          type: 'object',
          required: ['replicas'],
          properties: {
            replicas: int(
              'replicas is the actual number of observed instances of the scaled object.',
              'int32',
            ),
            selector: str(
              'selector is the label query over pods that should match the replicas count, in string form.',
            ),
          },
        },
      },
      ...gvkExt('autoscaling', 'v1', 'Scale'),
    },
  };
}

// -------------------------------------------------------------- the build

interface Built {
  ops: Op[];
  definitions: Record<string, Json>;
}

/** The subresource verbs, as discovery lists them. */
function subresourceVerbs(sub: string): string[] {
  if (sub === 'eviction') return ['create'];
  if (sub === 'finalize') return ['update'];
  return ['get', 'patch', 'update'];
}

function resourceOps(def: ResourceDef, version: string, kindDef: string, listDef: string): Op[] {
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
    // the scale subresource takes and answers autoscaling/v1 Scale
    const subDef = sub === 'scale' ? SCALE : kindDef;
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
            description: `the ${sub === 'scale' ? 'Scale' : kind}`,
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

function discoveryOps(registry: Registry): Op[] {
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

function buildModel(registry: Registry): Built {
  const definitions = commonDefinitions();
  const ops = discoveryOps(registry);
  for (const { def } of registry.all()) {
    for (const version of def.versions) {
      if (!registry.lookup(def.group, version, def.plural)) continue;
      const prefix = definitionPrefix(def.group, version);
      const kindDef = `${prefix}.${def.kind}`;
      const listDef = `${prefix}.${def.listKind}`;
      const own = def.schemas?.[version] ?? def.schema;
      const schema: Json = own
        ? convertSchema(own)
        : {
            type: 'object',
            properties: { ...TYPE_META, metadata: ref(`${META}.ObjectMeta`) },
            'x-orch-preserve-unknown-fields': true,
          };
      definitions[kindDef] = { ...schema, ...gvkExt(def.group, version, def.kind) };
      definitions[listDef] = {
        description: `${def.listKind} is a list of ${def.kind} objects.`,
        type: 'object',
        required: ['items'],
        properties: {
          ...TYPE_META,
          items: { type: 'array', items: ref(kindDef), description: `List of ${def.plural}.` },
          metadata: ref(`${META}.ListMeta`),
        },
        ...gvkExt(def.group, version, def.listKind),
      };
      ops.push(...resourceOps(def, version, kindDef, listDef));
      if (def.subresources.includes('scale')) Object.assign(definitions, scaleDefinitions());
    }
  }
  return { ops, definitions };
}

// ------------------------------------------------------------- v2 and v3

function sortedObject<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Removes what OpenAPI 2.0 cannot say (nullable) from a schema. */
function schemaV2(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'nullable') continue;
    if (k === 'properties')
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, Json>).map(([n, x]) => [n, schemaV2(x)]),
      );
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object'))
      out[k] = schemaV2(v as Json);
    else out[k] = v;
  }
  return out;
}

/** Rewrites `#/definitions/` references to `#/components/schemas/`. */
function schemaV3(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref') out[k] = String(v).replace(REF, '#/components/schemas/');
    else if (k === 'properties')
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, Json>).map(([n, x]) => [n, schemaV3(x)]),
      );
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object'))
      out[k] = schemaV3(v as Json);
    else out[k] = v;
  }
  // a reference with siblings is not a reference in OpenAPI 3.0: wrap it
  if (out.$ref && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

function opExtensions(o: Op): Json {
  const x: Json = {};
  if (o.action) x['x-orch-action'] = o.action;
  if (o.gvk) x['x-orch-group-version-kind'] = o.gvk;
  return x;
}

export function openapiV2(b: Built, title: string, version: string): Json {
  const paths = new Map<string, Json>();
  for (const o of b.ops) {
    const item = paths.get(o.path) ?? {};
    const params: Json[] = o.params.map((p) => {
      const q: Json = { name: p.name, in: p.in, type: p.type, description: p.description, uniqueItems: true };
      if (p.required) q.required = true;
      return q;
    });
    if (o.body)
      params.unshift({
        name: 'body',
        in: 'body',
        required: o.body.required,
        description: o.body.description,
        schema: o.body.schema,
      });
    const op: Json = { description: o.description, operationId: o.operationId, tags: [o.tag] };
    if (o.consumes) op.consumes = o.consumes;
    op.produces = o.produces;
    op.parameters = params;
    op.responses = Object.fromEntries(
      Object.entries(o.responses).map(([code, r]) => [
        code,
        r.schema ? { description: r.description, schema: r.schema } : { description: r.description },
      ]),
    );
    Object.assign(op, opExtensions(o));
    item[o.method] = op;
    paths.set(o.path, item);
  }
  return {
    swagger: '2.0',
    info: { title, version },
    paths: sortedObject([...paths]),
    definitions: sortedObject(Object.entries(b.definitions).map(([k, v]) => [k, schemaV2(v)])),
    securityDefinitions: {
      BearerToken: {
        type: 'apiKey',
        name: 'authorization',
        in: 'header',
        description: 'Bearer Token authentication',
      },
    },
    security: [{ BearerToken: [] }],
  };
}

function collectRefs(x: unknown, into: Set<string>): void {
  if (Array.isArray(x)) for (const e of x) collectRefs(e, into);
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF)) into.add(v.slice(REF.length));
      else collectRefs(v, into);
    }
}

/** One OpenAPI 3.0 document: the operations of one group version (or discovery path) and what they use. */
export function openapiV3Doc(b: Built, doc: string, title: string, version: string): Json | undefined {
  const ops = b.ops.filter((o) => o.doc === doc);
  if (!ops.length) return undefined;
  const paths = new Map<string, Json>();
  const used = new Set<string>();
  for (const o of ops) {
    collectRefs(o.body?.schema, used);
    for (const r of Object.values(o.responses)) collectRefs(r.schema, used);
    const item = paths.get(o.path) ?? {};
    const op: Json = { tags: [o.tag], description: o.description, operationId: o.operationId };
    op.parameters = o.params.map((p) => {
      const q: Json = {
        name: p.name,
        in: p.in,
        description: p.description,
        schema: { type: p.type, uniqueItems: true },
      };
      if (p.required) q.required = true;
      return q;
    });
    if (o.body)
      op.requestBody = {
        content: Object.fromEntries(
          (o.consumes ?? [JSON_T]).map((m) => [m, { schema: schemaV3(o.body!.schema) }]),
        ),
        required: o.body.required,
      };
    op.responses = Object.fromEntries(
      Object.entries(o.responses).map(([code, r]) => [
        code,
        r.schema
          ? {
              description: r.description,
              content: Object.fromEntries(o.produces.map((m) => [m, { schema: schemaV3(r.schema!) }])),
            }
          : { description: r.description },
      ]),
    );
    Object.assign(op, opExtensions(o));
    item[o.method] = op;
    paths.set(o.path, item);
  }
  // the definitions those operations reach
  const queue = [...used];
  while (queue.length) {
    const n = queue.pop()!;
    const found = new Set<string>();
    collectRefs(b.definitions[n], found);
    for (const f of found) {
      if (used.has(f)) continue;
      used.add(f);
      queue.push(f);
    }
  }
  const schemas = sortedObject(
    [...used].filter((n) => b.definitions[n]).map((n) => [n, schemaV3(b.definitions[n]!)]),
  );
  return {
    openapi: '3.0.0',
    info: { title, version },
    paths: sortedObject([...paths]),
    components: {
      schemas,
      securitySchemes: {
        BearerToken: {
          type: 'apiKey',
          description: 'Bearer Token authentication',
          name: 'authorization',
          in: 'header',
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

// ------------------------------------------------------- gnostic protobuf

// The messages of gnostic's OpenAPI v2 model (package openapi.v2) this encoder fills, with
// their field numbers; the rest of the model is never produced.
const GNOSTIC_PROTO = `
syntax = "proto3";
package openapi.v2;
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Any { string yaml = 2; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
}
message Info { string title = 1; string version = 2; string description = 3; }
message ItemsItem { repeated Schema schema = 1; }
message NamedAny { string name = 1; Any value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message NonBodyParameter { oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof oneof { Parameter parameter = 1; } }
message PathItem {
  Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5;
  Operation options = 6; Operation head = 7; Operation patch = 8;
}
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; bool unique_items = 19; }
message Paths { repeated NamedPathItem path = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; bool unique_items = 20; }
message Response { string description = 1; SchemaItem schema = 2; }
message ResponseValue { oneof oneof { Response response = 1; } }
message Responses { repeated NamedResponseValue response_code = 1; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10;
  int64 max_length = 11; int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15;
  bool unique_items = 16; int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19;
  repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; bool read_only = 27; Any example = 30;
  repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof oneof { Schema schema = 1; } }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityDefinitionsItem { oneof oneof { ApiKeySecurity api_key_security = 2; } }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message StringArray { repeated string value = 1; }
message TypeItem { repeated string value = 1; }
`;

let documentType: protobuf.Type | undefined;
function gnosticDocument(): protobuf.Type {
  documentType ??= protobuf.parse(GNOSTIC_PROTO, { keepCase: true }).root.lookupType('openapi.v2.Document');
  return documentType;
}

const anyOf = (v: unknown): Json => ({ yaml: JSON.stringify(v) });
const named = <T>(o: Record<string, T>, f: (v: T) => unknown): Json[] =>
  Object.entries(o).map(([name, v]) => ({ name, value: f(v) }));

const SCHEMA_SCALARS: Record<string, string> = {
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  required: 'required',
  readOnly: 'read_only',
};

function protoSchema(s: Json): Json {
  const out: Json = {};
  const ext: Json[] = [];
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref') out._ref = v;
    else if (k === 'type') out.type = { value: Array.isArray(v) ? v : [v] };
    else if (k === 'properties')
      out.properties = { additional_properties: named(v as Record<string, Json>, protoSchema) };
    else if (k === 'items') out.items = { schema: [protoSchema(v as Json)] };
    else if (k === 'additionalProperties')
      out.additional_properties =
        typeof v === 'boolean' ? { boolean: v } : { schema: protoSchema(v as Json) };
    else if (k === 'allOf') out.all_of = (v as Json[]).map(protoSchema);
    else if (k === 'default' || k === 'example') out[k] = anyOf(v);
    else if (k === 'enum') out.enum = (v as unknown[]).map(anyOf);
    else if (k.startsWith('x-')) ext.push({ name: k, value: anyOf(v) });
    else if (SCHEMA_SCALARS[k]) out[SCHEMA_SCALARS[k]!] = v;
  }
  if (ext.length) out.vendor_extension = ext;
  return out;
}

function protoOperation(op: Json): Json {
  const out: Json = {};
  const ext: Json[] = [];
  for (const [k, v] of Object.entries(op)) {
    if (k === 'operationId') out.operation_id = v;
    else if (k === 'parameters')
      out.parameters = (v as Json[]).map((p) => {
        if (p.in === 'body')
          return {
            parameter: {
              body_parameter: {
                description: p.description,
                name: p.name,
                in: p.in,
                required: p.required,
                schema: protoSchema(p.schema as Json),
              },
            },
          };
        const sub = {
          required: p.required ?? false,
          in: p.in,
          description: p.description,
          name: p.name,
          type: p.type,
          unique_items: p.uniqueItems ?? false,
        };
        return {
          parameter: {
            non_body_parameter:
              p.in === 'path' ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub },
          },
        };
      });
    else if (k === 'responses')
      out.responses = {
        response_code: named(v as Record<string, Json>, (r) => ({
          response: {
            description: r.description,
            ...(r.schema ? { schema: { schema: protoSchema(r.schema as Json) } } : {}),
          },
        })),
      };
    else if (k.startsWith('x-')) ext.push({ name: k, value: anyOf(v) });
    else out[k] = v; // tags, summary, description, produces, consumes, deprecated
  }
  if (ext.length) out.vendor_extension = ext;
  return out;
}

/** The Swagger 2.0 document in gnostic's Protobuf form (what kubectl's openapi client decodes). */
export function encodeOpenApiV2Protobuf(doc: Json): Buffer {
  const sec = doc.securityDefinitions as Record<string, Json> | undefined;
  const msg: Json = {
    swagger: doc.swagger,
    info: doc.info,
    paths: {
      path: named(doc.paths as Record<string, Record<string, Json>>, (item) =>
        Object.fromEntries(Object.entries(item).map(([m, op]) => [m, protoOperation(op)])),
      ),
    },
    definitions: { additional_properties: named(doc.definitions as Record<string, Json>, protoSchema) },
    security: ((doc.security as Record<string, string[]>[] | undefined) ?? []).map((r) => ({
      additional_properties: named(r, (v) => ({ value: v })),
    })),
    security_definitions: sec
      ? { additional_properties: named(sec, (d) => ({ api_key_security: d })) }
      : undefined,
  };
  const T = gnosticDocument();
  const problem = T.verify(msg);
  if (problem) throw new Error(`openapi v2 protobuf: ${problem}`);
  return Buffer.from(T.encode(T.fromObject(msg)).finish());
}

// ------------------------------------------------------------- serving

interface Cached {
  model: Built;
  v2?: { doc: Json; json: Buffer; pb?: Buffer; etag: string };
  v3?: Map<string, { body: Buffer; hash: string }>;
}

export interface OpenApiOptions {
  title?: string;
  /** The server's version (`info.version`). */
  version: string;
}

function etagOf(b: Buffer): string {
  return `"${createHash('sha512').update(b).digest('hex').toUpperCase()}"`;
}

/** The `/openapi/v2` and `/openapi/v3` routes (regenerated when the registry changes). */
export function openapiRoute(registry: Registry, o: OpenApiOptions): NonResourceRoute {
  const title = o.title ?? 'Orch';
  let cache: Cached | undefined;
  registry.changed(() => {
    cache = undefined;
  });
  const current = (): Cached => (cache ??= { model: buildModel(registry) });
  const v2 = () => {
    const c = current();
    if (!c.v2) {
      const doc = openapiV2(c.model, title, o.version);
      const json = Buffer.from(JSON.stringify(doc));
      c.v2 = { doc, json, etag: etagOf(json) };
    }
    return c.v2;
  };
  const v3 = () => {
    const c = current();
    if (!c.v3) {
      c.v3 = new Map();
      const docs = [...new Set(c.model.ops.map((x) => x.doc))].sort();
      for (const d of docs) {
        const doc = openapiV3Doc(c.model, d, title, o.version);
        if (!doc) continue;
        const body = Buffer.from(JSON.stringify(doc));
        c.v3.set(d, { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() });
      }
    }
    return c.v3;
  };

  return (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    const path = url.pathname;
    if (path !== '/openapi' && !path.startsWith('/openapi/')) return false;
    const method = req.method ?? 'GET';
    const p = path.replace(/\/+$/, '');
    if (p === '/openapi/v2') {
      checkMethod(method);
      const accept = pickV2(req.headers.accept);
      const doc = v2();
      let body = doc.json;
      let type = 'application/json';
      if (accept === 'protobuf') {
        body = doc.pb ??= encodeOpenApiV2Protobuf(doc.doc);
        type = OPENAPI_V2_PROTOBUF_REPLY;
      }
      const etag = accept === 'protobuf' ? `${doc.etag.slice(0, -1)}-pb"` : doc.etag;
      send(req, res, body, type, { ETag: etag, Vary: 'Accept', 'Cache-Control': 'no-cache, private' });
      return true;
    }
    if (p === '/openapi/v3') {
      checkMethod(method);
      pickJson(req.headers.accept);
      const paths: Json = {};
      for (const [d, e] of v3()) paths[d] = { serverRelativeURL: `/openapi/v3/${d}?hash=${e.hash}` };
      const body = Buffer.from(JSON.stringify({ paths }));
      send(req, res, body, 'application/json', { ETag: etagOf(body), 'Cache-Control': 'no-cache, private' });
      return true;
    }
    if (p.startsWith('/openapi/v3/')) {
      checkMethod(method);
      const d = p.slice('/openapi/v3/'.length);
      const e = v3().get(d);
      if (!e) throw errors.pathNotFound(path);
      pickJson(req.headers.accept);
      const hash = url.searchParams.get('hash');
      if (hash !== null && hash !== e.hash) {
        // an older document: send the client to the current one
        res.writeHead(301, {
          Location: `/openapi/v3/${d}?hash=${e.hash}`,
          'Cache-Control': 'no-cache, private',
          'Content-Length': 0,
        });
        res.end();
        return true;
      }
      const headers: Record<string, string> = { ETag: `"${e.hash}"` };
      if (hash !== null) {
        headers['Cache-Control'] = 'public, immutable';
        headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      } else headers['Cache-Control'] = 'no-cache, private';
      send(req, res, e.body, 'application/json', headers);
      return true;
    }
    throw errors.pathNotFound(path);
  };
}

function checkMethod(method: string): void {
  if (method !== 'GET' && method !== 'HEAD')
    throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
}

function pickV2(accept: string | undefined): 'json' | 'protobuf' {
  for (const r of parseAccept(accept)) {
    if (r.type === OPENAPI_V2_PROTOBUF || r.type === OPENAPI_V2_PROTOBUF_REPLY) return 'protobuf';
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return 'json';
  }
  throw errors.notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
}

function pickJson(accept: string | undefined): void {
  for (const r of parseAccept(accept))
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return;
  throw errors.notAcceptable(['application/json']);
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  type: string,
  headers: Record<string, string>,
): void {
  const inm = req.headers['if-none-match'];
  if (inm && headers.ETag && inm.split(',').some((t) => t.trim() === headers.ETag || t.trim() === '*')) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}
