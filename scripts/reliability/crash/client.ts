// HTTP calls of the crash measurement: one JSON request with a deadline, its answer or the
// network error that ended it (kept apart: a refused connection never reached the server, a
// broken one may have).
import { request } from 'undici';

export interface Answer {
  status: number;
  json: any;
  text: string;
}

export interface Target {
  url: string;
  token: string;
}

/** Thrown when no answer came; `refused` when the connection was never made. */
export class NoAnswer extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

export async function call(
  t: Target,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<Answer> {
  let r: Awaited<ReturnType<typeof request>>;
  try {
    r = await request(t.url + path, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw noAnswer(e);
  }
  let text: string;
  try {
    text = await r.body.text();
  } catch (e) {
    throw noAnswer(e);
  }
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, json, text };
}

export function noAnswer(e: unknown): NoAnswer {
  const err = e as { code?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  return new NoAnswer(`${code ? `${code}: ` : ''}${err.message ?? String(e)}`, code === 'ECONNREFUSED');
}

/** "<code> <reason>: <message>" of a Status answer (its text when it is no Status). */
export function describe(a: Answer): string {
  const s = a.json;
  if (s && s.kind === 'Status')
    return `${a.status} ${s.reason ?? '-'}: ${String(s.message ?? '').slice(0, 160)}`;
  return `${a.status} (not a Status): ${a.text.slice(0, 160)}`;
}
