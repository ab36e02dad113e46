// The harness's side of authentication during a run (doc3 "Authentication", "Other
// callbacks"): an OpenID Connect issuer (discovery document and key set over HTTPS) and a
// token webhook that answers TokenReview for the tokens of the fixtures. Both count the
// requests they get, so cases can check that the target caches (no call per request).
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AuthFixtures } from './fixtures.ts';

/** Where the webhook server tells the counts (GET, same HTTPS server). */
export const COUNTS_PATH = '/conformance/counts';

export interface CallbackCounts {
  discovery: number;
  jwks: number;
  tokenReviews: number;
  /** The apiVersion of the last TokenReview the webhook received. */
  lastReviewVersion?: string;
  /** TokenReviews per token (keyed by tokenKey(token): cases running at once send other tokens). */
  byToken: Record<string, number>;
}

/** The key of a token in CallbackCounts.byToken. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

export interface AuthCallbacks {
  counts: CallbackCounts;
  /** The TokenReview bodies the webhook received, oldest first. */
  reviews: unknown[];
  close(): Promise<void>;
}

/** The public half of a private JWK (RSA or EC). */
function publicJwk(jwk: Record<string, unknown>): Record<string, unknown> {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok());
  });
}

/** Starts the issuer and the token webhook on the ports the fixtures name. */
export async function startAuthCallbacks(f: AuthFixtures): Promise<AuthCallbacks> {
  const counts: CallbackCounts = { discovery: 0, jwks: 0, tokenReviews: 0, byToken: {} };
  const reviews: unknown[] = [];
  const jwk = JSON.parse(readFileSync(f.oidc.signingJwk, 'utf8')) as Record<string, unknown>;
  const issuerPath = new URL(f.oidc.issuerUrl).pathname.replace(/\/$/, '');

  const issuer = createServer(
    { cert: readFileSync(f.oidc.serverCert), key: readFileSync(f.oidc.serverKey) },
    (req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const json = (code: number, body: unknown) => {
        res.writeHead(code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === `${issuerPath}/.well-known/openid-configuration`) {
        counts.discovery++;
        return json(200, {
          issuer: f.oidc.issuerUrl,
          jwks_uri: `${f.oidc.issuerUrl}/keys`,
          id_token_signing_alg_values_supported: ['RS256'],
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
        });
      }
      if (path === `${issuerPath}/keys`) {
        counts.jwks++;
        return json(200, { keys: [publicJwk(jwk)] });
      }
      json(404, { error: 'not found' });
    },
  );

  const known = new Map(f.webhook.tokens.map((t) => [t.token, t]));
  const webhook = createServer(
    { cert: readFileSync(f.webhook.serverCert), key: readFileSync(f.webhook.serverKey) },
    (req, res) => {
      if (req.method === 'GET' && req.url === COUNTS_PATH) {
        // the cases run in other processes: they read the counts here
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(counts));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        counts.tokenReviews++;
        let review: { apiVersion?: string; spec?: { token?: string; audiences?: string[] } };
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400, { 'Content-Type': 'text/plain' });
          res.end('not JSON');
          return;
        }
        reviews.push(review);
        counts.lastReviewVersion = review.apiVersion;
        const k = tokenKey(review.spec?.token ?? '');
        counts.byToken[k] = (counts.byToken[k] ?? 0) + 1;
        const t = known.get(review.spec?.token ?? '');
        const status = t
          ? {
              authenticated: true,
              user: { username: t.user, uid: t.uid, groups: t.groups },
              audiences: review.spec?.audiences,
            }
          : { authenticated: false, error: 'token unknown to the conformance webhook' };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
      });
    },
  );

  await listen(issuer, f.callbackHost, f.oidc.port);
  try {
    await listen(webhook, f.callbackHost, f.webhook.port);
  } catch (e) {
    issuer.close();
    throw e;
  }
  return {
    counts,
    reviews,
    close: async () => {
      for (const s of [issuer, webhook]) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}
