// A new serving certificate: a CA and a leaf for the given hosts, ECDSA P-256 keys and
// signatures from node:crypto. The two certificates have a fixed shape, so they are written
// as DER here rather than with a certificate library (which takes a few hundred
// milliseconds to load, at every start of an in-memory server):
//   CA:   serial 1, CN=orch-reference-ca issuer and subject; basicConstraints CA:TRUE and
//         keyUsage keyCertSign, cRLSign (both critical); subjectKeyIdentifier
//   leaf: serial 2, CN=orch-reference-server; basicConstraints CA:FALSE and keyUsage
//         digitalSignature, keyEncipherment (both critical); extKeyUsage serverAuth;
//         subjectAltName (an IP address for a host of digits and dots or with a colon, else
//         a DNS name); authorityKeyIdentifier
// Both valid from a minute ago for a year. Key identifiers are the SHA-1 of the public key
// (RFC 5280 4.2.1.2, method 1). tls.ts loads this module only when it issues a certificate.
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

export interface CertBundle {
  key: string;
  cert: string;
  ca: string;
}

// --- DER
function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let len: number[];
  if (n < 0x80) len = [n];
  else {
    len = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v % 256);
    len.unshift(0x80 | len.length);
  }
  return Buffer.concat([Buffer.from([tag, ...len]), body]);
}
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const TRUE = tlv(0x01, Buffer.from([0xff]));

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out: number[] = [];
  for (const arc of [40 * a + b, ...rest]) {
    const groups = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5), to the second. */
function time(d: Date): Buffer {
  const iso = d
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:T]/g, '');
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

/** A name of one common name (a PrintableString). */
const commonName = (cn: string) => seq(set(seq(oid('2.5.4.3'), tlv(0x13, Buffer.from(cn, 'latin1')))));

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), TRUE, octets(value)) : seq(oid(id), octets(value));
}

// --- the certificates
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const CA_NAME = 'orch-reference-ca';
const LEAF_NAME = 'orch-reference-server';
const BASIC_CONSTRAINTS = '2.5.29.19';
const KEY_USAGE = '2.5.29.15';
const SUBJECT_KEY_ID = '2.5.29.14';
const EXT_KEY_USAGE = '2.5.29.37';
const SUBJECT_ALT_NAME = '2.5.29.17';
const AUTHORITY_KEY_ID = '2.5.29.35';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
/** keyUsage bits: keyCertSign and cRLSign (bits 5 and 6), digitalSignature and keyEncipherment (0 and 2). */
const CA_USAGE = Buffer.from([0x03, 0x02, 0x01, 0x06]);
const LEAF_USAGE = Buffer.from([0x03, 0x02, 0x05, 0xa0]);

export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

const spki = (k: KeyObject) => k.export({ type: 'spki', format: 'der' });

/** SHA-1 of the public key's bits (the BIT STRING's content past its unused-bits octet). */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const der = spki(publicKey);
  // P-256: 26 octets of algorithm and BIT STRING header, then the 65-octet point
  if (der.length !== 91) throw new Error('not a P-256 public key');
  return createHash('sha1').update(der.subarray(26)).digest();
}

function tbs(
  serial: number,
  issuer: string,
  subject: string,
  v: Validity,
  publicKey: KeyObject,
  extensions: Buffer[],
): Buffer {
  return seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, Buffer.from([serial])),
    ECDSA_SHA256,
    commonName(issuer),
    seq(time(v.notBefore), time(v.notAfter)),
    commonName(subject),
    spki(publicKey),
    tlv(0xa3, seq(...extensions)),
  );
}

/** The CA's to-be-signed part. */
export function caTbs(publicKey: KeyObject, v: Validity): Buffer {
  return tbs(1, CA_NAME, CA_NAME, v, publicKey, [
    extension(BASIC_CONSTRAINTS, true, seq(TRUE)),
    extension(KEY_USAGE, true, CA_USAGE),
    extension(SUBJECT_KEY_ID, false, octets(keyIdentifier(publicKey))),
  ]);
}

function altName(host: string): Buffer {
  if (!/^[\d.]+$/.test(host) && !host.includes(':')) return tlv(0x82, Buffer.from(host, 'latin1'));
  if (isIPv4(host)) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (!isIPv6(host)) throw new Error(`invalid IP address "${host}"`);
  return tlv(0x87, ipv6Octets(host));
}

function ipv6Octets(host: string): Buffer {
  // no zone index; an IPv4 address in the last 32 bits as two groups
  let text = host.replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  for (const [i, g] of groups.entries()) out.writeUInt16BE(Number.parseInt(g, 16), 2 * i);
  return out;
}

/** The leaf's to-be-signed part. */
export function leafTbs(publicKey: KeyObject, caPublicKey: KeyObject, hosts: string[], v: Validity): Buffer {
  return tbs(2, CA_NAME, LEAF_NAME, v, publicKey, [
    extension(BASIC_CONSTRAINTS, true, seq()),
    extension(KEY_USAGE, true, LEAF_USAGE),
    extension(EXT_KEY_USAGE, false, seq(oid(SERVER_AUTH))),
    extension(SUBJECT_ALT_NAME, false, seq(...hosts.map(altName))),
    extension(AUTHORITY_KEY_ID, false, seq(tlv(0x80, keyIdentifier(caPublicKey)))),
  ]);
}

/** The certificate: its to-be-signed part, the algorithm and the signature (ECDSA-Sig-Value, DER). */
export function signed(toBeSigned: Buffer, key: KeyObject): Buffer {
  return seq(toBeSigned, ECDSA_SHA256, bits(sign('sha256', toBeSigned, key)));
}

const pem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})(?!$)/g, '$1\n')}\n-----END CERTIFICATE-----\n`;

export async function issueCertificate(hosts: string[]): Promise<CertBundle> {
  const v = {
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 365 * 24 * 3600 * 1000),
  };
  const caKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leafKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ca = signed(caTbs(caKeys.publicKey, v), caKeys.privateKey);
  const leaf = signed(leafTbs(leafKeys.publicKey, caKeys.publicKey, hosts, v), caKeys.privateKey);
  return {
    key: leafKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: pem(leaf),
    ca: pem(ca),
  };
}
