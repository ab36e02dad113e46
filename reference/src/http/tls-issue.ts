// A new serving certificate: a CA and a leaf for the given hosts (ECDSA P-256 through
// WebCrypto and @peculiar/x509). tls.ts loads this module only when it issues one.
import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface CertBundle {
  key: string;
  cert: string;
  ca: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

export async function issueCertificate(hosts: string[]): Promise<CertBundle> {
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = new Date(Date.now() - 60_000);
  const until = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=orch-reference-ca',
    notBefore: now,
    notAfter: until,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=orch-reference-server',
    issuer: ca.subject,
    notBefore: now,
    notAfter: until,
    signingKey: caKeys.privateKey,
    publicKey: leafKeys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((h) =>
          /^[\d.]+$/.test(h) || h.includes(':')
            ? { type: 'ip' as const, value: h }
            : { type: 'dns' as const, value: h },
        ),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keyDer = await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey);
  return { key: pemKey(keyDer), cert: leaf.toString('pem') + '\n', ca: ca.toString('pem') + '\n' };
}
