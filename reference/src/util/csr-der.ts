// A PKCS #10 certificate request in PEM, read far enough to check it as the cluster does on
// create: one `CERTIFICATE REQUEST` block whose self-signature verifies with the public key
// it carries. Verified synchronously (node's crypto), for the common signature algorithms.
import { createPublicKey, verify } from 'node:crypto';

interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  at: number;
  /** Offset of the contents. */
  start: number;
  /** Offset just past the contents. */
  end: number;
}

function tlv(b: Buffer, at: number, limit = b.length): Tlv {
  if (at + 2 > limit) throw new Error('asn1: truncated');
  const tag = b[at]!;
  let len = b[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > limit) throw new Error('asn1: bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[start + i]!;
    start += n;
  }
  const end = start + len;
  if (end > limit) throw new Error('asn1: truncated');
  return { tag, at, start, end };
}

/** Digest of each known signature algorithm (by OID, hex), null for Ed25519. */
const ALGORITHMS: Record<string, string | null> = {
  '2a864886f70d010105': 'sha1',
  '2a864886f70d01010b': 'sha256',
  '2a864886f70d01010c': 'sha384',
  '2a864886f70d01010d': 'sha512',
  '2a8648ce3d040302': 'sha256',
  '2a8648ce3d040303': 'sha384',
  '2a8648ce3d040304': 'sha512',
  '2b6570': null,
};

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/;

/** The reason a PEM text is not a valid certificate request, or undefined when it is. */
export function certificateRequestProblem(pem: string): string | undefined {
  const m = BLOCK.exec(pem);
  if (m?.[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const der = Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64');
  try {
    const outer = tlv(der, 0);
    if (outer.tag !== 0x30) return 'asn1: structure error: not a certificate request';
    const info = tlv(der, outer.start, outer.end);
    const alg = tlv(der, info.end, outer.end);
    const sig = tlv(der, alg.end, outer.end);
    if (info.tag !== 0x30 || alg.tag !== 0x30 || sig.tag !== 0x03)
      return 'asn1: structure error: not a certificate request';
    // certificationRequestInfo: version, subject, subjectPKInfo, attributes
    const version = tlv(der, info.start, info.end);
    const subject = tlv(der, version.end, info.end);
    const spki = tlv(der, subject.end, info.end);
    const oid = tlv(der, alg.start, alg.end);
    if (oid.tag !== 0x06) return 'asn1: structure error: bad signature algorithm';
    const hash = ALGORITHMS[der.subarray(oid.start, oid.end).toString('hex')];
    if (hash === undefined) return 'x509: cannot verify signature: algorithm unimplemented';
    const key = createPublicKey({ key: der.subarray(spki.at, spki.end), format: 'der', type: 'spki' });
    const ok = verify(hash, der.subarray(info.at, info.end), key, der.subarray(sig.start + 1, sig.end));
    return ok ? undefined : 'x509: signature verification failure';
  } catch (e) {
    return (e as Error).message.startsWith('asn1')
      ? (e as Error).message
      : `x509: malformed certificate request: ${(e as Error).message}`;
  }
}

/** The reason a PEM text is not one or more CERTIFICATE blocks only, or undefined. */
export function certificateChainProblem(pem: string): string | undefined {
  let rest = pem;
  let n = 0;
  for (;;) {
    const m = BLOCK.exec(rest);
    if (!m) break;
    if (m[1] !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${m[1]}"`;
    n++;
    rest = rest.slice(m.index + m[0].length);
  }
  if (n === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}
