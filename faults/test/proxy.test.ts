// The fault proxy records what goes wrong in itself: a fault hook that throws is answered 502
// (which a suite would take for the fault's doing) and recorded in `errors`, so the fault meta
// test can fail on it; a watch hook that throws ends the stream and is recorded too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../proxy.ts';

describe('the fault proxy records its own errors', () => {
  let upstream: Server;
  let target: string;
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.url?.includes('watch=1')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED","object":{}}\n');
        setTimeout(() => res.end('{"type":"ADDED","object":{}}\n'), 50);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

  it('a clean proxy records nothing', async () => {
    const p = await startFaultProxy({ target });
    try {
      expect((await fetch(`${p.url}/api/v1/namespaces`)).status).toBe(200);
      expect(p.errors).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('a response hook that throws is answered 502 and recorded', async () => {
    const p = await startFaultProxy({
      target,
      fault: {
        name: 'throws',
        response: () => {
          throw new Error('hook failed');
        },
      },
    });
    try {
      expect((await fetch(`${p.url}/api/v1/namespaces`)).status).toBe(502);
      expect(p.errors.join('\n')).toContain('hook failed');
    } finally {
      await p.close();
    }
  });

  it('a watch hook that throws ends the stream and is recorded', async () => {
    const p = await startFaultProxy({
      target,
      fault: {
        name: 'throws-on-watch',
        watch: () => {
          throw new Error('watch hook failed');
        },
      },
    });
    try {
      const r = await fetch(`${p.url}/api/v1/namespaces?watch=1`);
      await r.text();
      expect(p.errors.join('\n')).toContain('watch hook failed');
    } finally {
      await p.close();
    }
  });
});
