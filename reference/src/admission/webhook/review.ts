// The AdmissionReview the server sends (doc3 "Webhook contract"): `admission.orch.io/v1` or
// `v1beta1`, the first of the webhook's admissionReviewVersions the server supports, with a
// fresh uid per call. `kind`/`resource`/`subResource` are the forms the webhook registered for
// (differing from the request's only under `matchPolicy: Equivalent`); the object is null on
// DELETE, the old object null on CREATE and CONNECT, the options null on CONNECT. Empty
// strings and empty user fields are left out, as Kubernetes 1.28 encodes them.
import { randomUUID } from 'node:crypto';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../types.ts';

export const REVIEW_GROUP = 'admission.orch.io';
/** The versions the server speaks, preferred first. */
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

export interface Invocation {
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

/** The object and old object in the invocation's version. */
export interface VersionedObjects {
  object?: KObject;
  oldObject?: KObject;
}

export type ReviewRequest = Record<string, unknown>;

/** The first of the webhook's versions the server speaks; undefined when none. */
export function reviewVersionFor(versions: readonly string[]): string | undefined {
  return versions.find((v) => SUPPORTED_REVIEW_VERSIONS.includes(v));
}

function userInfo(a: AdmissionAttributes): Record<string, unknown> {
  const u = a.ctx.user;
  const out: Record<string, unknown> = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** The review's `request`; `objects` false leaves out object and oldObject (match conditions' `request`). */
export function reviewRequest(
  a: AdmissionAttributes,
  inv: Invocation,
  v: VersionedObjects,
  uid: string = randomUUID(),
  objects = true,
): ReviewRequest {
  const r: ReviewRequest = {
    uid,
    kind: inv.kind,
    resource: inv.resource,
  };
  if (inv.subresource) r.subResource = inv.subresource;
  r.requestKind = a.requestKind;
  r.requestResource = a.requestResource;
  if (a.subresource) r.requestSubResource = a.subresource;
  if (a.name) r.name = a.name;
  if (a.namespace) r.namespace = a.namespace;
  r.operation = a.operation;
  r.userInfo = userInfo(a);
  if (objects) {
    r.object = a.operation === 'DELETE' ? null : (v.object ?? null);
    r.oldObject = a.operation === 'CREATE' || a.operation === 'CONNECT' ? null : (v.oldObject ?? null);
  }
  r.dryRun = a.dryRun;
  r.options = a.operation === 'CONNECT' ? null : optionsOf(a);
  return r;
}

/**
 * The options as admission sees them: a patch's PatchOptions become the UpdateOptions of the
 * update it is (or the CreateOptions of the creation an apply makes), as Kubernetes 1.28 sends
 * them; `force` does not carry over.
 */
function optionsOf(a: AdmissionAttributes): Record<string, unknown> | null {
  const o = a.options;
  if (!o) return null;
  if (o.kind !== 'PatchOptions') return o;
  const out: Record<string, unknown> = {
    kind: a.operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
    apiVersion: o.apiVersion,
  };
  for (const k of ['dryRun', 'fieldManager', 'fieldValidation']) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

export function admissionReview(version: string, request: ReviewRequest): Record<string, unknown> {
  return { kind: 'AdmissionReview', apiVersion: `${REVIEW_GROUP}/${version}`, request };
}
