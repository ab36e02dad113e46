// The errors webhook admission answers with, as Kubernetes 1.28 shapes them:
// - a rejection (`allowed: false`): the webhook's status, message prefixed
//   `admission webhook "<name>" denied the request: ` (or `... denied the request without
//   explanation`), code 400 when the webhook gave none or one below 400 (Kubernetes never
//   answers a rejection below 400), 403 for one above 999 (HTTP codes have three digits);
// - a call that failed under `failurePolicy: Fail`: 500 InternalError
//   `Internal error occurred: failed calling webhook "<name>": <why>` (the webhook failed, not
//   the client's request; Kubernetes answers it so);
// - a dry run that a webhook with side effects would see: 400 `admission webhook "<name>" does
//   not support dry run`.
import { type Reason, StatusError, type StatusDetails } from '../../errors/status.ts';

type Rec = Record<string, unknown>;

/** A status the webhook wrote: its reason and details kept, an empty reason left out. */
class WebhookStatusError extends StatusError {
  override toStatus() {
    const s = super.toStatus();
    if (!s.reason) delete s.reason;
    return s;
  }
}

export function rejection(webhook: string, status: Rec | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const s = status ?? {};
  // a rejection is never answered below 400; HTTP status codes have three digits, so a larger
  // code cannot be sent and 403 stands for it
  const given = typeof s.code === 'number' && Number.isInteger(s.code) ? s.code : 0;
  const code = given > 999 ? 403 : Math.max(given, 400);
  const message = typeof s.message === 'string' && s.message ? s.message : '';
  const reason = typeof s.reason === 'string' ? s.reason : '';
  const text = message
    ? `${deniedBy}: ${message}`
    : reason
      ? `${deniedBy}: ${reason}`
      : `${deniedBy} without explanation`;
  const details =
    s.details && typeof s.details === 'object' && !Array.isArray(s.details)
      ? (s.details as StatusDetails)
      : undefined;
  return new WebhookStatusError(code, reason as Reason, text, details);
}

/** `failed calling webhook "<name>": <why>`: the text of a call failure. */
export function callFailureText(webhook: string, why: string): string {
  return `failed calling webhook ${JSON.stringify(webhook)}: ${why}`;
}

/** Kubernetes' NewInternalError: the message prefixed, the error itself as the one cause. */
export function internalError(text: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${text}`, {
    causes: [{ message: text }],
  });
}

export function dryRunUnsupported(webhook: string): StatusError {
  return new StatusError(
    400,
    'BadRequest',
    `admission webhook ${JSON.stringify(webhook)} does not support dry run`,
  );
}
