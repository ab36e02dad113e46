// What the authentication cases share: the fixtures the target trusts, the identity the
// server sees (SelfSubjectReview), and the checks of an accepted and a refused request.
import { readFileSync } from 'node:fs';
import { decodeJwt, importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import type { SeenUser } from '../../harness/src/auth/credentials.ts';
import { whoAmI } from '../../harness/src/auth/credentials.ts';
import { type AuthFixtures, loadAuthFixtures } from '../../harness/src/auth/fixtures.ts';
import type { Client } from '../../harness/src/client.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import type { NamedTarget } from '../../harness/src/targets.ts';

export const AUTH = 'Authentication';

/** The fixtures of a target routed by `needs.auth` (declared, so present). */
export function fixturesOf(t: NamedTarget): AuthFixtures {
  const dir = t.declared.authFixtures;
  if (!dir) throw new Error(`target ${t.name} was routed for authentication fixtures but declares none`);
  return loadAuthFixtures(dir);
}

/** The user the server takes `c` for; fails unless the request is authenticated. */
export async function seenAs(c: Client, why: string): Promise<SeenUser> {
  const r = await whoAmI(c);
  check(
    r.status === 201 || r.status === 200,
    `a SelfSubjectReview answered 201 with the caller's userInfo (${why})`,
    r.describe,
  );
  check(!!r.user?.username, 'status.userInfo.username set', show(r.user));
  return r.user!;
}

/**
 * seenAs for a credential whose object was stored a moment ago. kube-apiserver 1.28 reads
 * bootstrap tokens from its informer's cache of Secrets, which learns of a new Secret shortly
 * after the write, and it keeps no failed authentication (its token cache's failure TTL is 0):
 * a 401 within `seconds` of the write is asked again, then the answer is judged as seenAs does.
 */
export async function seenAsOnceStored(c: Client, why: string, seconds = 10): Promise<SeenUser> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until && (await whoAmI(c)).status === 401) await new Promise((r) => setTimeout(r, 250));
  return seenAs(c, why);
}

/** Checks the identity: username, and uid and groups where given (groups: each present, order free). */
export function checkUser(
  u: SeenUser,
  want: { username: string; uid?: string; groups?: string[]; noGroups?: string[] },
  why: string,
): void {
  checkEqual(u.username, want.username, `${why}: username`);
  if (want.uid !== undefined) checkEqual(u.uid, want.uid, `${why}: uid`);
  for (const g of want.groups ?? [])
    check((u.groups ?? []).includes(g), `group ${show(g)} among the groups (${why})`, show(u.groups));
  for (const g of want.noGroups ?? [])
    check(!(u.groups ?? []).includes(g), `no group ${show(g)} (${why})`, show(u.groups));
}

/** A request no method accepts with these credentials: 401 Unauthorized, never served as anonymous. */
export async function checkRefused(c: Client, why: string): Promise<void> {
  const r = await c.get('/api/v1/namespaces/default');
  checkStatus(r, 401, 'Unauthorized', `${why}: the request is refused with 401, not served as anonymous`);
}

/**
 * A credential the server accepted before, refused once what it names is gone: within
 * `seconds` (a server may keep a successful authentication for a short while: kube-apiserver
 * 1.28 caches a token's successful authentication for 10 s), then as checkRefused says.
 */
export async function checkRefusedWithin(c: Client, why: string, seconds = 15): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until && (await c.get('/api/v1/namespaces/default')).status !== 401)
    await new Promise((r) => setTimeout(r, 250));
  await checkRefused(c, `${why} (within ${seconds} s)`);
}

/**
 * Runs `body` with a fresh namespace on `c`'s target (a case routed to another target than
 * the main one cannot use the file's namespace fixture, which lives on the main target).
 */
export async function withNamespace<T>(
  c: Client,
  prefix: string,
  body: (ns: string) => Promise<T>,
): Promise<T> {
  const name = uniqueName(prefix);
  checkStatus(
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    201,
    undefined,
    `create namespace ${name}`,
  );
  try {
    return await body(name);
  } finally {
    await dropNamespace(c, name);
  }
}

/** The token's own claims signed again with the fixtures' key, after `change`. */
export async function resigned(
  f: AuthFixtures,
  token: string,
  change: (p: JWTPayload) => JWTPayload,
  key?: CryptoKey,
): Promise<string> {
  const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as {
    alg: string;
    kid?: string;
  };
  const k =
    key ?? ((await importPKCS8(readFileSync(f.serviceAccount.privateKey, 'utf8'), header.alg)) as CryptoKey);
  return new SignJWT(change(decodeJwt(token))).setProtectedHeader(header).sign(k);
}
