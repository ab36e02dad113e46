// ImagePolicyWebhook (doc3 plugin table and its configuration block; the review and the
// messages as Kubernetes 1.28) against a real HTTPS backend: the ImageReview sent, allow and
// deny, the TTL caches, retries with backoff, defaultAllow, and configurations refused at start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCertificate } from '../src/http/tls.ts';
import { build } from '../src/index.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-ipw-'));
let backend: Server;
let url: string;
let ca: string;
const reviews: any[] = [];
/** How many calls to fail (500) before answering. */
let failNext = 0;

const readAll = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

beforeAll(async () => {
  const cert = await generateCertificate();
  ca = cert.ca;
  backend = createHttpsServer({ key: cert.key, cert: cert.cert }, async (req, res) => {
    const body = JSON.parse(await readAll(req));
    reviews.push(body);
    if (failNext > 0) {
      failNext--;
      res.writeHead(500).end('{}');
      return;
    }
    const bad = body.spec.containers.filter((c: any) => c.image.includes('evil')).map((c: any) => c.image);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...body,
        status: bad.length
          ? { allowed: false, reason: `images ${bad.join(', ')} are evil` }
          : { allowed: true },
      }),
    );
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  url = `https://127.0.0.1:${(backend.address() as AddressInfo).port}/review`;
});
afterAll(async () => {
  await new Promise<void>((r) => backend.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function files(name: string, policy: Record<string, unknown>, server = url): string {
  writeFileSync(
    join(dir, `${name}-conn.yaml`),
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: b',
      '  cluster:',
      `    server: ${server}`,
      `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`,
    ].join('\n'),
  );
  const p = join(dir, `${name}.json`);
  writeFileSync(
    p,
    JSON.stringify({
      apiVersion: 'apiserver.config.orch.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        {
          name: 'ImagePolicyWebhook',
          configuration: { imagePolicy: { orchConfigFile: `${name}-conn.yaml`, ...policy } },
        },
      ],
    }),
  );
  return p;
}

const pod = (name: string, images: string[], annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, annotations },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
});

describe('configuration', () => {
  it('refuses a plain-HTTP backend, a missing block and out-of-range numbers at start', async () => {
    const start = (file: string) =>
      build({
        inMemory: true,
        tls: false,
        enableAdmissionPlugins: ['ImagePolicyWebhook'],
        admissionControlConfigFile: file,
      });
    await expect(start(files('http', {}, 'http://127.0.0.1:1/'))).rejects.toThrow(/must be https/);
    await expect(start(files('ttl', { allowTTL: -1 }))).rejects.toThrow(/allowTTL/);
    await expect(
      build({ inMemory: true, tls: false, enableAdmissionPlugins: ['ImagePolicyWebhook'] }),
    ).rejects.toThrow(/imagePolicy/);
  });
});

describe('on a server', () => {
  let ts: TestServer;
  let open: TestServer;
  beforeAll(async () => {
    ts = await startServer({
      enableAdmissionPlugins: ['ImagePolicyWebhook'],
      admissionControlConfigFile: files('main', { allowTTL: 1, denyTTL: 1, retryBackoff: 10 }),
    });
    open = await startServer({
      enableAdmissionPlugins: ['ImagePolicyWebhook'],
      admissionControlConfigFile: files('open', {
        allowTTL: 0,
        denyTTL: 0,
        retryBackoff: 1,
        defaultAllow: true,
      }),
    });
  });
  afterAll(async () => {
    await ts?.close();
    await open?.close();
  });

  it('sends an ImageReview with the images, the namespace and the image-policy annotations', async () => {
    reviews.length = 0;
    const r = await ts.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod(uniqueName('p'), ['good:1', 'good:2'], {
        'mycluster.image-policy.orch.io/ticket': '42',
        'other.orch.io/x': 'no',
      }),
    );
    expect(r.status, r.text).toBe(201);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toEqual({
      apiVersion: 'imagepolicy.orch.io/v1alpha1',
      kind: 'ImageReview',
      spec: {
        containers: [{ image: 'good:1' }, { image: 'good:2' }],
        namespace: 'default',
        annotations: { 'mycluster.image-policy.orch.io/ticket': '42' },
      },
    });
  });

  it("a denial refuses the pod with the backend's reason; answers are cached for their TTL", async () => {
    reviews.length = 0;
    const name = uniqueName('p');
    const r = await ts.req('POST', '/api/v1/namespaces/default/pods', pod(name, ['evil:1']));
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      `pods "${name}" is forbidden: image policy webhook backend denied one or more images: images evil:1 are evil`,
    );
    expect(
      (await ts.req('POST', '/api/v1/namespaces/default/pods', pod(uniqueName('p'), ['evil:1']))).status,
    ).toBe(403);
    expect(reviews).toHaveLength(1);
    await new Promise((res) => setTimeout(res, 1100));
    expect(
      (await ts.req('POST', '/api/v1/namespaces/default/pods', pod(uniqueName('p'), ['evil:1']))).status,
    ).toBe(403);
    expect(reviews).toHaveLength(2);
  });

  it('a failing backend is retried; when it keeps failing, defaultAllow decides', async () => {
    reviews.length = 0;
    failNext = 2;
    expect(
      (await ts.req('POST', '/api/v1/namespaces/default/pods', pod(uniqueName('p'), ['retry:1']))).status,
    ).toBe(201);
    expect(reviews).toHaveLength(3);
    failNext = 100;
    const closed = await ts.req('POST', '/api/v1/namespaces/default/pods', pod(uniqueName('p'), ['down:1']));
    expect(closed.status).toBe(403);
    expect(closed.json.message).toContain('image policy webhook backend failed');
    const opened = await open.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod(uniqueName('p'), ['down:2']),
    );
    expect(opened.status, opened.text).toBe(201);
    expect(opened.json.metadata.annotations['alpha.image-policy.orch.io/failed-open']).toBe('true');
    failNext = 0;
  });
});
