// The kubeconfig `serve` writes: its text is the yaml package's (stringify, lineWidth 0)
// whether kubeconfig.ts writes it itself (every string plain) or leaves it to the package.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type KubeconfigInput, kubeconfigObject, kubeconfigYaml, plainYaml } from '../src/kubeconfig.ts';

const PACKAGE = (o: unknown) => stringify(o, { lineWidth: 0 });

/** Strings near the edges of plain YAML: numbers, booleans, nulls, indicators, spaces. */
const tricky = fc.oneof(
  fc.constantFrom(
    '',
    '1',
    '0x1F',
    '0o17',
    '1e5',
    '12e',
    '1.5',
    '.5',
    'true',
    'True',
    'yes',
    'null',
    'Null',
    '~',
    '.inf',
    '.NaN',
    'a:',
    'a: b',
    'a #b',
    '-a',
    '[x]',
    'x]',
    'http://[::1]:6443',
    '@x',
    'a b',
    ' a',
    "it's",
  ),
  fc.stringMatching(/^[A-Za-z0-9._/:+=@ #'"[\]{}&*!|>%`,?-]{0,24}$/),
  fc.stringMatching(/^[0-9a-fx.eEo+-]{1,10}$/),
);

const input = fc.record(
  {
    server: fc.oneof(fc.constant('https://127.0.0.1:6443'), tricky),
    caPem: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 60 })),
    token: fc.oneof(fc.stringMatching(/^[0-9a-f]{1,48}$/), tricky),
    name: fc.oneof(fc.constant(undefined), tricky),
    namespace: fc.oneof(fc.constant(undefined), tricky),
  },
  { requiredKeys: ['server', 'token'] },
) as fc.Arbitrary<KubeconfigInput>;

describe('the kubeconfig text', () => {
  it("is the yaml package's for any server, CA, token, name and namespace", () => {
    fc.assert(
      fc.property(input, (k) => {
        expect(kubeconfigYaml(k)).toBe(PACKAGE(kubeconfigObject(k)));
      }),
      { numRuns: 2000 },
    );
  });

  it('is written without the package for what serve writes', () => {
    const caPem =
      '-----BEGIN CERTIFICATE-----\nMIIBaDCCAQ6gAwIBAgIBATAKBggqhkjOPQQDAjAc\n-----END CERTIFICATE-----\n';
    for (const k of [
      { server: 'https://127.0.0.1:40503', caPem, token: '876ca4b506d957093d0338275e1d19799d47c9f0a0b1b370' },
      { server: 'http://127.0.0.1:6443', token: '0123456789' + 'abcdef'.repeat(5) },
      { server: 'https://10.0.0.7:6443', caPem, token: 'a-token', namespace: 'ns1', name: 'n' },
      { server: 'https://[::1]:6443', caPem, token: 'a-token' },
    ]) {
      const o = kubeconfigObject(k);
      expect(plainYaml(o), JSON.stringify(k)).toBe(PACKAGE(o));
    }
  });
});
