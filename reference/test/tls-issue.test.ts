// The serving certificates the server issues itself (reference/src/http/tls-issue.ts, DER
// written without a certificate library): the same to-be-signed bytes @peculiar/x509 makes
// from the same keys, dates and fields, and certificates node's TLS accepts for the hosts.
import {
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  webcrypto,
  X509Certificate,
} from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { caTbs, issueCertificate, leafTbs, signed } from '../src/http/tls-issue.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function cryptoKeys(k: { publicKey: KeyObject; privateKey: KeyObject }): Promise<CryptoKeyPair> {
  const { subtle } = webcrypto;
  return {
    publicKey: await subtle.importKey(
      'spki',
      k.publicKey.export({ type: 'spki', format: 'der' }),
      ALG,
      true,
      ['verify'],
    ),
    privateKey: await subtle.importKey(
      'pkcs8',
      k.privateKey.export({ type: 'pkcs8', format: 'der' }),
      ALG,
      true,
      ['sign'],
    ),
  };
}

/** The first element of a DER SEQUENCE (a certificate's to-be-signed part). */
function firstElement(der: Buffer): Buffer {
  const header = (at: number) => {
    const l = der[at + 1]!;
    if (!(l & 0x80)) return { hl: 2, len: l };
    let len = 0;
    for (let k = 0; k < (l & 0x7f); k++) len = len * 256 + der[at + 2 + k]!;
    return { hl: 2 + (l & 0x7f), len };
  };
  const start = header(0).hl;
  const { hl, len } = header(start);
  return der.subarray(start, start + hl + len);
}

/** The certificates as @peculiar/x509 makes them (what the server issued before). */
async function withLibrary(
  caKeys: CryptoKeyPair,
  leafKeys: CryptoKeyPair,
  hosts: string[],
  notBefore: Date,
  notAfter: Date,
) {
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=orch-reference-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=orch-reference-server',
    issuer: ca.subject,
    notBefore,
    notAfter,
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
  return { ca: Buffer.from(ca.rawData), leaf: Buffer.from(leaf.rawData) };
}

describe('the serving certificate the server issues', () => {
  it.each([
    ['2026-01-02T03:04:05.678Z', '2027-01-02T03:04:05.678Z', ['127.0.0.1', '::1', 'localhost']],
    ['2049-06-30T23:59:59.999Z', '2050-06-30T23:59:59.999Z', ['10.1.2.3', 'fe80::12:3400', 'node.example']],
  ])('has the to-be-signed bytes @peculiar/x509 makes (%s to %s, %j)', async (from, until, hosts) => {
    const v = { notBefore: new Date(from), notAfter: new Date(until) };
    const caKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const leafKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const lib = await withLibrary(
      await cryptoKeys(caKeys),
      await cryptoKeys(leafKeys),
      hosts,
      v.notBefore,
      v.notAfter,
    );
    expect(caTbs(caKeys.publicKey, v).toString('hex')).toBe(firstElement(lib.ca).toString('hex'));
    expect(leafTbs(leafKeys.publicKey, caKeys.publicKey, hosts, v).toString('hex')).toBe(
      firstElement(lib.leaf).toString('hex'),
    );
    // and the whole certificate reads back as the library's does
    const ours = new x509.X509Certificate(
      new Uint8Array(signed(caTbs(caKeys.publicKey, v), caKeys.privateKey)),
    );
    expect(await ours.verify({ signatureOnly: true })).toBe(true);
  });

  it('is a CA and a leaf it signs for the hosts, valid from a minute ago for a year, with its key', async () => {
    const t0 = Date.now();
    const b = await issueCertificate(['127.0.0.1', '::1', 'localhost', '::ffff:10.0.0.1']);
    const ca = new X509Certificate(b.ca);
    const leaf = new X509Certificate(b.cert);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(b.key))).toBe(true);
    expect(leaf.subjectAltName).toBe(
      'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, IP Address:0:0:0:0:0:FFFF:A00:1',
    );
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const from = Date.parse(leaf.validFrom);
    expect(from).toBeGreaterThan(t0 - 62_000);
    expect(from).toBeLessThanOrEqual(t0 - 59_000);
    expect(Date.parse(leaf.validTo) - from).toBe(365 * 24 * 3600 * 1000 + 60_000);
    for (const pem of [b.cert, b.ca, b.key])
      expect(pem).toMatch(/^-----BEGIN [A-Z ]+-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END [A-Z ]+-----\n$/);
  });

  it("node's TLS client trusts it for 127.0.0.1 and localhost with the CA", async () => {
    const b = await issueCertificate(['127.0.0.1', '::1', 'localhost']);
    const server = createServer({ key: b.key, cert: b.cert }, (s) => s.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      for (const servername of [undefined, 'localhost']) {
        const socket = connect({ host: '127.0.0.1', port, ca: b.ca, servername });
        await once(socket, 'secureConnect');
        expect(socket.authorized).toBe(true);
        socket.destroy();
      }
      const other = connect({ host: '127.0.0.1', port, ca: b.ca, servername: 'elsewhere.example' });
      const [err] = (await once(other, 'error')) as [NodeJS.ErrnoException];
      expect(err.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    } finally {
      server.close();
    }
  });
});
