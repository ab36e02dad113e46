// The HTTP requests of one operation on one side, in the spec's words: each side has its own
// namespace and custom resource group, and the versions it has seen so far (a stale update
// sends the first version of the object that side saw, a watch starts from one of its own).
import { FINALIZER, type Kind, type Labels, type Op } from './ops.ts';

/** The label every object the run lists or watches carries (a cluster's own objects lack it). */
export const RUN_LABEL = 'diff-run';

/** The run's custom resource: kind, plural and version (its group is each side's own). */
export const WIDGET = { kind: 'Widget', plural: 'widgets', version: 'v1' };

export interface SideContext {
  namespace: string;
  /** The custom resource group of this side. */
  group: string;
  /** The first and last version seen of each object (`kind/name`). */
  versions: Map<string, { first: string; last: string }>;
  /** The versions non-dry-run writes answered, by kind, in order: where watches start. */
  written: Record<Kind, string[]>;
  /**
   * Whether the last write of each kind surely has an event of its answer's version: not after
   * a delete, a patch or an update (each may end a terminating object, whose event then has a
   * version of its own).
   */
  lastWriteSure: Record<Kind, boolean>;
}

export interface PlannedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** JSON body (spec words), sent as this content type. */
  body?: unknown;
  contentType?: string;
  /** A watch: read the stream, not one answer. */
  watch?: boolean;
}

export function newContext(namespace: string, group: string): SideContext {
  return {
    namespace,
    group,
    versions: new Map(),
    written: { configmaps: [], secrets: [], widgets: [] },
    lastWriteSure: { configmaps: false, secrets: false, widgets: false },
  };
}

export function collectionPath(c: SideContext, kind: Kind): string {
  if (kind === 'widgets')
    return `/apis/${c.group}/${WIDGET.version}/namespaces/${c.namespace}/${WIDGET.plural}`;
  return `/api/v1/namespaces/${c.namespace}/${kind}`;
}

function typeMeta(c: SideContext, kind: Kind): { apiVersion: string; kind: string } {
  if (kind === 'configmaps') return { apiVersion: 'v1', kind: 'ConfigMap' };
  if (kind === 'secrets') return { apiVersion: 'v1', kind: 'Secret' };
  return { apiVersion: `${c.group}/${WIDGET.version}`, kind: WIDGET.kind };
}

function withDryRun(q: Record<string, string>, dryRun: 'All' | 'bare' | undefined): Record<string, string> {
  if (dryRun === 'All') q.dryRun = 'All';
  if (dryRun === 'bare') q.dryRun = '';
  return q;
}

const runLabels = (l: Labels) => ({ [RUN_LABEL]: '1', ...l });

function selector(s: string): string {
  return s ? `${RUN_LABEL},${s}` : RUN_LABEL;
}

/** The requests of `op` on the side `c` (a list's later pages are asked for as the answers come). */
export function plan(c: SideContext, op: Op): PlannedRequest | undefined {
  const coll = collectionPath(c, op.kind);
  const tm = typeMeta(c, op.kind);
  const seen = 'name' in op ? c.versions.get(`${op.kind}/${op.name}`) : undefined;
  switch (op.op) {
    case 'create': {
      const metadata: Record<string, unknown> =
        op.name === 'generate'
          ? // generated names sort unpredictably: such objects stay out of lists and watches
            { generateName: 'g-', labels: { ...op.labels } }
          : { name: op.name, labels: runLabels(op.labels) };
      if (op.finalizer) metadata.finalizers = [FINALIZER];
      const body: Record<string, unknown> = { ...tm, metadata, data: op.data };
      const q = withDryRun({}, op.dryRun);
      if (op.unknownField) {
        body.unknownField = 'x';
        q.fieldValidation = 'Strict';
      }
      return { method: 'POST', path: coll, query: q, body };
    }
    case 'get':
      return { method: 'GET', path: `${coll}/${op.name}`, query: {} };
    case 'update': {
      const metadata: Record<string, unknown> = { name: op.name, labels: runLabels(op.labels) };
      const v = op.version === 'current' ? seen?.last : op.version === 'first' ? seen?.first : undefined;
      if (v) metadata.resourceVersion = v;
      return {
        method: 'PUT',
        path: `${coll}/${op.name}`,
        query: withDryRun({}, op.dryRun),
        body: { ...tm, metadata, data: op.data },
      };
    }
    case 'merge-patch':
    case 'strategic-patch': {
      const p = op.patch;
      const metadata: Record<string, unknown> = {};
      if (p.labels && Object.keys(p.labels).length) metadata.labels = p.labels;
      if (p.finalizers === 'add') metadata.finalizers = [FINALIZER];
      if (p.finalizers === 'clear') metadata.finalizers = null;
      if (p.clearManagedFields) metadata.managedFields = [];
      const body: Record<string, unknown> = {};
      if (Object.keys(metadata).length) body.metadata = metadata;
      if (p.data && Object.keys(p.data).length) body.data = p.data;
      if (p.unknownField) body.unknownField = 'x';
      const q = withDryRun({}, op.dryRun);
      if (op.op === 'merge-patch' && op.strict) q.fieldValidation = 'Strict';
      return {
        method: 'PATCH',
        path: `${coll}/${op.name}`,
        query: q,
        body,
        contentType:
          op.op === 'merge-patch' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json',
      };
    }
    case 'json-patch':
      return {
        method: 'PATCH',
        path: `${coll}/${op.name}`,
        query: withDryRun({}, op.dryRun),
        body: op.patch,
        contentType: 'application/json-patch+json',
      };
    case 'apply': {
      const q = withDryRun({ fieldManager: op.manager }, op.dryRun);
      if (op.force) q.force = 'true';
      return {
        method: 'PATCH',
        path: `${coll}/${op.name}`,
        query: q,
        body: { ...tm, metadata: { name: op.name, labels: runLabels(op.labels) }, data: op.data },
        contentType: 'application/apply-patch+yaml',
      };
    }
    case 'delete': {
      const v =
        op.precondition === 'current' ? seen?.last : op.precondition === 'first' ? seen?.first : undefined;
      return {
        method: 'DELETE',
        path: `${coll}/${op.name}`,
        query: withDryRun({}, op.dryRun),
        ...(v
          ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: v } } }
          : {}),
      };
    }
    case 'list': {
      const q: Record<string, string> = { labelSelector: selector(op.selector) };
      if (op.fieldSelector) q.fieldSelector = op.fieldSelector;
      if (op.limit) q.limit = String(op.limit);
      return { method: 'GET', path: coll, query: q };
    }
    case 'watch': {
      const from = c.written[op.kind];
      // nothing written yet: nothing to start from
      if (!from.length) return undefined;
      return {
        method: 'GET',
        path: coll,
        // selected by the run's label alone, which every write but a generated-name create keeps:
        // the watch reads until the event of the kind's last write arrives
        query: { watch: '1', labelSelector: RUN_LABEL, resourceVersion: from[op.from % from.length]! },
        watch: true,
      };
    }
  }
}

/** The request of `op`'s next page after `continueToken`. */
export function nextPage(first: PlannedRequest, continueToken: string): PlannedRequest {
  return { ...first, query: { ...first.query, continue: continueToken } };
}

/** Whether `op` writes (a write's answered version is recorded unless it was a dry run). */
export function isWrite(op: Op): boolean {
  return !['get', 'list', 'watch'].includes(op.op);
}
