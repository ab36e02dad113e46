// The request generator: request `index` of seed `seed`, built from its own generator (see
// prng.ts), so any one request can be rebuilt alone. The mix:
//   plausible   a served path (namespaced or cluster, collection, item, subresource), a verb it
//               serves, its parameters, a body in a content type it reads (patches, apply)
//   watch       a short watch (timeoutSeconds=1; the reader also hangs up after a short read)
//   malformed   a served path with a broken body (truncated, bytes, deep, huge, bad gzip)
//   chaos       any path (malformed segments, encoded slashes, unicode, `..`), any method,
//               any headers, any body
// and a guard (guard.ts) that keeps requests off the canary and off the server's configuration.
import { type Body, malformedBody, patchBody, writeBody } from './bodies.ts';
import type { FuzzContext } from './context.ts';
import type { FuzzRequest } from './fuzz-request.ts';
import { guard } from './guard.ts';
import { requestHeaders } from './headers.ts';
import { objectFor } from './objects.ts';
import { Prng } from './prng.ts';
import { queryString, verbParams } from './query.ts';
import type { ServedResource } from './resources.ts';
import {
  BAD_NAMES,
  BOGUS_PREFIXES,
  METHODS,
  NAMES,
  ODD_METHODS,
  SEGMENT_GARBAGE,
  SUBRESOURCES,
} from './vocabulary.ts';

/** Resources most requests go to: the simple, common kinds. */
const FAVOURITES = [
  'configmaps',
  'secrets',
  'pods',
  'services',
  'deployments',
  'serviceaccounts',
  'leases',
  'events',
];

function pickResource(rng: Prng, ctx: FuzzContext): ServedResource {
  if (rng.chance(0.5)) {
    const fav = ctx.resources.filter((r) => FAVOURITES.includes(r.plural));
    if (fav.length) return rng.pick(fav);
  }
  return rng.pick(ctx.resources);
}

function pickName(rng: Prng): string {
  return rng.chance(0.9) ? rng.pick(NAMES) : rng.pick(BAD_NAMES);
}

function namespaceOf(rng: Prng, ctx: FuzzContext): string {
  return rng.weighted([
    [12, ctx.workNamespace],
    [1, 'default'],
    [1, 'nope-ns'],
    [1, rng.pick(SEGMENT_GARBAGE)],
  ]);
}

/** `<prefix>[/namespaces/<ns>]/<plural>[/<name>[/<sub>]]`. */
function resourcePath(res: ServedResource, ns: string, name?: string, sub?: string): string {
  let p = `${res.prefix}${res.namespaced ? `/namespaces/${ns}` : ''}/${res.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (sub !== undefined) p += `/${sub}`;
  return p;
}

function plausible(rng: Prng, ctx: FuzzContext, index: number): FuzzRequest {
  const res = pickResource(rng, ctx);
  const ns = namespaceOf(rng, ctx);
  const name = pickName(rng);
  const obj = objectFor(rng, res, name, ns);
  const sub = res.subresources.length && rng.chance(0.2) ? rng.pick(res.subresources) : undefined;
  const op = rng.weighted([
    [4, 'list'],
    [4, 'get'],
    [4, 'create'],
    [2, 'update'],
    [4, 'patch'],
    [2, 'delete'],
    [1, 'deletecollection'],
  ]);
  let method = 'GET';
  let path = resourcePath(res, ns, name, sub);
  let body: Body | undefined;
  let streaming = false;
  const fixed = verbParams(rng, op === 'deletecollection' ? 'delete' : op);
  switch (op) {
    case 'list':
      path = resourcePath(res, ns);
      if (!res.namespaced || rng.chance(0.2)) path = `${res.prefix}/${res.plural}`;
      break;
    case 'get':
      if (sub === 'log' && rng.chance(0.3)) {
        fixed.push(['follow', 'true']);
        streaming = true;
      }
      break;
    case 'create':
      method = 'POST';
      path = sub ? path : resourcePath(res, ns);
      body = writeBody(rng, obj);
      break;
    case 'update':
      method = 'PUT';
      body = writeBody(rng, obj);
      break;
    case 'patch':
      method = 'PATCH';
      body = patchBody(rng, obj);
      break;
    case 'delete':
      method = 'DELETE';
      if (rng.chance(0.3))
        body = {
          bytes: Buffer.from(
            JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: rng.int(-1, 5) }),
          ),
          contentType: 'application/json',
        };
      break;
    case 'deletecollection':
      method = 'DELETE';
      path = resourcePath(res, ns);
      fixed.push(['labelSelector', rng.pick(['app=fuzz', 'app=a', 'x'])]);
      break;
  }
  return {
    index,
    family: 'plausible',
    method,
    target: path + queryString(rng, rng.chance(0.8) ? 0 : 2, fixed),
    headers: requestHeaders(rng, ctx.token, body, rng.chance(0.85)),
    body: body?.bytes,
    streaming,
  };
}

function watch(rng: Prng, ctx: FuzzContext, index: number): FuzzRequest {
  const res = pickResource(rng, ctx);
  const ns = namespaceOf(rng, ctx);
  const fixed: [string, string][] = [['timeoutSeconds', '1']];
  let path = rng.chance(0.7) ? resourcePath(res, ns) : `${res.prefix}/${res.plural}`;
  if (rng.chance(0.2)) path = path.replace(res.prefix, `${res.prefix}/watch`);
  else fixed.push(['watch', rng.pick(['1', 'true', 'TRUE', '0'])]);
  if (rng.chance(0.3)) fixed.push(['resourceVersion', rng.pick(['0', '1', '2', '999999999', 'abc', ''])]);
  if (rng.chance(0.2)) fixed.push(['allowWatchBookmarks', 'true']);
  if (rng.chance(0.1)) fixed.push(['sendInitialEvents', 'true'], ['resourceVersionMatch', 'NotOlderThan']);
  if (rng.chance(0.2)) fixed.push(['fieldSelector', rng.pick(['metadata.name=fz-a', 'bogus=1'])]);
  return {
    index,
    family: 'watch',
    method: 'GET',
    target: path + queryString(rng, rng.chance(0.8) ? 0 : 2, fixed),
    headers: requestHeaders(rng, ctx.token, undefined, rng.chance(0.7)),
    streaming: true,
  };
}

function malformed(rng: Prng, ctx: FuzzContext, index: number): FuzzRequest {
  const res = pickResource(rng, ctx);
  const ns = namespaceOf(rng, ctx);
  const name = pickName(rng);
  const method = rng.pick(['POST', 'PUT', 'PATCH', 'PATCH']);
  const body = malformedBody(rng, objectFor(rng, res, name, ns));
  const path = method === 'POST' ? resourcePath(res, ns) : resourcePath(res, ns, name);
  return {
    index,
    family: 'malformed',
    method,
    target: path + queryString(rng, 1, verbParams(rng, method === 'PATCH' ? 'patch' : 'create')),
    headers: requestHeaders(rng, ctx.token, body, rng.chance(0.7)),
    body: body.bytes,
    streaming: false,
  };
}

function segment(rng: Prng, real: string): string {
  return rng.weighted<() => string>([
    [6, () => real],
    [2, () => rng.pick(SEGMENT_GARBAGE)],
    [1, () => rng.string('abcAZ09-_.=,!()/:;~%é', rng.int(0, 12))],
    [0.1, () => 'x'.repeat(rng.pick([300, 5000, 100000]))],
  ])();
}

function chaos(rng: Prng, ctx: FuzzContext, index: number): FuzzRequest {
  const res = pickResource(rng, ctx);
  const prefix = rng.weighted([
    [6, res.prefix],
    [2, rng.pick(BOGUS_PREFIXES)],
  ]);
  let path: string;
  if (rng.chance(0.05)) path = `/${rng.string('abcAZ09-_.=,!()/:;~%é', rng.int(0, 60))}`;
  else {
    path = prefix;
    if (res.namespaced ? rng.chance(0.8) : rng.chance(0.2))
      path += `/namespaces/${segment(rng, namespaceOf(rng, ctx))}`;
    path += `/${segment(rng, res.plural)}`;
    if (rng.chance(0.6)) {
      path += `/${segment(rng, encodeURIComponent(pickName(rng)))}`;
      if (rng.chance(0.3))
        path += `/${segment(rng, res.subresources.length && rng.chance(0.6) ? rng.pick(res.subresources) : rng.pick(SUBRESOURCES))}`;
    }
    for (let n = rng.chance(0.1) ? rng.int(1, 3) : 0; n > 0; n--) path += `/${segment(rng, 'x')}`;
    if (rng.chance(0.1)) path += '/';
  }
  const method = rng.weighted<() => string>([
    [8, () => rng.pick(METHODS)],
    [2, () => rng.pick(ODD_METHODS)],
  ])();
  const obj = objectFor(rng, res, pickName(rng), ctx.workNamespace);
  const body = rng.weighted<() => Body | undefined>([
    [3, () => undefined],
    [2, () => writeBody(rng, obj)],
    [2, () => patchBody(rng, obj)],
    [2, () => malformedBody(rng, obj)],
  ])();
  return {
    index,
    family: 'chaos',
    method,
    target: path + queryString(rng, 4),
    headers: requestHeaders(rng, ctx.token, body, false),
    body: body?.bytes,
    streaming: false,
  };
}

/** Request `index` of the run seeded `seed`. */
export function generateRequest(seed: number, index: number, ctx: FuzzContext): FuzzRequest {
  const rng = new Prng(seed, index);
  const make = rng.weighted([
    [10, plausible],
    [2, watch],
    [3, malformed],
    [5, chaos],
  ]);
  return guard(make(rng, ctx, index), ctx);
}

export type { FuzzRequest };
