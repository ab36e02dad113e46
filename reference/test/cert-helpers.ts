// Test support for the certificate methods: CAs and certificates made with @peculiar/x509
// (ECDSA P-256), as PEM, with the subject, dates and usages a test asks for.
import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;
let serial = 100;

export interface Issued {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  certPem: string;
  keyPem: string;
}

export async function keyPem(k: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', k);
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

export async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

export async function makeCa(cn: string): Promise<Issued> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    name: `CN=${cn}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys, certPem: `${cert.toString('pem')}\n`, keyPem: await keyPem(keys.privateKey) };
}

export interface IssueOptions {
  /** e.g. `CN=jane, O=dev, O=ops` */
  subject: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Extended key usages (default client auth); [] for none. */
  usages?: string[];
  /** Issue a CA (an intermediate). */
  isCa?: boolean;
  /** IP addresses the certificate names (subject alternative names), for a server. */
  ipAddresses?: string[];
}

export async function issue(ca: Issued, o: IssueOptions): Promise<Issued> {
  const keys = await newKeys();
  const usages = o.usages ?? [x509.ExtendedKeyUsage.clientAuth];
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(o.isCa === true, undefined, true),
    new x509.KeyUsagesExtension(
      o.isCa ? x509.KeyUsageFlags.keyCertSign : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (usages.length) extensions.push(new x509.ExtendedKeyUsageExtension(usages));
  if (o.ipAddresses?.length)
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        o.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ),
    );
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject: o.subject,
    issuer: ca.cert.subject,
    notBefore: o.notBefore ?? new Date(Date.now() - DAY),
    notAfter: o.notAfter ?? new Date(Date.now() + 30 * DAY),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions,
  });
  return { cert, keys, certPem: `${cert.toString('pem')}\n`, keyPem: await keyPem(keys.privateKey) };
}

/** A PEM certificate signing request for the subject `name` (e.g. `CN=alice, O=devs`), with its keys. */
export async function csrPem(name: string): Promise<{ pem: string; keys: CryptoKeyPair }> {
  const keys = await newKeys();
  const r = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
  });
  return { pem: `${r.toString('pem')}\n`, keys };
}
