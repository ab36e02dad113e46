// `orch-conformance node-config` end to end, as a user runs it (node scripts/bin.mjs in a
// child process): validate's exit codes and one error per line with its field path, every
// error at once; default's YAML with doc3's defaults; the JSON schema; usage errors; and bad
// input (broken YAML, a list, an alias bomb, a file above the size limit) refused without a
// crash. Also the run flags that hand a validator and a defaulter to the suite.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { optionEnv, parseRunArgs } from '../run.ts';
import { cleanupTempDirs, cli, tail, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const HEAD = 'apiVersion: nodeagent.config.orch.io/v1beta1\nkind: NodeAgentConfiguration\n';
const MINIMAL = `${HEAD}enableServer: true\nreservedSystemCPUs: "0-1"\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\nlogging: {}\n`;

function file(name: string, text: string): string {
  const dir = tempDir('node-config-');
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The error lines of validate's output (the first line names the file). */
const errorLines = (out: string) => out.split('\n').filter((l) => /^[A-Za-z<][^ ]*: [A-Z]/.test(l));

describe('node-config validate', () => {
  it('a valid file exits 0', async () => {
    const r = await cli(['node-config', 'validate', file('ok.yaml', MINIMAL)]);
    expect(r.code, tail(r)).toBe(0);
    expect(r.out).toContain('valid NodeAgentConfiguration');
  });

  it('an invalid file exits 1 and prints every error, one per line, each starting with its field path', async () => {
    const text = `${MINIMAL}port: 0\nimageGCHighThresholdPercent: 10\nsyncFrequency: 1x\nkubeletCgroups: /x\nevictionHard: {memory.free: 1Mi}\nreservedSystemCPUs: "3-1"\n`;
    const r = await cli([
      'node-config',
      'validate',
      file('bad.yaml', text.replace('reservedSystemCPUs: "0-1"\n', '')),
    ]);
    expect(r.code, tail(r)).toBe(1);
    const lines = errorLines(r.out);
    const paths = lines.map((l) => l.slice(0, l.indexOf(': ')));
    expect(paths.sort()).toEqual(
      [
        'evictionHard[memory.free]',
        'imageGCHighThresholdPercent',
        'kubeletCgroups',
        'port',
        'reservedSystemCPUs',
        'syncFrequency',
      ].sort(),
    );
    // field.ErrorList wording: path, error type, value, detail
    expect(lines).toContain(
      'imageGCHighThresholdPercent: Invalid value: 10: must be above imageGCLowThresholdPercent (80)',
    );
    expect(r.out).toMatch(/^kubeletCgroups: Forbidden: unknown field "kubeletCgroups"/m);
  });

  it('a missing required field is a Required value error', async () => {
    const r = await cli(['node-config', 'validate', file('req.yaml', `${HEAD}enableServer: true\n`)]);
    expect(r.code, tail(r)).toBe(1);
    for (const f of ['reservedSystemCPUs', 'containerRuntimeEndpoint', 'logging'])
      expect(r.out).toMatch(new RegExp(`^${f}: Required value`, 'm'));
  });

  it('bad input is refused with a clear error and exit 1, never a crash', async () => {
    const bomb = `${HEAD}a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`;
    const cases: [string, string, RegExp][] = [
      ['broken.yaml', `${HEAD}logging: {format: text\n`, /not YAML or JSON/],
      ['list.yaml', '- a\n- b\n', /must be an object \(a mapping\), not a list/],
      ['scalar.yaml', 'hello\n', /must be an object \(a mapping\), not a string/],
      ['empty.yaml', '', /not an empty document/],
      ['two.yaml', `${MINIMAL}---\n${MINIMAL}`, /more than one document/],
      ['bomb.yaml', bomb, /alias/i],
      ['huge.yaml', `${MINIMAL}# ${'x'.repeat(1024 * 1024)}\n`, /above the limit of 1048576 bytes/],
      [
        'types.json',
        '{"apiVersion":"nodeagent.config.orch.io/v1beta1","kind":"NodeAgentConfiguration","port":"80","logging":[]}',
        /^port: Invalid value: "80": must be a 32-bit integer/m,
      ],
    ];
    for (const [name, text, want] of cases) {
      const r = await cli(['node-config', 'validate', file(name, text)]);
      expect(r.code, `${name}: ${tail(r)}`).toBe(1);
      expect(r.out, name).toMatch(want);
      expect(r.out, name).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack trace
    }
  });

  it('usage errors exit 2', async () => {
    for (const args of [
      ['node-config'],
      ['node-config', 'validate'],
      ['node-config', 'validate', 'a', 'b'],
      ['node-config', 'frobnicate'],
      ['node-config', 'schema', 'x'],
    ]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${tail(r)}`).toBe(2);
    }
    const missing = await cli(['node-config', 'validate', '/nonexistent/config.yaml']);
    expect(missing.code, tail(missing)).toBe(2);
    expect(missing.out).toContain('cannot read /nonexistent/config.yaml');
  });
});

describe('node-config default', () => {
  it("prints the file with doc3's defaults applied, as YAML", async () => {
    const r = await cli(['node-config', 'default', file('ok.yaml', `${MINIMAL}port: 10251\n`)]);
    expect(r.code, tail(r)).toBe(0);
    const d = parse(r.out);
    expect(d.port).toBe(10251);
    expect(d.healthzPort).toBe(10248);
    expect(d.syncFrequency).toBe('1m');
    expect(d.authentication.webhook.cacheTTL).toBe('2m');
    expect(d.authorization.mode).toBe('Webhook');
    expect(d.logging.format).toBe('text');
    expect(d.imageServiceEndpoint).toBe('unix:///run/containerd/containerd.sock');
    expect(d.contentType).toBe('application/vnd.orch.protobuf');
    expect(d.evictionHard).toBeUndefined();
  });

  it('an invalid file prints its errors and exits 1, as validate', async () => {
    const r = await cli(['node-config', 'default', file('bad.yaml', `${MINIMAL}oomScoreAdj: 2000\n`)]);
    expect(r.code, tail(r)).toBe(1);
    expect(r.out).toMatch(/^oomScoreAdj: Invalid value: 2000/m);
  });
});

describe('node-config schema', () => {
  it('prints a JSON schema that accepts a defaulted file and refuses unknown fields and out-of-range values', async () => {
    const s = await cli(['node-config', 'schema']);
    expect(s.code, tail(s)).toBe(0);
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(s.out));
    const d = await cli(['node-config', 'default', file('ok.yaml', MINIMAL)]);
    const defaulted = parse(d.out);
    expect(validate(defaulted), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...defaulted, kubeletCgroups: '/x' })).toBe(false);
    expect(validate({ ...defaulted, port: 0 })).toBe(false);
    expect(validate({ ...defaulted, syncFrequency: '1x' })).toBe(false);
    expect(validate({ ...defaulted, cgroupDriver: 'openrc' })).toBe(false);
    const { logging: _, ...noLogging } = defaulted;
    expect(validate(noLogging)).toBe(false);
  });
});

describe('run flags for the node agent configuration suite', () => {
  it('--node-config-validator and --node-config-defaulter reach the suite as ORCH_NODE_CONFIG_*', async () => {
    const o = parseRunArgs([
      '--node-config-validator',
      'my-validator --strict',
      '--node-config-defaulter',
      'my-defaulter',
    ]);
    expect(optionEnv(o)).toMatchObject({
      ORCH_NODE_CONFIG_VALIDATOR: 'my-validator --strict',
      ORCH_NODE_CONFIG_DEFAULTER: 'my-defaulter',
    });
    expect(() => parseRunArgs(['--node-config-validator', ' '])).toThrow(/no command given/);
    const help = await cli(['run', '--help']);
    expect(help.out).toContain('--node-config-validator CMD');
    expect(help.out).toContain('--node-config-defaulter CMD');
    const top = await cli(['--help']);
    expect(top.out).toContain('  node-config');
  });
});
