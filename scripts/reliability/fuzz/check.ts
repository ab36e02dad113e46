// The checks on every answer:
//   - an answer came (no socket error, no hang past the time allowed, not cut short);
//   - its status is below 500, but for the prescribed ones (prescribed5xx);
//   - a status of 400 or more carries a well-formed Status in the negotiated encoding (kind
//     Status, apiVersion v1, status Failure, code equal to the HTTP status, a reason, a message);
//   - a 2xx body parses in its content type; a watch's ERROR event carries no 5xx Status.
import { decodeAnswer } from './decode.ts';
import type { FuzzRequest } from './fuzz-request.ts';
import type { Answer } from './send.ts';

export interface Violation {
  index: number;
  /** What is wrong. */
  problem: string;
  request: string;
  status: number;
  /** The start of the answer's body. */
  answer: string;
}

/** The request as a short line (method, target, content type, body size). */
export function describeRequest(r: FuzzRequest): string {
  const ct = r.headers.find(([k]) => /^content-type$/i.test(k))?.[1];
  const accept = r.headers.find(([k]) => /^accept$/i.test(k))?.[1];
  const target = r.target.length > 300 ? `${r.target.slice(0, 300)}...(${r.target.length})` : r.target;
  return `${r.method} ${target}${accept ? ` accept=${accept}` : ''}${ct !== undefined ? ` content-type=${ct}` : ''}${r.body ? ` body=${r.body.length}B` : ''}`;
}

/**
 * The answers of 500 or more that are right:
 *   - doc1's 504 for a resource version the server has not reached (a HEAD has no body to
 *     show the reason: its 504 is taken for this one when it asked for a resource version);
 *   - Kubernetes 1.28's answers of the proxies whose backend does not exist (the fuzzer's
 *     services have no endpoints, its nodes no addresses: there is nothing to proxy to): a
 *     service's 503 "no endpoints available for service", a node's 500 "no preferred
 *     addresses found" (GetPreferredNodeAddress's error, which the connect handler answers as
 *     an internal error).
 */
export function prescribed5xx(r: FuzzRequest, status: number, body: any): boolean {
  const message = String(body?.message ?? '');
  if (status === 504) {
    if (/^HEAD$/i.test(r.method) && body === undefined) return /[?&]resourceVersion=\d/.test(r.target);
    return body?.reason === 'Timeout' && /Too large resource version/.test(message);
  }
  if (status === 503)
    return (
      body?.reason === 'ServiceUnavailable' &&
      /^no endpoints available for service /.test(message) &&
      /\/services\/[^/?]+\/proxy(\/|\?|$)/.test(r.target)
    );
  if (status === 500)
    return (
      body?.reason === 'InternalError' &&
      /^Internal error occurred: no preferred addresses found; known addresses: /.test(message) &&
      /^\/api\/v1\/nodes\/[^/?]+\/proxy(\/|\?|$)/.test(r.target)
    );
  return false;
}

/** What is wrong with a Status, or undefined. */
export function statusProblem(body: any, httpStatus: number): string | undefined {
  if (body === null || typeof body !== 'object') return 'the error body is not an object';
  if (body.kind !== 'Status') return `the error body's kind is ${JSON.stringify(body.kind)}, not Status`;
  if (body.apiVersion !== 'v1')
    return `the Status's apiVersion is ${JSON.stringify(body.apiVersion)}, not v1`;
  if (body.status !== 'Failure') return `the Status's status is ${JSON.stringify(body.status)}, not Failure`;
  if (body.code !== httpStatus)
    return `the Status's code ${JSON.stringify(body.code)} is not the HTTP status ${httpStatus}`;
  if (typeof body.reason !== 'string' || body.reason === '') return 'the Status has no reason';
  if (typeof body.message !== 'string') return 'the Status has no message';
  return undefined;
}

function preview(a: Answer): string {
  const ct = a.headers['content-type'] ?? '';
  if (/protobuf/.test(ct)) return `<protobuf ${a.body.length} bytes>`;
  return a.body.subarray(0, 300).toString('utf8');
}

/** The problems of one answer (none when it is right). */
export function checkAnswer(r: FuzzRequest, a: Answer): Violation[] {
  const out: Violation[] = [];
  const add = (problem: string) =>
    out.push({ index: r.index, problem, request: describeRequest(r), status: a.status, answer: preview(a) });
  if (a.timedOut) {
    add('no complete answer in time (a hang)');
    return out;
  }
  if (a.status === 0) {
    add(`no answer: ${a.error ?? 'the connection closed without a status line'}`);
    return out;
  }
  const head = /^HEAD$/i.test(r.method);
  if (a.incomplete && !a.streamCut && !head) add('the answer was cut short');
  let decoded: ReturnType<typeof decodeAnswer> | undefined;
  let decodeError: string | undefined;
  if (!head && a.body.length) {
    try {
      decoded = decodeAnswer(a);
    } catch (e) {
      decodeError = (e as Error).message;
    }
  }
  const doc = decoded?.form === 'document' ? decoded.value : undefined;
  if (a.status >= 500 && !prescribed5xx(r, a.status, doc)) add(`status ${a.status}`);
  if (a.status >= 400 && !head) {
    if (decodeError) add(`the error body does not parse as ${a.headers['content-type']}: ${decodeError}`);
    else if (decoded?.form !== 'document')
      add(`the error body is not a Status (content type ${JSON.stringify(a.headers['content-type'])})`);
    else {
      const p = statusProblem(doc, a.status);
      if (p) add(p);
    }
  }
  if (a.status >= 200 && a.status < 300 && decodeError)
    add(`the ${a.status} body does not parse as ${a.headers['content-type']}: ${decodeError}`);
  if (decoded?.form === 'events')
    for (const ev of decoded.events)
      if (ev?.type === 'ERROR' && Number(ev.object?.code) >= 500)
        add(`a watch ERROR event with code ${ev.object.code}: ${ev.object.message}`);
  return out;
}
