// The signer of `orch.io/kube-apiserver-client` certificate requests: watches the requests
// and issues, from the signing CA, a certificate for each approved (not denied, not failed)
// one without a certificate yet: the requested subject and public key, client authentication
// with the requested key usages, valid for spec.expirationSeconds (at most a year, and never
// past the CA), backdated five minutes within that span. A request whose usages are not
// those of a client certificate (client auth, optionally digital signature and key
// encipherment) gets a Failed condition instead. The result goes through the `status`
// subresource as any signer's would.
import { randomBytes } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { KObject } from '../../storage/types.ts';
import {
  type CsrStatus,
  hasCondition,
  KUBE_APISERVER_CLIENT_SIGNER,
  specOf,
  statusOf,
} from '../kinds/certificatesigningrequest.ts';
import type { Registry } from '../registry.ts';
import type { GenericStore } from '../store.ts';
import type { RequestContext } from '../types.ts';
import type { SigningCa } from './signing-ca.ts';

const MAX_SECONDS = 365 * 24 * 3600;
const BACKDATE_MS = 5 * 60 * 1000;
const CTX: RequestContext = {
  user: { username: 'system:serviceaccount:orch-system:certificate-controller', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};

export interface CsrSigner {
  stop(): void;
  /** Resolves when no request is waiting or being signed (tests). */
  idle(): Promise<void>;
}

/** Why the usages do not suit a client certificate, or undefined when they do. */
export function clientUsageProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment')
      return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

export function startCsrSigner(registry: Registry, ca: SigningCa, now: () => number = Date.now): CsrSigner {
  const store = registry.byResource('certificates.orch.io', 'certificatesigningrequests')!.store;
  const queue = new Set<string>();
  let stopped = false;
  let running: Promise<void> | undefined;

  const pump = async () => {
    while (queue.size && !stopped) {
      const name = queue.values().next().value as string;
      queue.delete(name);
      try {
        await handle(store, ca, name, now);
      } catch (e) {
        if ((e as { code?: number }).code === 409) queue.add(name);
        else console.error(`certificatesigningrequest ${name}: cannot sign:`, e);
      }
    }
    running = undefined;
  };
  const enqueue = (name: string) => {
    queue.add(name);
    running ??= pump();
  };

  const rv = registry.storage.revision();
  for (const o of registry.storage.list(store.bucket, ''))
    if (o.obj.metadata.name) enqueue(o.obj.metadata.name);
  const cancel = registry.storage.watch(store.bucket, rv, (ev) => {
    if (!stopped && ev.obj.metadata.name && ev.type !== 'DELETED') enqueue(ev.obj.metadata.name);
  });
  return {
    stop() {
      stopped = true;
      cancel();
    },
    async idle() {
      while (running) await running;
    },
  };
}

async function handle(store: GenericStore, ca: SigningCa, name: string, now: () => number): Promise<void> {
  const cur = store.getStored('', name);
  if (!cur) return;
  const csr = cur.obj;
  const spec = specOf(csr);
  if (spec.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
  if (!hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied') || hasCondition(csr, 'Failed')) return;
  if (statusOf(csr).certificate) return;
  const status: CsrStatus = structuredClone(statusOf(csr));
  const problem = clientUsageProblem(spec.usages ?? []);
  if (problem) {
    const t = new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    status.conditions = [
      ...(status.conditions ?? []),
      {
        type: 'Failed',
        status: 'True',
        reason: 'SignerValidationFailure',
        message: problem,
        lastUpdateTime: t,
        lastTransitionTime: t,
      },
    ];
  } else {
    const pem = await sign(ca, Buffer.from(spec.request ?? '', 'base64').toString('latin1'), spec, now());
    status.certificate = Buffer.from(pem).toString('base64');
  }
  const next: KObject = { ...csr, metadata: { ...csr.metadata }, status };
  await store.update('', name, next, CTX, 'v1', 'status', { expectRv: cur.rv });
}

async function sign(
  ca: SigningCa,
  requestPem: string,
  spec: ReturnType<typeof specOf>,
  t: number,
): Promise<string> {
  const req = new x509.Pkcs10CertificateRequest(requestPem);
  const seconds = Math.min(spec.expirationSeconds ?? MAX_SECONDS, MAX_SECONDS);
  const notBefore = Math.max(t - BACKDATE_MS, ca.notBefore);
  const notAfter = Math.min(t - BACKDATE_MS + seconds * 1000, ca.notAfter);
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  let keyUsage = 0;
  for (const u of spec.usages ?? []) {
    if (u === 'digital signature') keyUsage |= x509.KeyUsageFlags.digitalSignature;
    if (u === 'key encipherment') keyUsage |= x509.KeyUsageFlags.keyEncipherment;
  }
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
  ];
  if (keyUsage) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: req.subjectName,
    issuer: ca.cert.subjectName,
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
    publicKey: req.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ca.signingAlgorithm,
    extensions,
  });
  return `${cert.toString('pem')}\n`;
}
