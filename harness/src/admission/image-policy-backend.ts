// The harness's ImageReview backend (doc3 "Review objects": ImageReview; plugin table:
// ImagePolicyWebhook), served over HTTPS for a target started with the connection file
// `writeImagePolicyFiles` writes. Its verdict depends only on the review, so cases can tell from
// the target's answers what was sent, whether answers were cached and whether calls were
// retried. The rules, by the first container image's repository name (before any `:`):
//   *-denied          denied, reason `image <image> is denied by the conformance backend`
//   *-flip            the first call for an image allows, every later one denies
//   *-flop            the first call for an image denies, every later one allows
//   *-flaky           the first two calls for an image fail with 500, later ones allow
//   *-down            every call fails with 500
//   anything else     allowed
// and, whatever the image: denied when the review carries an annotation
// `deny.image-policy.orch.io/<anything>` (forwarded pod annotations) or names a namespace
// ending in `-denied-ns`.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { issue, makeCa } from '../auth/pki.ts';
import type { Dialect } from '../dialect.ts';

export interface ImagePolicyBackend {
  url: string;
  ca: string;
  close(): Promise<void>;
}

/** The reason the backend gives for a denied image. */
export const deniedReason = (image: string) => `image ${image} is denied by the conformance backend`;

function verdict(
  spec: any,
  calls: Map<string, number>,
): { code: number; status?: { allowed: boolean; reason?: string } } {
  const images: string[] = (Array.isArray(spec?.containers) ? spec.containers : []).map((c: any) =>
    String(c?.image ?? ''),
  );
  const first = images[0] ?? '';
  const repo = first.split(':')[0] ?? '';
  const n = (calls.get(first) ?? 0) + 1;
  calls.set(first, n);
  for (const k of Object.keys(spec?.annotations ?? {}))
    if (k.startsWith('deny.image-policy.orch.io/'))
      return { code: 200, status: { allowed: false, reason: `annotation ${k} denies` } };
  if (typeof spec?.namespace === 'string' && spec.namespace.endsWith('-denied-ns'))
    return { code: 200, status: { allowed: false, reason: `namespace ${spec.namespace} is denied` } };
  if (repo.endsWith('-denied')) return { code: 200, status: { allowed: false, reason: deniedReason(first) } };
  if (repo.endsWith('-flip'))
    return { code: 200, status: n === 1 ? { allowed: true } : { allowed: false, reason: 'flipped' } };
  if (repo.endsWith('-flop'))
    return { code: 200, status: n === 1 ? { allowed: false, reason: 'flopped' } : { allowed: true } };
  if (repo.endsWith('-flaky')) return n <= 2 ? { code: 500 } : { code: 200, status: { allowed: true } };
  if (repo.endsWith('-down')) return { code: 500 };
  return { code: 200, status: { allowed: true } };
}

/** Starts the backend; `d` maps the target's words to the spec's (a kube-apiserver sends `image-policy.k8s.io` keys). */
export async function startImagePolicyBackend(d?: Dialect): Promise<ImagePolicyBackend> {
  const ca = await makeCa('orch-conformance-image-policy-ca');
  const leaf = await issue(ca, { cn: 'image-policy-backend', usage: 'server', hosts: ['127.0.0.1'] });
  const calls = new Map<string, number>();
  const server: Server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const v = verdict(d ? d.in(body?.spec) : body?.spec, calls);
      res.writeHead(v.code, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          v.status ? { apiVersion: body?.apiVersion, kind: 'ImageReview', status: v.status } : {},
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`,
    ca: ca.cert,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The TTLs and backoff the harness's configuration gives the target. */
export const IMAGE_POLICY_SETTINGS = {
  allowTTL: 3,
  denyTTL: 3,
  retryBackoff: 50,
  defaultAllow: false,
} as const;

/**
 * Writes, into `dir`, the connection file to the backend and an AdmissionConfiguration naming it
 * (`imagePolicy` with IMAGE_POLICY_SETTINGS); returns the configuration's path, for
 * `--admission-control-config-file`.
 */
export function writeImagePolicyFiles(
  dir: string,
  b: ImagePolicyBackend,
  extraPlugins: unknown[] = [],
  /** The words of the target (a kube-apiserver reads `apiserver.config.k8s.io`, `kubeConfigFile`). */
  d?: Dialect,
): string {
  writeFileSync(
    join(dir, 'image-policy-connection.yaml'),
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: image-policy',
      '  cluster:',
      `    server: ${b.url}`,
      `    certificate-authority-data: ${Buffer.from(b.ca).toString('base64')}`,
      'contexts:',
      '- name: image-policy',
      '  context: { cluster: image-policy }',
      'current-context: image-policy',
    ].join('\n'),
  );
  const file = join(dir, 'admission-configuration.json');
  const configuration = {
    apiVersion: 'apiserver.config.orch.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'ImagePolicyWebhook',
        configuration: {
          imagePolicy: {
            orchConfigFile: join(dir, 'image-policy-connection.yaml'),
            ...IMAGE_POLICY_SETTINGS,
          },
        },
      },
      ...extraPlugins,
    ],
  };
  writeFileSync(file, JSON.stringify(d ? d.out(configuration) : configuration));
  return file;
}
