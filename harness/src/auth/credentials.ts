// Credentials the authentication cases present, made from the fixtures the target trusts
// (fixtures.ts): clients with a client certificate, with a token, through the authenticating
// proxy, anonymous; tokens signed with the service-account key or the OIDC issuer's key,
// with the claims a case wants (expired, wrong audience, ...). Also the identity a server
// sees, read through SelfSubjectReview.
import { readFileSync } from 'node:fs';
import { importJWK, importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { Agent, request } from 'undici';
import { checkStatus } from '../assert.ts';
import { Client } from '../client.ts';
import type { Target } from '../target.ts';
import { COUNTS_PATH, type CallbackCounts } from './callbacks.ts';
import type { AuthFixtures } from './fixtures.ts';
import { issue, type LeafOptions } from './pki.ts';

/** A client of `base`'s endpoints (its rotation shared) with other credentials (none of the base's own). */
export function clientWith(base: Target, creds: { token?: string; cert?: string; key?: string }): Client {
  return new Client({
    url: base.url,
    endpoints: base.endpoints,
    ca: base.ca,
    insecure: base.insecure,
    dialect: base.dialect,
    ...creds,
  });
}

/** A client presenting a certificate issued by the fixtures' client CA. */
export async function clientCertClient(base: Target, f: AuthFixtures, o: LeafOptions): Promise<Client> {
  const kp = await issue(
    { cert: readFileSync(f.clientCa.cert, 'utf8'), key: readFileSync(f.clientCa.key, 'utf8') },
    o,
  );
  return clientWith(base, kp);
}

/** A client presenting the authenticating proxy's certificate (the proxy then names the user in headers). */
export function proxyClient(base: Target, f: AuthFixtures): Client {
  return clientWith(base, {
    cert: readFileSync(f.requestHeader.proxyCert, 'utf8'),
    key: readFileSync(f.requestHeader.proxyKey, 'utf8'),
  });
}

/** A service-account token signed with the fixtures' key, with the claims given (and sane defaults). */
export async function serviceAccountJwt(
  f: AuthFixtures,
  claims: JWTPayload,
  o: { expiresIn?: number | string } = {},
): Promise<string> {
  const key = await importPKCS8(readFileSync(f.serviceAccount.privateKey, 'utf8'), f.serviceAccount.alg);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: f.serviceAccount.issuer, iat: now, nbf: now, ...claims })
    .setProtectedHeader({ alg: f.serviceAccount.alg })
    .setExpirationTime(o.expiresIn ?? '1h')
    .sign(key);
}

/** An id_token signed by the fixtures' OIDC issuer. */
export async function oidcIdToken(
  f: AuthFixtures,
  claims: JWTPayload,
  o: { expiresIn?: number | string; kid?: string } = {},
): Promise<string> {
  const jwk = JSON.parse(readFileSync(f.oidc.signingJwk, 'utf8')) as { kid: string; alg: string };
  const key = await importJWK(jwk, 'RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: f.oidc.issuerUrl,
    aud: f.oidc.clientId,
    iat: now,
    ...f.oidc.requiredClaims,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? jwk.kid })
    .setExpirationTime(o.expiresIn ?? '1h')
    .sign(key);
}

/** How many calls the harness's issuer and token webhook have had (from any process). */
export async function callbackCounts(f: AuthFixtures): Promise<CallbackCounts> {
  const r = await request(`${new URL(f.webhook.url).origin}${COUNTS_PATH}`, {
    dispatcher: new Agent({ connect: { ca: readFileSync(f.webhook.ca, 'utf8') } }),
  });
  if (r.statusCode !== 200)
    throw new Error(`harness callback server: GET ${COUNTS_PATH} answered ${r.statusCode}`);
  return (await r.body.json()) as CallbackCounts;
}

export interface SeenUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * Who the server takes the client for (doc3 "Self review"): the userInfo of a
 * SelfSubjectReview, or the refusal (status and Status) when the request is not authenticated.
 */
export async function whoAmI(c: Client): Promise<{ status: number; user?: SeenUser; describe: string }> {
  const r = await c.post('/apis/authentication.orch.io/v1beta1/selfsubjectreviews', {
    apiVersion: 'authentication.orch.io/v1beta1',
    kind: 'SelfSubjectReview',
  });
  return { status: r.status, user: r.json?.status?.userInfo, describe: r.describe() };
}

/** Creates a ServiceAccount and asks a token for it; returns the token and the account's uid. */
export async function serviceAccountToken(
  c: Client,
  ns: string,
  name: string,
  spec: Record<string, unknown> = {},
): Promise<{ token: string; uid: string }> {
  const sa = await c.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name },
  });
  if (sa.status !== 201 && sa.status !== 409)
    throw new Error(`cannot create ServiceAccount ${ns}/${name}: ${sa.describe()}`);
  const uid = (await c.get(`/api/v1/namespaces/${ns}/serviceaccounts/${name}`)).json?.metadata?.uid;
  const r = await c.post(`/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.orch.io/v1',
    kind: 'TokenRequest',
    spec,
  });
  checkStatus(r, 201, undefined, `TokenRequest for ServiceAccount ${ns}/${name}`);
  return { token: r.json.status.token, uid };
}
