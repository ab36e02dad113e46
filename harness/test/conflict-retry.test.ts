// The read-modify-write helper makes a write again from a fresh read only when it met 409
// Conflict (a controller wrote in between), a few times at most, and answers what the last
// write got; a 409 AlreadyExists, or any other answer, is returned as it is.
import { describe, expect, it } from 'vitest';
import { type Client, makeResponse, type Response } from '../src/client.ts';
import { isConflict, retryOnConflict, updateFresh } from '../src/conflict-retry.ts';
import { dialect } from '../src/dialect.ts';

const answer = (method: string, status: number, body: unknown): Response =>
  makeResponse(
    method,
    '/x',
    status,
    { 'content-type': 'application/json' },
    Buffer.from(JSON.stringify(body)),
    dialect(),
  );
const status = (code: number, reason: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
});

describe('retryOnConflict and updateFresh', () => {
  it('tells a stale write (409 Conflict) from a name in use (409 AlreadyExists)', () => {
    expect(isConflict(answer('PUT', 409, status(409, 'Conflict')))).toBe(true);
    expect(isConflict(answer('POST', 409, status(409, 'AlreadyExists')))).toBe(false);
    expect(isConflict(answer('PUT', 422, status(422, 'Invalid')))).toBe(false);
  });

  it('tries again while the answer is 409 Conflict, at most the attempts given', async () => {
    let n = 0;
    const r = await retryOnConflict(
      async () => answer('PUT', ++n < 3 ? 409 : 200, n < 3 ? status(409, 'Conflict') : {}),
      5,
    );
    expect([r.status, n]).toEqual([200, 3]);
    n = 0;
    const last = await retryOnConflict(async () => {
      n++;
      return answer('PUT', 409, status(409, 'Conflict'));
    }, 4);
    expect([last.status, n]).toEqual([409, 4]);
    n = 0;
    const taken = await retryOnConflict(async () => {
      n++;
      return answer('POST', 409, status(409, 'AlreadyExists'));
    });
    expect([taken.statusObj?.reason, n]).toEqual(['AlreadyExists', 1]);
  });

  it('reads afresh before each write, and writes the change of what it read', async () => {
    let stored = { metadata: { name: 'o', resourceVersion: '1' }, spec: { n: 0 }, status: { by: 'nobody' } };
    const puts: { path: string; body: any }[] = [];
    const client = {
      get: async () => answer('GET', 200, stored),
      put: async (path: string, body: any) => {
        puts.push({ path, body });
        // a controller writes between the first read and the first write
        if (puts.length === 1) {
          stored = {
            ...stored,
            metadata: { ...stored.metadata, resourceVersion: '2' },
            status: { by: 'controller' },
          };
          return answer('PUT', 409, status(409, 'Conflict'));
        }
        return answer('PUT', 200, body);
      },
    } as unknown as Client;
    const r = await updateFresh(client, '/o', (cur) => ({ ...cur, spec: { n: cur.spec.n + 1 } }), {
      subresource: 'scale',
    });
    expect(r.status).toBe(200);
    expect(
      puts.map((p) => [p.path, p.body.metadata.resourceVersion, p.body.spec.n, p.body.status.by]),
    ).toEqual([
      ['/o/scale', '1', 1, 'nobody'],
      ['/o/scale', '2', 1, 'controller'],
    ]);
  });

  it('answers a failed read as it is', async () => {
    const client = { get: async () => answer('GET', 404, status(404, 'NotFound')) } as unknown as Client;
    const r = await updateFresh(client, '/o', (cur) => cur);
    expect(r.status).toBe(404);
  });
});
