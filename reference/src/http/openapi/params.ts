// The parameters of the operations: the path and query parameters each verb takes, and the
// media types of bodies and replies.

export interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

export const P = {
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

export const LIST_PARAMS: Param[] = [
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
export const WRITE_PARAMS: Param[] = [P.dryRun, P.fieldManager, P.fieldValidation];
export const DELETE_PARAMS: Param[] = [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy];

export const JSON_T = 'application/json';
export const YAML_T = 'application/yaml';
export const PB_T = 'application/vnd.orch.protobuf';
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];
