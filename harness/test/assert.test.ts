// The format checks of harness/src/assert.ts: RFC 3339 by its grammar (Date.parse takes far
// more), and object names as DNS subdomains.
import { describe, expect, it } from 'vitest';
import {
  ConformanceError,
  checkDnsSubdomain,
  checkRfc3339,
  isDnsSubdomain,
  isRfc3339,
  parseRfc3339,
} from '../src/assert.ts';

describe('RFC 3339 date-time', () => {
  it.each([
    '2020-11-01T00:00:00Z',
    '2020-11-01T23:59:59.123456789Z',
    '2020-11-01t10:20:30z',
    '2020-02-29T12:00:00+05:30',
    '1999-12-31T23:59:60Z', // leap second
    '2026-07-07T17:47:00-00:00',
  ])('accepts %s', (s) => {
    expect(isRfc3339(s)).toBe(true);
  });

  it.each([
    'Nov 1 2020', // Date.parse takes it
    '2020-11-01', // a full-date alone
    '2020-11-01 00:00:00Z', // space instead of T
    '2020-11-01T00:00:00', // no offset
    '2020-11-01T00:00Z', // no seconds
    '2020-13-01T00:00:00Z',
    '2021-02-29T00:00:00Z', // not a leap year
    '2020-04-31T00:00:00Z',
    '2020-11-01T24:00:00Z',
    '2020-11-01T00:60:00Z',
    '2020-11-01T00:00:61Z',
    '2020-11-01T00:00:00+0100',
    '2020-11-01T00:00:00+24:00',
    '2020-11-01T00:00:00.Z',
    '+002020-11-01T00:00:00Z',
    '',
    null,
    1604188800000,
  ])('refuses %s', (s) => {
    expect(isRfc3339(s)).toBe(false);
  });

  it('is stricter than Date.parse, which the suites used to check with', () => {
    expect(Number.isNaN(Date.parse('Nov 1 2020'))).toBe(false);
    expect(isRfc3339('Nov 1 2020')).toBe(false);
  });

  it('gives the instant, offsets and fractions included', () => {
    expect(parseRfc3339('2020-11-01T00:00:00Z')).toBe(Date.UTC(2020, 10, 1));
    expect(parseRfc3339('2020-11-01T05:30:00.250+05:30')).toBe(Date.UTC(2020, 10, 1) + 250);
    expect(parseRfc3339('2020-10-31T23:00:00-01:00')).toBe(Date.UTC(2020, 10, 1));
    expect(parseRfc3339('0099-01-01T00:00:00Z')).toBe(Date.parse('0099-01-01T00:00:00Z'));
  });

  it('checkRfc3339 fails with requirement, expected and actual', () => {
    expect(() => checkRfc3339('Nov 1 2020', 'creationTimestamp')).toThrow(ConformanceError);
    try {
      checkRfc3339('Nov 1 2020', 'creationTimestamp', 'set by the server');
    } catch (e) {
      expect((e as ConformanceError).expected).toMatch(/^creationTimestamp: an RFC 3339 date-time/);
      expect((e as ConformanceError).actual).toBe('"Nov 1 2020"');
      expect((e as ConformanceError).requirement).toMatch(/set by the server/);
    }
    expect(() => checkRfc3339('2020-11-01T00:00:00Z', 'creationTimestamp')).not.toThrow();
  });
});

describe('DNS subdomain names', () => {
  it('accepts lowercase dotted labels of at most 253 characters', () => {
    for (const n of ['a', 'a-b', 'a.b-c.d0', `${'a'.repeat(251)}.b`]) expect(isDnsSubdomain(n), n).toBe(true);
  });
  it('refuses the rest', () => {
    for (const n of ['', 'A', '-a', 'a-', 'a..b', '.', 'a_b', 'a b', `${'a'.repeat(252)}.b`, undefined, 3])
      expect(isDnsSubdomain(n), String(n)).toBe(false);
    expect(() => checkDnsSubdomain('Gen-1', 'the generated name')).toThrow(/a DNS subdomain/);
  });
});
