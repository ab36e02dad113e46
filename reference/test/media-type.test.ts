// A body's media type is read without parsing the header where it is plain already (the usual
// `application/json`); the property holds that shortcut to the full parse over headers of any
// of the characters that matter to it.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { mediaTypeOf, parseMediaType } from '../src/content/negotiate.ts';

const part = fc.constantFrom(
  'application',
  'json',
  'YAML',
  'vnd.orch.protobuf',
  'x',
  '+',
  '-',
  '/',
  ';',
  '=',
  ' ',
  '\t',
  'charset',
  'utf-8',
  '"',
  'Q',
  '*',
);
const header = fc.array(part, { maxLength: 8 }).map((p) => p.join(''));

describe('media types', () => {
  it('reads the usual headers', () => {
    expect(mediaTypeOf('application/json')).toBe('application/json');
    expect(mediaTypeOf('application/json; charset=utf-8')).toBe('application/json');
    expect(mediaTypeOf(' Application/YAML ')).toBe('application/yaml');
    expect(mediaTypeOf('application/merge-patch+json')).toBe('application/merge-patch+json');
  });

  fcTest.prop([header], { numRuns: 5000 })('reads a header as the full parse does', (h) => {
    expect(mediaTypeOf(h)).toBe(parseMediaType(h).type);
  });
});
