// What a reproducer must never hold: the run's token, a case's own tokens, bearer tokens an
// answer carried (service account tokens are JWTs), private keys. The run's token becomes
// $ORCH_TOKEN, a case's own token $ORCH_TOKEN_<n>, the rest a note that it was removed. The
// script's own comparison masks the same patterns (script.ts), so a removed token does not
// make an answer differ.

import { type Part, replaceMatches, replaceString, type Text } from './text.ts';

/** A JWT (three base64url parts, the first a JSON header `{"`). */
export const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/** A PEM private key, line breaks raw or JSON-escaped. */
export const PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g;

export const TOKEN_REMOVED = '<token removed>';
export const KEY_REMOVED = '<private key removed>';

export interface Secrets {
  /** The run's tokens (each as $ORCH_TOKEN; a credential plugin may have given several). */
  token?: string[];
  /** The case's own tokens, in order (the n-th as $ORCH_TOKEN_n). */
  tokens?: string[];
}

/** `text` with every secret replaced. */
export function scrub(t: Text, s: Secrets): Text {
  let out = t;
  const named: [string, Part][] = [];
  for (const tok of s.token ?? []) named.push([tok, { v: 'ORCH_TOKEN' }]);
  (s.tokens ?? []).forEach((tok, i) => {
    named.push([tok, { v: `ORCH_TOKEN_${i + 1}` }]);
  });
  // the longest first: a token that contains another is replaced whole
  named.sort((a, b) => b[0].length - a[0].length);
  for (const [value, to] of named) if (value.length >= 4) out = replaceString(out, value, [to]);
  out = replaceMatches(out, new RegExp(PRIVATE_KEY.source, 'g'), () => [KEY_REMOVED]);
  out = replaceMatches(out, new RegExp(JWT.source, 'g'), () => [TOKEN_REMOVED]);
  return out;
}

/** Whether a header carries credentials (its value is never written). */
export function credentialHeader(name: string): boolean {
  return /^(authorization|proxy-authorization|cookie)$/i.test(name);
}
