// An operation of the documents, and what the operations of one resource in one version share.
import type { Json } from './names.ts';
import type { Param } from './params.ts';

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

/** What the operations of one resource in one version share: its names, paths and media types. */
export interface ResourceOps {
  ops: Op[];
  tag: string;
  doc: string;
  gvk: { group: string; version: string; kind: string };
  kind: string;
  plural: string;
  namespaced: boolean;
  base: string;
  /** `CoreV1`, ... (operation IDs). */
  gv: string;
  /** `Namespaced` for a namespaced resource (operation IDs). */
  scope: string;
  coll: string;
  item: string;
  scopeParams: Param[];
  itemParams: Param[];
  verbs: Set<string>;
  produces: string[];
  listProduces: string[];
  watchProduces: string[];
  consumes: string[];
  patchConsumes: string[];
  kindDef: string;
  listDef: string;
}

/** A 200 with its schema, other replies, and the 401 every operation may answer. */
export function ok(
  schema: Json,
  extra: Record<string, { description: string; schema?: Json }> = {},
): Op['responses'] {
  return { '200': { description: 'OK', schema }, ...extra, '401': { description: 'Unauthorized' } };
}

export function add(c: ResourceOps, o: Omit<Op, 'tag' | 'doc' | 'gvk'>): void {
  c.ops.push({ tag: c.tag, doc: c.doc, gvk: c.gvk, ...o });
}
