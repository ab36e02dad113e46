// Verification of a client certificate chain against a set of trusted CAs, as the cluster's
// certificate methods do it themselves (the TLS listener only asks for a certificate): each
// link's signature and issuer, intermediates that are CAs, every certificate within its
// validity dates at the time of the request, and a leaf usable for client authentication
// (an extended key usage extension, when present, must allow it).
import { X509Certificate } from 'node:crypto';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';
const MAX_DEPTH = 10;

export interface VerifiedChain {
  /** The latest notBefore and earliest notAfter along the verified path (ms since the epoch). */
  notBefore: number;
  notAfter: number;
}

/** The verified path's validity window, or the reason the chain is not trusted. */
export function verifyChain(
  chain: readonly X509Certificate[],
  roots: readonly X509Certificate[],
): VerifiedChain | { error: string } {
  const leaf = chain[0];
  if (!leaf) return { error: 'no certificate' };
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH) && !eku.includes(ANY_USAGE))
    return { error: 'x509: certificate specifies an incompatible key usage' };
  const window = { notBefore: -Infinity, notAfter: Infinity };
  const intermediates = chain.slice(1);
  let cur = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    narrow(window, cur);
    if (roots.some((r) => r.raw.equals(cur.raw))) return window;
    const root = roots.find((r) => issuedBy(cur, r));
    if (root) {
      narrow(window, root);
      return window;
    }
    const next = intermediates.find((c) => c.ca && issuedBy(cur, c));
    if (!next) return { error: 'x509: certificate signed by unknown authority' };
    cur = next;
  }
  return { error: 'x509: too many intermediates for path length constraint' };
}

/** Whether the window holds the time t; else the reason. */
export function validAt(v: VerifiedChain, t: number): string | undefined {
  if (t < v.notBefore)
    return `x509: certificate has expired or is not yet valid: current time ${iso(t)} is before ${iso(v.notBefore)}`;
  if (t > v.notAfter)
    return `x509: certificate has expired or is not yet valid: current time ${iso(t)} is after ${iso(v.notAfter)}`;
  return undefined;
}

/**
 * The chains a method trusts: each verified once per leaf certificate (the TLS layer hands a
 * connection's certificates over as the same buffers), with `accept` adding what the method
 * takes from (or refuses in) the leaf; the validity dates are checked at every use.
 */
export class VerifiedChains<T extends object> {
  private readonly checked = new WeakMap<Buffer, { error: string } | (VerifiedChain & T)>();

  constructor(
    private readonly roots: readonly X509Certificate[],
    private readonly accept: (leaf: Buffer) => T | { error: string },
    private readonly now: () => number = Date.now,
  ) {}

  /** What `accept` made of the chain's leaf, or why the chain is not trusted now. */
  verify(chain: readonly Buffer[]): T | { error: string } {
    const leaf = chain[0]!;
    let c = this.checked.get(leaf);
    if (!c) {
      c = this.check(chain);
      this.checked.set(leaf, c);
    }
    if ('error' in c) return c;
    const late = validAt(c, this.now());
    return late ? { error: late } : c;
  }

  private check(chain: readonly Buffer[]): { error: string } | (VerifiedChain & T) {
    let certs: X509Certificate[];
    try {
      certs = chain.map((der) => new X509Certificate(der));
    } catch (e) {
      return { error: `unreadable client certificate: ${(e as Error).message}` };
    }
    const v = verifyChain(certs, this.roots);
    if ('error' in v) return v;
    const a = this.accept(chain[0]!);
    return 'error' in a ? a : { ...v, ...a };
  }
}

function issuedBy(c: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return c.checkIssued(issuer) && c.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function narrow(w: VerifiedChain, c: X509Certificate): void {
  w.notBefore = Math.max(w.notBefore, Date.parse(c.validFrom));
  w.notAfter = Math.min(w.notAfter, Date.parse(c.validTo));
}

function iso(t: number): string {
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
