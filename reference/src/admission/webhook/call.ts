// One call of a webhook (doc3 "Webhook contract"): refused on a dry run unless the webhook
// declares no side effects; the review in the first version both sides speak; the reply
// judged; its warnings passed to the client and its audit annotations (keyed
// `<webhook>/<key>`) to the audit event, also when it rejects. Throws CallingWebhookError for
// what the failure policy decides, a StatusError for a rejection.
import type { StatusError } from '../../errors/status.ts';
import type { AdmissionAttributes } from '../types.ts';
import { CallFailure, type WebhookClient } from './client.ts';
import { callFailureText, dryRunUnsupported, rejection } from './errors.ts';
import type { Match } from './matching.ts';
import { admissionReview, reviewRequest, reviewVersionFor } from './review.ts';
import { InvalidReply, judgeReply, type WebhookResult } from './response.ts';

/** The call did not give an answer: the failure policy decides. */
export class CallingWebhookError extends Error {}

/** The webhook answered `allowed: false`. */
export class WebhookRejection extends Error {
  constructor(readonly status: StatusError) {
    super(status.message);
  }
}

const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];

export async function callWebhook(
  client: WebhookClient,
  m: Match,
  a: AdmissionAttributes,
): Promise<WebhookResult> {
  const hook = m.hook;
  if (a.dryRun && !NO_SIDE_EFFECTS.includes(hook.sideEffects)) throw dryRunUnsupported(hook.name);
  const version = reviewVersionFor(hook.admissionReviewVersions);
  const fail = (why: string) => new CallingWebhookError(callFailureText(hook.name, why));
  if (!version)
    throw fail('could not create admission objects: webhook does not accept known AdmissionReview versions');
  const request = reviewRequest(a, m, m.versioned);
  const uid = request.uid as string;
  let result: WebhookResult;
  try {
    const reply = await client.post(hook, admissionReview(version, request), a.ctx.signal);
    result = judgeReply(reply, version, uid, hook.mutating);
  } catch (e) {
    if (e instanceof CallFailure) throw fail(`failed to call webhook: ${e.message}`);
    if (e instanceof InvalidReply) throw fail(e.message);
    throw e;
  }
  for (const [k, v] of Object.entries(result.auditAnnotations)) a.ctx.audit?.annotate(`${hook.name}/${k}`, v);
  for (const w of result.warnings) if (!a.ctx.warnings.includes(w)) a.ctx.warnings.push(w);
  if (!result.allowed) throw new WebhookRejection(rejection(hook.name, result.status));
  return result;
}
