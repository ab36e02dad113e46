// Certificates the suites make for themselves: certificate authorities, client certificates
// (subject common name and organizations, validity) and serving certificates for the
// harness's callback servers. ECDSA P-256 through WebCrypto and @peculiar/x509.
import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

/** A certificate and its private key, both PEM. */
export interface KeyPairPem {
  cert: string;
  key: string;
}

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']) as Promise<CryptoKey>;
}

let serial = Date.now();
const nextSerial = () => (++serial).toString(16).padStart(16, '0');

/** A self-signed certificate authority named `CN=<name>`. */
export async function makeCa(name: string): Promise<KeyPairPem> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 365 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    cert: `${cert.toString('pem')}\n`,
    key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}

export interface LeafOptions {
  /** Subject common name (omitted when undefined). */
  cn?: string;
  /** Subject organizations, in order. */
  orgs?: string[];
  /** Client (default) or server certificate. */
  usage?: 'client' | 'server';
  /** Subject alternative names of a server certificate (IP addresses or DNS names). */
  hosts?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

/** Escapes a value for an X.500 name string (RFC 4514). */
function rdnValue(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, '\\$1').replace(/^([ #])/, '\\$1');
}

/** A certificate issued by `ca`. */
export async function issue(ca: KeyPairPem, o: LeafOptions): Promise<KeyPairPem> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const parts = [
    ...(o.cn !== undefined ? [`CN=${rdnValue(o.cn)}`] : []),
    ...(o.orgs ?? []).map((g) => `O=${rdnValue(g)}`),
  ];
  const server = o.usage === 'server';
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject: parts.join(', '),
    issuer: caCert.subject,
    notBefore: o.notBefore ?? new Date(Date.now() - 60_000),
    notAfter: o.notAfter ?? new Date(Date.now() + 30 * DAY),
    signingKey: caKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([
        server ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
      ]),
      ...(server
        ? [
            new x509.SubjectAlternativeNameExtension(
              (o.hosts ?? ['127.0.0.1', 'localhost']).map((h) =>
                /^[\d.]+$/.test(h) || h.includes(':')
                  ? { type: 'ip' as const, value: h }
                  : { type: 'dns' as const, value: h },
              ),
            ),
          ]
        : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return {
    cert: `${cert.toString('pem')}\n`,
    key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}

/** A PEM certificate signing request (PKCS #10) for `CN=<cn>, O=<org>...`, with its key. */
export async function makeCsr(cn: string, orgs: string[] = []): Promise<{ csr: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [`CN=${rdnValue(cn)}`, ...orgs.map((g) => `O=${rdnValue(g)}`)].join(', '),
    keys,
    signingAlgorithm: ALG,
  });
  return {
    csr: `${req.toString('pem')}\n`,
    key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}
