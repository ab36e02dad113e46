// Request headers: authorization (mostly the admin token; none, wrong or basic now and then),
// Accept, Content-Type, encodings, and hostile ones (huge, smuggling, impersonation, 100-continue).
import type { Body } from './bodies.ts';
import type { Prng } from './prng.ts';
import { ACCEPT, ACCEPT_ENCODINGS, CONTENT_TYPES } from './vocabulary.ts';

export type Header = [string, string];

const HUGE_HEADER = [8 << 10, 100 << 10, 2 << 20];

function authorization(rng: Prng, token: string): Header[] {
  return rng.weighted<Header[]>([
    [30, [['Authorization', `Bearer ${token}`]]],
    [1, []],
    [1, [['Authorization', 'Bearer not-the-token']]],
    [1, [['Authorization', 'Basic YTpi']]],
    [1, [['Authorization', 'Bearer ']]],
  ]);
}

function hostile(rng: Prng): Header[] {
  return rng.weighted<() => Header[]>([
    [2, () => [['X-Fuzz', 'x'.repeat(rng.pick(HUGE_HEADER))]]],
    [1, () => [['Transfer-Encoding', 'chunked']]],
    [1, () => [['Expect', '100-continue']]],
    [1, () => [['Impersonate-User', rng.pick(['system:anonymous', 'fz', '', 'system:serviceaccount:x'])]]],
    [
      1,
      () => [
        ['Impersonate-Group', 'system:masters'],
        ['Impersonate-User', 'fz'],
      ],
    ],
    [1, () => [['X-HTTP-Method-Override', 'DELETE']]],
    [
      1,
      () => [
        ['Content-Type', 'application/json'],
        ['Content-Type', 'application/yaml'],
      ],
    ],
    [
      1,
      () => [
        ['Accept', 'application/json'],
        ['Accept', 'application/vnd.orch.protobuf'],
      ],
    ],
    [
      1,
      () => [
        ['X-Remote-User', 'admin'],
        ['X-Remote-Group', 'system:masters'],
      ],
    ],
    [
      1,
      () => [
        ['Upgrade', 'websocket'],
        ['Connection', 'Upgrade'],
        ['Sec-WebSocket-Protocol', 'v4.channel.k8s.io'],
      ],
    ],
    [1, () => [['Audit-ID', 'x'.repeat(300)]]],
    [
      1,
      () => [
        ['If-None-Match', '"x"'],
        ['If-Modified-Since', 'garbage'],
      ],
    ],
  ])();
}

/** The headers of a request with `body`; `plausible` keeps them those of a well-behaved client. */
export function requestHeaders(
  rng: Prng,
  token: string,
  body: Body | undefined,
  plausible: boolean,
): Header[] {
  const h: Header[] = [
    ...(plausible ? [['Authorization', `Bearer ${token}`] as Header] : authorization(rng, token)),
  ];
  if (!plausible || rng.chance(0.4)) {
    if (rng.chance(0.8)) h.push(['Accept', rng.pick(ACCEPT)]);
    else if (rng.chance(0.5)) h.push(['Accept', rng.string('abc/;=*, ', rng.int(0, 30))]);
  }
  if (body) {
    if (plausible || rng.chance(0.7)) h.push(['Content-Type', body.contentType]);
    else if (rng.chance(0.8)) h.push(['Content-Type', rng.pick(CONTENT_TYPES)]);
    if (body.contentEncoding) h.push(['Content-Encoding', body.contentEncoding]);
  } else if (!plausible && rng.chance(0.2)) h.push(['Content-Type', rng.pick(CONTENT_TYPES)]);
  if (rng.chance(0.3)) h.push(['Accept-Encoding', rng.pick(ACCEPT_ENCODINGS)]);
  if (!plausible && rng.chance(0.1)) h.push(...hostile(rng));
  return h;
}
