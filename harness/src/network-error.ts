// What went wrong on the wire, in words an implementer can act on: the harness's HTTP and
// watch clients turn undici's and node's errors ("other side closed", "read ECONNRESET",
// "This operation was aborted", HPE_* parser codes) into a sentence naming the endpoint,
// what it did, and how far the answer had come.

/** How far an exchange had come when it failed. */
export type Phase = 'head' | 'body';

export interface ExchangeState {
  method: string;
  url: string;
  timeoutMs: number;
  startedAt: number;
  phase: Phase;
  /** Body bytes received before the failure. */
  bodyBytes?: number;
  /** For a watch: events received before the failure. */
  events?: number;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

function printable(data: string): string {
  return JSON.stringify(data.slice(0, 40).replace(/[\x00-\x08\x0e-\x1f\x7f-\uffff]/g, '.'));
}

function received(s: ExchangeState): string {
  const parts: string[] = [];
  if (s.events !== undefined) parts.push(`${s.events} event${s.events === 1 ? '' : 's'}`);
  if (s.bodyBytes !== undefined) parts.push(`${s.bodyBytes} body byte${s.bodyBytes === 1 ? '' : 's'}`);
  return parts.length ? ` (received ${parts.join(', ')})` : '';
}

/**
 * One sentence for a failed exchange (the caller names the request); `timedOut` when the
 * harness's own deadline ended it.
 */
export function describeNetworkError(e: unknown, s: ExchangeState, timedOut: boolean): string {
  const err = (e ?? {}) as Error & { code?: string; data?: string; cause?: unknown };
  const code = err.code ?? (err.cause as { code?: string } | undefined)?.code ?? '';
  const origin = safeOrigin(s.url);
  const elapsed = Date.now() - s.startedAt;
  const inBody = s.phase === 'body';
  let what: string;
  if (
    timedOut ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    err.name === 'TimeoutError'
  ) {
    what = inBody
      ? `the response body from ${origin} did not complete within ${seconds(s.timeoutMs)}: the endpoint sent the status and headers, then stalled or trickled the body${received(s)}`
      : `no response headers from ${origin} within ${seconds(s.timeoutMs)}: the endpoint accepted the connection and did not finish the status line and headers (stalled, or answering too slowly)`;
  } else if (code === 'ECONNRESET' || code === 'EPIPE') {
    what = inBody
      ? `connection reset by the endpoint ${origin} while reading the body${received(s)}`
      : `connection reset by the endpoint ${origin} before it answered`;
  } else if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    what = inBody
      ? `the endpoint ${origin} closed the connection in the middle of the body (it ended before its declared length or final chunk)${received(s)}`
      : `the endpoint ${origin} closed the connection without answering (no status line)`;
  } else if (code.startsWith('HPE_') || err.name === 'HTTPParserError') {
    what = `the endpoint ${origin} answered bytes that are not HTTP/1.1 (${err.message}${err.data ? `; bytes: ${printable(err.data)}` : ''})`;
  } else if (code === 'ECONNREFUSED') {
    what = `connection refused: nothing listens at ${origin}`;
  } else if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    what = `could not connect to ${origin} (TCP or TLS handshake did not complete: ${err.message})`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    what = `the host of ${origin} does not resolve (${err.message})`;
  } else if (
    /ERR_SSL|CERT|SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/.test(code) ||
    /certificate|TLS|SSL/i.test(err.message ?? '')
  ) {
    what = `TLS with ${origin} failed: ${err.message} (${code || err.name})`;
  } else {
    what = `${err.message || String(e)}${code ? ` (${code})` : err.name ? ` (${err.name})` : ''}`;
  }
  return `${what}, after ${elapsed} ms`;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
