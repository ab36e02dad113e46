// Judging a webhook's reply (doc3 "Webhook contract"), with Kubernetes 1.28's checks and words.
// A reply that is not a usable AdmissionReview is a call failure, which the failure policy
// decides: an HTTP status outside 200-206 (Kubernetes' client takes those), a content type
// other than JSON (none is read as JSON), a body that does not decode, another apiVersion or
// kind than the request's, no `response`, a uid that is not the request's, no `allowed`, a
// patch without patchType, a patch from a validating webhook. doc3 asks the same of both review
// versions; Kubernetes 1.28 reads v1beta1 replies leniently (uid, version and patchType
// unchecked) and takes a missing `allowed` for false, and the text wins over it here.
import { REVIEW_GROUP } from './review.ts';
import type { Reply } from './client.ts';

export interface WebhookResult {
  allowed: boolean;
  status?: Record<string, unknown>;
  /** The JSON Patch bytes (decoded from base64), when the reply carries one. */
  patch?: Buffer;
  patchType?: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** A reply that is not a usable answer: the text after `failed calling webhook "<name>": `. */
export class InvalidReply extends Error {}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const INT32_MAX = 2 ** 31 - 1;

function clip(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

/** Decodes the body as Go's JSON decoder would decode it into an AdmissionReview. */
function decode(reply: Reply): Rec {
  const fail = (why: string) => new InvalidReply(`failed to call webhook: ${why}`);
  if (reply.status < 200 || reply.status > 206) {
    const body = reply.body.trim();
    throw fail(
      body
        ? `an error on the server (${JSON.stringify(clip(body))}) has prevented the request from succeeding`
        : `the server responded with the status code ${reply.status} but did not return more information`,
    );
  }
  const ct = (reply.contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (ct !== 'application/json') throw fail(`serializer for ${ct || 'an empty content type'} doesn't exist`);
  let doc: unknown;
  try {
    doc = JSON.parse(reply.body);
  } catch (e) {
    throw fail(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  if (!isRec(doc)) throw fail('the reply is not a JSON object');
  return doc;
}

function typeError(field: string, want: string, got: unknown): InvalidReply {
  const kind = got === null ? 'null' : Array.isArray(got) ? 'array' : typeof got;
  return new InvalidReply(
    `failed to call webhook: json: cannot unmarshal ${kind} into Go struct field ${field} of type ${want}`,
  );
}

function readResponse(r: Rec, mutating: boolean): WebhookResult {
  const at = (f: string) => `AdmissionResponse.response.${f}`;
  if (r.allowed !== undefined && r.allowed !== null && typeof r.allowed !== 'boolean')
    throw typeError(at('allowed'), 'bool', r.allowed);
  let status: Rec | undefined;
  if (r.status !== undefined && r.status !== null) {
    if (!isRec(r.status)) throw typeError(at('status'), 'v1.Status', r.status);
    const code = r.status.code;
    if (
      code !== undefined &&
      code !== null &&
      !(typeof code === 'number' && Number.isInteger(code) && Math.abs(code) <= INT32_MAX)
    )
      throw typeError(at('status.code'), 'int32', code);
    for (const f of ['message', 'reason', 'status'])
      if (r.status[f] !== undefined && r.status[f] !== null && typeof r.status[f] !== 'string')
        throw typeError(at(`status.${f}`), 'string', r.status[f]);
    status = r.status;
  }
  let patch: Buffer | undefined;
  if (r.patch !== undefined && r.patch !== null) {
    if (typeof r.patch !== 'string') throw typeError(at('patch'), '[]uint8', r.patch);
    if (!STD_BASE64.test(r.patch))
      throw new InvalidReply('failed to call webhook: illegal base64 data in response.patch');
    patch = Buffer.from(r.patch, 'base64');
  }
  let patchType: string | undefined;
  if (r.patchType !== undefined && r.patchType !== null) {
    if (typeof r.patchType !== 'string') throw typeError(at('patchType'), 'v1.PatchType', r.patchType);
    patchType = r.patchType || undefined;
  }
  const warnings: string[] = [];
  if (r.warnings !== undefined && r.warnings !== null) {
    if (!Array.isArray(r.warnings)) throw typeError(at('warnings'), '[]string', r.warnings);
    for (const w of r.warnings) {
      if (typeof w !== 'string') throw typeError(at('warnings'), 'string', w);
      warnings.push(w);
    }
  }
  const auditAnnotations: Record<string, string> = {};
  if (r.auditAnnotations !== undefined && r.auditAnnotations !== null) {
    if (!isRec(r.auditAnnotations))
      throw typeError(at('auditAnnotations'), 'map[string]string', r.auditAnnotations);
    for (const [k, v] of Object.entries(r.auditAnnotations)) {
      if (typeof v !== 'string') throw typeError(at('auditAnnotations'), 'string', v);
      auditAnnotations[k] = v;
    }
  }
  const invalid = (why: string) => new InvalidReply(`received invalid webhook response: ${why}`);
  if (typeof r.allowed !== 'boolean') throw invalid('response.allowed is required');
  const hasPatch = patch !== undefined && patch.length > 0;
  if (mutating) {
    if (hasPatch && !patchType) throw invalid('webhook returned response.patch but not response.patchType');
  } else if (hasPatch || patchType) {
    throw invalid('validating webhook may not return response.patch or response.patchType');
  }
  return { allowed: r.allowed, status, patch, patchType, warnings, auditAnnotations };
}

/** The webhook's answer, or an InvalidReply (a call failure: the failure policy decides). */
export function judgeReply(reply: Reply, version: string, uid: string, mutating: boolean): WebhookResult {
  const doc = decode(reply);
  const want = `${REVIEW_GROUP}/${version}`;
  if (doc.apiVersion !== want)
    throw new InvalidReply(
      `received invalid webhook response: expected webhook response of ${want}, got ${typeof doc.apiVersion === 'string' ? doc.apiVersion : ''}`,
    );
  if (doc.kind !== 'AdmissionReview')
    throw new InvalidReply(
      `received invalid webhook response: expected webhook response of kind AdmissionReview, got ${typeof doc.kind === 'string' ? doc.kind : ''}`,
    );
  if (doc.response === undefined || doc.response === null)
    throw new InvalidReply('received invalid webhook response: webhook response was absent');
  if (!isRec(doc.response)) throw typeError('AdmissionReview.response', 'v1.AdmissionResponse', doc.response);
  const r = doc.response;
  if (r.uid !== undefined && r.uid !== null && typeof r.uid !== 'string')
    throw typeError('AdmissionResponse.response.uid', 'types.UID', r.uid);
  if ((r.uid ?? '') !== uid)
    throw new InvalidReply(
      `received invalid webhook response: expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? '')}`,
    );
  return readResponse(r, mutating);
}
