// IP addresses as Kubernetes' endpoint validation reads them: Go's lenient parser (IPv4
// fields with leading zeros read as decimal, IPv4-mapped IPv6 addresses are IPv4) and the
// classes of Go's net.IP that make an address special.
import { describe, expect, it } from 'vitest';
import {
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
  nonSpecialIP,
  parseIP,
} from '../src/registry/kinds/ip-address.ts';

describe('parseIP', () => {
  it.each([
    ['10.0.0.1', true],
    ['010.000.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['::1.2.3.4', false],
    ['2001:db8::1', false],
    ['1:2:3:4:5:6:7::', false],
    ['::', false],
    ['1:2:3:4:5:6:1.2.3.4', false],
  ])('%s is an address (IPv4: %s)', (s, v4) => {
    expect(parseIP(s)?.v4).toBe(v4);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '1::2::3',
    '12345::',
    'fe80::1%eth0',
    '1:2:3:4:5:6:7:8:9',
    ':1::',
    'a.b.c.d',
    '1.2.3.4:80',
  ])('%j is not an address', (s) => {
    expect(parseIP(s)).toBeUndefined();
  });
});

describe('the special classes', () => {
  const ip = (s: string) => parseIP(s)!;
  it('unspecified: 0.0.0.0 and ::', () => {
    expect(isUnspecified(ip('0.0.0.0'))).toBe(true);
    expect(isUnspecified(ip('::'))).toBe(true);
    expect(isUnspecified(ip('::ffff:0.0.0.0'))).toBe(true);
    expect(isUnspecified(ip('0.0.0.1'))).toBe(false);
  });
  it('loopback: 127.0.0.0/8 and ::1', () => {
    expect(isLoopback(ip('127.255.0.9'))).toBe(true);
    expect(isLoopback(ip('::ffff:127.0.0.1'))).toBe(true);
    expect(isLoopback(ip('::1'))).toBe(true);
    expect(isLoopback(ip('::2'))).toBe(false);
  });
  it('link-local unicast: 169.254.0.0/16 and fe80::/10', () => {
    expect(isLinkLocalUnicast(ip('169.254.3.4'))).toBe(true);
    expect(isLinkLocalUnicast(ip('febf::1'))).toBe(true);
    expect(isLinkLocalUnicast(ip('fec0::1'))).toBe(false);
  });
  it('link-local multicast: 224.0.0.0/24 and ff02::/16 (any ffx2 scope)', () => {
    expect(isLinkLocalMulticast(ip('224.0.0.251'))).toBe(true);
    expect(isLinkLocalMulticast(ip('224.0.1.1'))).toBe(false);
    expect(isLinkLocalMulticast(ip('ff02::fb'))).toBe(true);
    expect(isLinkLocalMulticast(ip('ff05::1'))).toBe(false);
  });
  it('nonSpecialIP names each class in Kubernetes words', () => {
    expect(nonSpecialIP('ip', 'x')[0]!.message).toBe('Invalid value: "x": must be a valid IP address');
    expect(nonSpecialIP('ip', '::')[0]!.message).toBe('Invalid value: "::": may not be unspecified (::)');
    expect(nonSpecialIP('ip', 'ff02::1')[0]!.message).toBe(
      'Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
    );
    expect(nonSpecialIP('ip', '10.1.2.3')).toEqual([]);
  });
});
