// IP addresses as Kubernetes reads them in endpoint addresses: parsed the lenient way its
// validation does (IPv4 fields may carry leading zeros and are read as decimal), held as 16
// bytes with IPv4 mapped into IPv6, and classed as Go's net.IP classes them.
import type { StatusCause } from '../../errors/status.ts';
import { Causes, fieldErr } from './common.ts';

export interface IP {
  bytes: Uint8Array;
  /** The address is IPv4 (written so, or an IPv4-mapped IPv6 address). */
  v4: boolean;
}

const V4_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseV4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseV6(s: string): number[] | undefined {
  let tail: number[] = [];
  // an IPv4 address may end the text
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = v4;
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  let words: number[];
  if (halves.length === 2) {
    if (head.length + rest.length > 7) return undefined;
    words = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  } else {
    if (head.length !== 8) return undefined;
    words = head;
  }
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The address, or undefined when the text is not one. */
export function parseIP(s: string): IP | undefined {
  if (typeof s !== 'string' || s === '') return undefined;
  if (!s.includes(':')) {
    const v4 = parseV4(s);
    return v4 ? { bytes: Uint8Array.from([...V4_PREFIX, ...v4]), v4: true } : undefined;
  }
  const v6 = parseV6(s);
  if (!v6) return undefined;
  const mapped = V4_PREFIX.every((b, i) => v6[i] === b);
  return { bytes: Uint8Array.from(v6), v4: mapped };
}

const v4Of = (ip: IP) => ip.bytes.subarray(12);

export function isUnspecified(ip: IP): boolean {
  return ip.v4 ? v4Of(ip).every((b) => b === 0) : ip.bytes.every((b) => b === 0);
}

export function isLoopback(ip: IP): boolean {
  if (ip.v4) return v4Of(ip)[0] === 127;
  return ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}

export function isLinkLocalUnicast(ip: IP): boolean {
  if (ip.v4) return v4Of(ip)[0] === 169 && v4Of(ip)[1] === 254;
  return ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80;
}

export function isLinkLocalMulticast(ip: IP): boolean {
  if (ip.v4) return v4Of(ip)[0] === 224 && v4Of(ip)[1] === 0 && v4Of(ip)[2] === 0;
  return ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02;
}

/** Any IP address (`Invalid value` with Kubernetes' example otherwise). */
export function validIP(field: string, v: string): StatusCause[] {
  return parseIP(v)
    ? []
    : [fieldErr.invalid(field, v, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/**
 * An address an endpoint may have: not unspecified, loopback or link-local (those name the
 * node itself, or nothing).
 */
export function nonSpecialIP(field: string, v: string): StatusCause[] {
  const ip = parseIP(v);
  if (!ip) return [fieldErr.invalid(field, v, 'must be a valid IP address')];
  const out = new Causes();
  if (isUnspecified(ip)) out.invalid(field, v, `may not be unspecified (${v})`);
  if (isLoopback(ip)) out.invalid(field, v, 'may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if (isLinkLocalUnicast(ip))
    out.invalid(field, v, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if (isLinkLocalMulticast(ip))
    out.invalid(field, v, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return out;
}
