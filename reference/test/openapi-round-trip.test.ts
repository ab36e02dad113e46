// The published OpenAPI documents read back through Kubernetes' own Go types as written (its e2e
// "OpenAPIV3 should round trip OpenAPI V3 for all built-in group versions" and the v2 document
// kubectl reads): those types drop an empty list or map of these keywords (`omitempty`), so a
// document that has one no longer equals itself after a round trip. None may be empty here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.ts';

const DROPPED_WHEN_EMPTY = new Set([
  'parameters',
  'properties',
  'patternProperties',
  'required',
  'enum',
  'allOf',
  'anyOf',
  'oneOf',
]);

function emptyDropped(x: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(x)) for (const [i, v] of x.entries()) emptyDropped(v, `${path}/${i}`, out);
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      const empty = Array.isArray(v)
        ? v.length === 0
        : !!v && typeof v === 'object' && Object.keys(v).length === 0;
      // a schema's `properties` names fields: a field called `required` is no keyword
      if (DROPPED_WHEN_EMPTY.has(k) && empty && !path.endsWith('/properties')) out.push(`${path}/${k}`);
      emptyDropped(v, `${path}/${k}`, out);
    }
  return out;
}

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer({ dialect: 'kubernetes' });
});
afterAll(() => ts?.close());

describe('OpenAPI documents read back as written', () => {
  it('v3: no group version document has an empty list or map Go would drop', async () => {
    const root = (await ts.req('GET', '/openapi/v3')).json as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const found: string[] = [];
    for (const [name, p] of Object.entries(root.paths)) {
      const doc = await ts.req('GET', p.serverRelativeURL);
      expect(doc.status, name).toBe(200);
      emptyDropped(doc.json, name, found);
    }
    expect(Object.keys(root.paths).length).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });

  it('v2: the document has none either', async () => {
    expect(emptyDropped((await ts.req('GET', '/openapi/v2')).json, '', [])).toEqual([]);
  });
});
