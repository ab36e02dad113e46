// The schema definitions: registry schemas as OpenAPI schemas and the shared meta and Scale types.
import { objectMeta } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import { type Json, META, ref } from './names.ts';

/**
 * Keywords Kubernetes' Go schema type drops when empty (`omitempty`): an empty one is left out,
 * so that a published document reads back through those types as it was written.
 */
const DROPPED_EMPTY = new Set([
  'properties',
  'patternProperties',
  'required',
  'enum',
  'allOf',
  'anyOf',
  'oneOf',
]);
const isEmpty = (v: unknown) =>
  Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0;

/** A registry schema as an OpenAPI schema (internal markers dropped). */
export function convertSchema(s: Schema): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined || k === 'x-proto' || k === 'x-proto-message') continue;
    if (DROPPED_EMPTY.has(k) && isEmpty(v)) continue;
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
const arrayOf = (items: Json, description: string): Json => ({ type: 'array', items, description });
export const gvkExt = (group: string, version: string, kind: string) => ({
  'x-orch-group-version-kind': [{ group, kind, version }],
});
export const TYPE_META = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
};

/** What each ObjectMeta field is (what `explain` shows of it). */
const OBJECT_META_FIELDS: Record<string, string> = {
  name: 'Name must be unique within a namespace.',
  generateName:
    'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
  namespace: 'Namespace defines the space within which each name must be unique.',
  selfLink: 'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
  uid: 'UID is the unique in time and space value for this object.',
  resourceVersion: 'An opaque value that represents the internal version of this object.',
  generation: 'A sequence number representing a specific generation of the desired state.',
  creationTimestamp:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  deletionTimestamp: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
  deletionGracePeriodSeconds:
    'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.',
  labels: 'Map of string keys and values that can be used to organize and categorize objects.',
  annotations:
    'Annotations is an unstructured key value map stored with a resource that may be set by external tools.',
  ownerReferences: 'List of objects depended by this object.',
  finalizers: 'Must be empty before the object is deleted from the registry.',
  managedFields:
    'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
};

/** A schema whose properties get the descriptions given (those it has). */
function described(s: Json, descriptions: Record<string, string>): Json {
  const props = s.properties as Record<string, Json> | undefined;
  if (!props) return s;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(props))
    out[k] = descriptions[k] === undefined ? v : { description: descriptions[k], ...v };
  return { ...s, properties: out };
}

/** Definitions every document shares (the meta types). */
export function commonDefinitions(): Record<string, Json> {
  return {
    ...metaDefinitions(),
    ...requestDefinitions(),
    ...discoveryDefinitions(),
    ...resourceListDefinitions(),
  };
}

/** The meta types of objects, lists and replies: ObjectMeta, ListMeta, Status. */
function metaDefinitions(): Record<string, Json> {
  return {
    [`${META}.ObjectMeta`]: {
      ...described(convertSchema(objectMeta), OBJECT_META_FIELDS),
      description: 'ObjectMeta is metadata that all persisted resources must have.',
    },
    [`${META}.ListMeta`]: {
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
    },
    [`${META}.StatusCause`]: {
      description: 'StatusCause provides more information about an api.Status failure.',
      type: 'object',
      properties: {
        field: str(
          'The field of the resource that has caused this error, as named by its JSON serialization.',
        ),
        message: str('A human-readable description of the cause of the error.'),
        reason: str('A machine-readable description of the cause of the error.'),
      },
    },
    [`${META}.StatusDetails`]: {
      description:
        'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
      type: 'object',
      properties: {
        causes: arrayOf(
          ref(`${META}.StatusCause`),
          'The Causes array includes more details associated with the StatusReason failure.',
        ),
        group: str('The group attribute of the resource associated with the status StatusReason.'),
        kind: str('The kind attribute of the resource associated with the status StatusReason.'),
        name: str('The name attribute of the resource associated with the status StatusReason.'),
        retryAfterSeconds: int(
          'If specified, the time in seconds before the operation should be retried.',
          'int32',
        ),
        uid: str('UID of the resource.'),
      },
    },
    [`${META}.Status`]: {
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
    },
  };
}

/** The types of requests and watch events: DeleteOptions, Patch, WatchEvent. */
function requestDefinitions(): Record<string, Json> {
  return {
    [`${META}.Preconditions`]: {
      description:
        'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
      type: 'object',
      properties: {
        resourceVersion: str('Specifies the target ResourceVersion'),
        uid: str('Specifies the target UID.'),
      },
    },
    [`${META}.DeleteOptions`]: {
      description: 'DeleteOptions may be provided when deleting an API object.',
      type: 'object',
      properties: {
        ...TYPE_META,
        dryRun: arrayOf(
          { type: 'string' },
          'When present, indicates that modifications should not be persisted.',
        ),
        gracePeriodSeconds: int('The duration in seconds before the object should be deleted.'),
        preconditions: ref(`${META}.Preconditions`),
        propagationPolicy: str('Whether and how garbage collection will be performed.'),
      },
      ...gvkExt('', 'v1', 'DeleteOptions'),
    },
    [`${META}.WatchEvent`]: {
      description: 'Event represents a single event to a watched resource.',
      type: 'object',
      required: ['type', 'object'],
      properties: {
        object: ref('io.orch.apimachinery.pkg.runtime.RawExtension'),
        type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR'),
      },
      ...gvkExt('', 'v1', 'WatchEvent'),
    },
    ['io.orch.apimachinery.pkg.runtime.RawExtension']: {
      description:
        'RawExtension holds a complete object: for a watch event, the object that changed (or a Status for ERROR).',
      type: 'object',
    },
    [`${META}.Patch`]: {
      description:
        'Patch is the body of a PATCH request: a JSON patch, a merge patch or a strategic merge patch.',
      type: 'object',
    },
  };
}

/** The discovery documents of groups and versions. */
function discoveryDefinitions(): Record<string, Json> {
  return {
    [`${META}.GroupVersionForDiscovery`]: {
      description: 'GroupVersion contains the "group/version" and "version" string of a version.',
      type: 'object',
      required: ['groupVersion', 'version'],
      properties: {
        groupVersion: str('groupVersion specifies the API group and version in the form "group/version"'),
        version: str('version specifies the version in the form of "version".'),
      },
    },
    [`${META}.ServerAddressByClientCIDR`]: {
      description:
        'ServerAddressByClientCIDR helps the client to determine the server address that they should use.',
      type: 'object',
      required: ['clientCIDR', 'serverAddress'],
      properties: {
        clientCIDR: str('The CIDR with which clients can match their IP.'),
        serverAddress: str('Address of this server.'),
      },
    },
    [`${META}.APIGroup`]: {
      description:
        'APIGroup contains the name, the supported versions, and the preferred version of a group.',
      type: 'object',
      required: ['name', 'versions'],
      properties: {
        ...TYPE_META,
        name: str('name is the name of the group.'),
        preferredVersion: ref(`${META}.GroupVersionForDiscovery`),
        serverAddressByClientCIDRs: arrayOf(
          ref(`${META}.ServerAddressByClientCIDR`),
          'a map of client CIDR to server address.',
        ),
        versions: arrayOf(
          ref(`${META}.GroupVersionForDiscovery`),
          'versions are the versions supported in this group.',
        ),
      },
      ...gvkExt('', 'v1', 'APIGroup'),
    },
    [`${META}.APIGroupList`]: {
      description: 'APIGroupList is a list of APIGroup, to allow clients to discover the API at /apis.',
      type: 'object',
      required: ['groups'],
      properties: {
        ...TYPE_META,
        groups: arrayOf(ref(`${META}.APIGroup`), 'groups is a list of APIGroup.'),
      },
      ...gvkExt('', 'v1', 'APIGroupList'),
    },
    [`${META}.APIVersions`]: {
      description:
        'APIVersions lists the versions that are available, to allow clients to discover the API at /api.',
      type: 'object',
      required: ['versions', 'serverAddressByClientCIDRs'],
      properties: {
        ...TYPE_META,
        serverAddressByClientCIDRs: arrayOf(
          ref(`${META}.ServerAddressByClientCIDR`),
          'a map of client CIDR to server address.',
        ),
        versions: arrayOf({ type: 'string' }, 'versions are the api versions that are available.'),
      },
      ...gvkExt('', 'v1', 'APIVersions'),
    },
  };
}

/** The discovery documents of resources, and the version of the server. */
function resourceListDefinitions(): Record<string, Json> {
  return {
    [`${META}.APIResource`]: {
      description: 'APIResource specifies the name of a resource and whether it is namespaced.',
      type: 'object',
      required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
      properties: {
        categories: arrayOf(
          { type: 'string' },
          'categories is a list of the grouped resources this resource belongs to.',
        ),
        group: str('group is the preferred group of the resource.'),
        kind: str("kind is the kind for the resource (e.g. 'Foo' is the kind for a resource 'foo')"),
        name: str('name is the plural name of the resource.'),
        namespaced: {
          type: 'boolean',
          description: 'namespaced indicates if a resource is namespaced or not.',
        },
        shortNames: arrayOf(
          { type: 'string' },
          'shortNames is a list of suggested short names of the resource.',
        ),
        singularName: str('singularName is the singular name of the resource.'),
        storageVersionHash: str('The hash value of the storage version.'),
        verbs: arrayOf({ type: 'string' }, 'verbs is a list of supported kube verbs.'),
        version: str('version is the preferred version of the resource.'),
      },
    },
    [`${META}.APIResourceList`]: {
      description:
        'APIResourceList is a list of APIResource, it is used to expose the name of the resources supported in a specific group and version, and if the resource is namespaced.',
      type: 'object',
      required: ['groupVersion', 'resources'],
      properties: {
        ...TYPE_META,
        groupVersion: str('groupVersion is the group and version this APIResourceList is for.'),
        resources: arrayOf(
          ref(`${META}.APIResource`),
          'resources contains the name of the resources and if they are namespaced.',
        ),
      },
      ...gvkExt('', 'v1', 'APIResourceList'),
    },
    ['io.orch.apimachinery.pkg.version.Info']: {
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
    },
  };
}

export const SCALE = 'io.orch.api.autoscaling.v1.Scale';

export function scaleDefinitions(): Record<string, Json> {
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
