// Apply bodies are YAML: written so that a YAML 1.1 reader (Kubernetes') and a YAML 1.2 reader
// read the same value, whatever strings it holds (`y`, `on`, `012`, `1_000`, `~`, dates, ...).
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { portableYaml } from '../src/yaml.ts';

/** Strings that YAML 1.1 or 1.2 resolves to something other than a string when unquoted. */
const TRICKY = [
  'y',
  'Y',
  'n',
  'N',
  'yes',
  'No',
  'on',
  'OFF',
  'true',
  'False',
  '~',
  'null',
  'Null',
  '012',
  '0o12',
  '0x1F',
  '1_000',
  '1e3',
  '.inf',
  '-.Inf',
  '.nan',
  '2020-01-02',
  '2020-01-02T03:04:05Z',
  '1:30',
  '0b101',
  '+12',
  '-0',
  '=',
  '<<',
];

describe('portable YAML bodies', () => {
  it('every string YAML 1.1 or 1.2 could misread stays a string for both readers, as value and as key', () => {
    for (const s of TRICKY) {
      // `<<` as a key: the JavaScript reader's YAML 1.1 mode takes even a quoted `<<` for a merge
      // key (Go's reader does not); no API object has such a key
      const value = s === '<<' ? { v: s, list: [s] } : { [s]: s, list: [s], nested: { v: s } };
      const text = portableYaml(value);
      expect(parse(text, { version: '1.1' }), `YAML 1.1 reading of ${JSON.stringify(s)}:\n${text}`).toEqual(
        value,
      );
      expect(parse(text, { version: '1.2' }), `YAML 1.2 reading of ${JSON.stringify(s)}:\n${text}`).toEqual(
        value,
      );
    }
  });

  test.prop([fc.jsonValue({ maxDepth: 3 })], { numRuns: 300 })(
    'any JSON value reads back the same under 1.1 and 1.2',
    (v) => {
      // JSON has -0, which YAML writes as 0: compare through JSON
      const want = JSON.parse(JSON.stringify({ v }));
      const text = portableYaml(want);
      expect(parse(text, { version: '1.1' })).toEqual(want);
      expect(parse(text, { version: '1.2' })).toEqual(want);
    },
  );
});
