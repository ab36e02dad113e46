// Bad input to authentication and authorization (doc3 "Authentication", "Review objects",
// "Bootstrap token secret", "Certificate signing request", "Self review", "Errors"), against
// one server with every authentication method and RBAC on: malformed certificates, bearer
// tokens, JWTs, bootstrap tokens, proxy and impersonation headers and review bodies each get
// a well-formed Status with Kubernetes 1.28's code and reason, never a 5xx, and none reads
// or changes what it aimed at. The controls show each identity the rows spoil does read the
// target when well-formed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CSR_PATH,
  type Fixture,
  PENDING_CSR,
  SECRET_VALUE,
  startFixture,
  TOKENS,
} from './auth-bad-input-fixture.ts';
import { CONTROLS, ROWS, type Row } from './auth-bad-input-table.ts';

let f: Fixture;

beforeAll(async () => {
  f = await startFixture();
  // the issuer's keys load in the background: wait for the OIDC control to pass
  const until = Date.now() + 10_000;
  for (;;) {
    const r = await f.send(await CONTROLS.find((c) => c.name.startsWith('the OIDC'))!.attempt(f));
    if (r.status === 200 || Date.now() > until) break;
    await new Promise((res) => setTimeout(res, 50));
  }
}, 60_000);

afterAll(async () => {
  await f?.close();
});

describe('controls: each identity, well-formed, reads the target', () => {
  it.each(CONTROLS.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const r = await f.send(await c.attempt(f));
    expect(r.status, r.text).toBe(200);
    expect(r.json?.data?.value).toBe(Buffer.from(SECRET_VALUE).toString('base64'));
  });
});

describe('token reviews read spec.token exactly, not as an Authorization header', () => {
  const review = (token: string) =>
    f.send({
      method: 'POST',
      path: '/apis/authentication.orch.io/v1/tokenreviews',
      headers: [['Authorization', `Bearer ${f.admin}`]],
      body: JSON.stringify({ apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token } }),
    });
  it.each([
    ['a valid token followed by a word', (t: string) => `${t} more`],
    ['a valid token after a space', (t: string) => ` ${t}`],
    ['`Bearer <valid token>`', (t: string) => `Bearer ${t}`],
  ])('%s is not authenticated', async (_, make) => {
    const r = await review(make(TOKENS.alice));
    expect(r.status, r.text).toBe(201);
    expect(r.json.status.authenticated).toBe(false);
    expect(r.json.status.user ?? {}).toEqual({});
  });
  it('the valid token itself is', async () => {
    const r = await review(TOKENS.alice);
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toMatchObject({ authenticated: true, user: { username: 'alice' } });
  });
});

async function guarded(row: Row, text: string): Promise<void> {
  const g = row.guard;
  if (g.kind === 'read') {
    expect(text).not.toContain(SECRET_VALUE);
    expect(text).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'));
  } else if (g.kind === 'absent') {
    const r = await f.adminReq('GET', g.path);
    expect(r.status, r.text).toBe(404);
  } else if (g.kind === 'nothing-issued') {
    expect(text).not.toMatch(/"token"\s*:/);
  } else {
    const r = await f.adminReq('GET', `${CSR_PATH}/${PENDING_CSR}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status?.conditions ?? []).toEqual([]);
    expect(r.json.status?.certificate).toBeUndefined();
  }
}

for (const area of [...new Set(ROWS.map((r) => r.area))]) {
  describe(`bad ${area} input`, () => {
    const rows = ROWS.filter((r) => r.area === area);
    it.each(rows.map((r) => [`${r.name}: ${r.code} ${r.reason}`, r] as const))('%s', async (_, row) => {
      const r = await f.send(await row.attempt(f));
      expect(r.incomplete, r.text).toBe(false);
      expect(r.status, r.text).toBeLessThan(500);
      expect(r.status, r.text).toBe(row.code);
      expect(r.headers['content-type'] ?? '').toMatch(/^application\/json/);
      expect(r.json, r.text).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: row.code,
        reason: row.reason,
      });
      expect(typeof r.json.message).toBe('string');
      expect(r.json.message.length).toBeGreaterThan(0);
      if (row.warning) expect(r.headers.warning ?? '').toMatch(row.warning);
      await guarded(row, r.text);
      // the server carries on
      const ready = await f.adminReq('GET', '/readyz');
      expect(ready.status).toBe(200);
    });
  });
}
