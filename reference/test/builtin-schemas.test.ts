// The published schemas of built-in kinds: the checked-in file is exactly what the captured 1.28
// OpenAPI documents give, every kind resolves, and objects decode against them as 1.28 would
// (unknown fields found, known ones kept, quantities and int-or-strings accepted).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { builtinKindsPublished, builtinSchema } from '../src/schema/builtin.ts';
import { decodeWithSchema, missingRequired } from '../src/schema/decode.ts';
import type { Schema } from '../src/schema/types.ts';

describe('published built-in schemas', () => {
  it('the checked-in file is what scripts/gen-builtin-schemas.ts derives from the 1.28 documents', () => {
    // throws (exit 1) when the file was edited by hand or the generator changed
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/gen-builtin-schemas.ts', '--check'], {
      stdio: 'pipe',
    });
  });

  it('every kind resolves to an object schema with metadata', () => {
    const kinds = builtinKindsPublished();
    expect(kinds.length).toBeGreaterThanOrEqual(55);
    for (const k of kinds) {
      const i = k.lastIndexOf('/');
      const s = builtinSchema(k.slice(0, i), k.slice(i + 1));
      expect(s.properties?.metadata, k).toBeDefined();
    }
  });

  it('a DaemonSet decodes: unknown fields found, pod template kept, selector and template required', () => {
    const s = builtinSchema('apps/v1', 'DaemonSet');
    const obj = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd' },
      spec: {
        bogus: 1,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: {
            containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '100m', memory: 1024 } } }],
          },
        },
      },
    };
    const r = decodeWithSchema(obj, s);
    expect(r.unknown).toEqual(['spec.bogus']);
    expect((r.value as any).spec.template.spec.containers[0].resources.limits.cpu).toBe('100m');
    expect(missingRequired(obj, s)).toEqual(['spec.selector']);
  });

  it('a missing field is named by its path through objects, maps and list items', () => {
    const port: Schema = { type: 'object', required: ['port'], properties: { port: { type: 'integer' } } };
    const schema: Schema = {
      type: 'object',
      required: ['kind'],
      properties: {
        kind: { type: 'string' },
        spec: {
          type: 'object',
          properties: {
            ports: { type: 'array', items: port },
            byName: { type: 'object', additionalProperties: port },
          },
        },
      },
    };
    const obj = { spec: { ports: [{ port: 1 }, {}, { port: null }], byName: { a: {}, b: { port: 2 } } } };
    expect(missingRequired(obj, schema)).toEqual([
      'kind',
      'spec.ports[1].port',
      'spec.ports[2].port',
      'spec.byName.a.port',
    ]);
    expect(missingRequired({ kind: 'K', spec: { ports: [{ port: 1 }] } }, schema)).toEqual([]);
  });
});
