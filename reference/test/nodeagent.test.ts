// The node agent configuration library's text formats and loading, unit by unit: Go duration
// syntax (as Go's time.ParseDuration reads it), CPU lists (as the kernel writes them), image
// patterns, strict loading (duplicates, unknown and renamed fields, null), every error at once,
// the options that leave a class of rules out, and the JSON schema's shape.
import { describe, expect, it } from 'vitest';
import { parseCpuList } from '../src/nodeagent/cpu-list.ts';
import { parseDuration } from '../src/util/duration.ts';
import { imagePatternProblem } from '../src/nodeagent/image-pattern.ts';
import {
  FIELDS,
  formatFieldError,
  loadNodeConfig,
  nodeConfigJsonSchema,
  RULE_CLASSES,
} from '../src/nodeagent/index.ts';

const HEAD = 'apiVersion: nodeagent.config.orch.io/v1beta1\nkind: NodeAgentConfiguration\n';
const MINIMAL = `${HEAD}reservedSystemCPUs: "0"\ncontainerRuntimeEndpoint: unix:///run/cri.sock\nlogging: {}\n`;
const paths = (text: string) => loadNodeConfig(text).errors.map((e) => e.path);

describe('Go durations', () => {
  it('reads what time.ParseDuration reads', () => {
    const s = 1_000_000_000n;
    expect(parseDuration('1h2m3.5s')).toBe(3723n * s + s / 2n);
    expect(parseDuration('300ms')).toBe(300_000_000n);
    expect(parseDuration('-1.5h')).toBe(-5400n * s);
    expect(parseDuration('+5m')).toBe(300n * s);
    expect(parseDuration('1µs')).toBe(1000n);
    expect(parseDuration('1us')).toBe(1000n);
    expect(parseDuration('.5s')).toBe(s / 2n);
    expect(parseDuration('1.s')).toBe(s);
    expect(parseDuration('0')).toBe(0n);
    expect(parseDuration('-0')).toBe(0n);
    // the largest int64 duration, and one nanosecond more
    expect(parseDuration('2562047h47m16.854775807s')).toBe(2n ** 63n - 1n);
    expect(parseDuration('2562047h47m16.854775808s')).toBeUndefined();
  });

  it('refuses what time.ParseDuration refuses', () => {
    for (const bad of [
      '',
      '1',
      '10',
      '1x',
      'm',
      '.s',
      '1h 2m',
      ' 1s',
      '1h-5m',
      '5m-',
      '1e3s',
      '1..5s',
      '--1s',
    ])
      expect(parseDuration(bad), bad).toBeUndefined();
  });
});

describe('CPU lists', () => {
  it('reads ids and inclusive ranges', () => {
    expect(parseCpuList('0-3,5')).toEqual([0, 1, 2, 3, 5]);
    expect(parseCpuList('7')).toEqual([7]);
    expect(parseCpuList('1-1')).toEqual([1]);
    expect(parseCpuList('')).toEqual([]);
  });
  it('refuses reversed ranges, words, open ranges and empty items', () => {
    for (const bad of ['3-1', 'all', '0-', '-1', '1,,2', '1-2-3', '0:3'])
      expect(parseCpuList(bad), bad).toBeUndefined();
  });
});

describe('image patterns', () => {
  it('take globs in labels, a port and a path', () => {
    for (const ok of [
      '*.registry.io',
      'registry.io:5000/team/app',
      '*.*.amazonaws.com',
      'eu-*.registry.io',
      '*',
    ])
      expect(imagePatternProblem(ok), ok).toBeUndefined();
  });
  it('refuse a scheme, an empty label, a space and a bad port', () => {
    for (const bad of [
      'https://registry.io',
      'a..b',
      'reg istry.io',
      'registry.io:https',
      'registry.io:99999',
      '',
    ])
      expect(imagePatternProblem(bad), bad).toBeDefined();
  });
});

describe('loading', () => {
  it('a minimal file is valid and defaulted', () => {
    const r = loadNodeConfig(MINIMAL);
    expect(r.errors).toEqual([]);
    expect(r.config?.port).toBe(10250);
    expect(r.config?.imageServiceEndpoint).toBe('unix:///run/cri.sock');
    expect((r.config?.logging as { format?: string } | undefined)?.format).toBe('text');
  });

  it('reports every error at once, in field.ErrorList wording', () => {
    const r = loadNodeConfig(
      `${MINIMAL}port: 0\noomScoreAdj: 2000\nkubeAPIQPS: 5\nsyncFrequency: soon\nimageGCHighThresholdPercent: 10\n`,
    );
    expect(r.errors.map(formatFieldError)).toEqual(
      expect.arrayContaining([
        'port: Invalid value: 0: must be at least 1 and at most 65535',
        'oomScoreAdj: Invalid value: 2000: must be at least -1000 and at most 1000',
        'kubeAPIQPS: Forbidden: unknown field "kubeAPIQPS" (this interface calls it "orchAPIQPS")',
        'imageGCHighThresholdPercent: Invalid value: 10: must be above imageGCLowThresholdPercent (80)',
      ]),
    );
    expect(r.errors.map((e) => e.path)).toContain('syncFrequency');
  });

  it('finds duplicate keys with their paths, nested ones too', () => {
    expect(
      paths(
        `${MINIMAL}port: 1\nport: 2\nauthentication:\n  webhook:\n    enabled: true\n    enabled: false\n`,
      ),
    ).toEqual(expect.arrayContaining(['port', 'authentication.webhook.enabled']));
  });

  it('a null field is unset: its default applies', () => {
    const r = loadNodeConfig(`${MINIMAL}port: null\n`);
    expect(r.errors).toEqual([]);
    expect(r.config?.port).toBe(10250);
  });

  it('a wrong type gets its type error only', () => {
    expect(loadNodeConfig(`${MINIMAL}port: "80"\n`).errors.map(formatFieldError)).toEqual([
      'port: Invalid value: "80": must be a 32-bit integer',
    ]);
  });

  it('map entries are named as field.Path.Key writes them', () => {
    expect(paths(`${MINIMAL}evictionHard: {memory.free: 1Mi}\n`)).toEqual(['evictionHard[memory.free]']);
  });

  it('leaving a class of rules out drops exactly its errors', () => {
    const text = `${MINIMAL}port: 0\nreservedSystemCPUs: "3-1"\n`.replace('reservedSystemCPUs: "0"\n', '');
    expect(paths(text).sort()).toEqual(['port', 'reservedSystemCPUs']);
    expect(loadNodeConfig(text, { without: new Set(['ranges']) }).errors.map((e) => e.path)).toEqual([
      'reservedSystemCPUs',
    ]);
    expect(loadNodeConfig(text, { without: new Set(['cpu-lists']) }).errors.map((e) => e.path)).toEqual([
      'port',
    ]);
    expect(RULE_CLASSES.length).toBeGreaterThan(8);
  });
});

describe('the JSON schema', () => {
  it('has a property for every field, with its default', () => {
    const s = nodeConfigJsonSchema() as {
      oneOf: { properties: Record<string, { default?: unknown }>; required: string[] }[];
    };
    const main = s.oneOf[0]!;
    for (const f of FIELDS) {
      expect(main.properties[f.name], f.name).toBeDefined();
      if (f.default !== undefined) expect(main.properties[f.name]!.default, f.name).toEqual(f.default);
    }
    expect(main.required).toEqual(
      expect.arrayContaining([
        'apiVersion',
        'kind',
        'reservedSystemCPUs',
        'logging',
        'containerRuntimeEndpoint',
      ]),
    );
  });
});
