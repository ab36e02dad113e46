// The admission plugin catalog and its flags: Kubernetes 1.28's default set and run order,
// --enable-admission-plugins / --disable-admission-plugins (order irrelevant, defaults can be
// disabled, unknown names refused), --admission-control-config-file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { loadAdmissionConfig } from '../src/admission/config-file.ts';
import {
  DEFAULT_ENABLED,
  enabledPlugins,
  FACTORIES,
  PLUGIN_ORDER,
} from '../src/admission/plugins/catalog.ts';

const FACTS = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../shared/kubernetes-1.28/admission-plugins.txt',
);
const dir = mkdtempSync(join(tmpdir(), 'orch-admission-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function factsList(heading: string): string[] {
  const lines = readFileSync(FACTS, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith(`# ${heading}`));
  return lines[at + 1]!.split(',').map((s) => s.trim());
}

describe('catalog', () => {
  it('holds the plugins of a 1.28 server, and its default set in the order that server runs them', () => {
    expect([...PLUGIN_ORDER].sort()).toEqual([...factsList('all plugins')].sort());
    expect(DEFAULT_ENABLED).toEqual(factsList('default enabled'));
    // the default set is a subsequence of the run order
    const positions = DEFAULT_ENABLED.map((n) => PLUGIN_ORDER.indexOf(n));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('makes every plugin of the list', () => {
    expect(PLUGIN_ORDER.filter((n) => !FACTORIES[n])).toEqual([]);
  });

  it('refuses unknown names in either flag, and disabling works on default plugins', () => {
    expect(() => enabledPlugins(['NoSuchPlugin'], [])).toThrow(
      /--enable-admission-plugins: unknown admission plugin "NoSuchPlugin"/,
    );
    expect(() => enabledPlugins([], ['Nope'])).toThrow(
      /--disable-admission-plugins: unknown admission plugin "Nope"/,
    );
    expect(enabledPlugins([], [])).toContain('NamespaceLifecycle');
    expect(enabledPlugins([], ['NamespaceLifecycle'])).not.toContain('NamespaceLifecycle');
  });

  it('serve flags: comma lists in any order, repeated flags add up, unknown plugins are usage errors', () => {
    const a = parseServeArgs(
      ['--enable-admission-plugins=NamespaceLifecycle', '--disable-admission-plugins', 'NamespaceLifecycle'],
      dir,
    )!;
    expect(a.options.enableAdmissionPlugins).toEqual(['NamespaceLifecycle']);
    expect(a.options.disableAdmissionPlugins).toEqual(['NamespaceLifecycle']);
    expect(() => parseServeArgs(['--enable-admission-plugins=Bogus'], dir)).toThrow(UsageError);
  });
});

describe('--admission-control-config-file', () => {
  it('reads inline configurations and files named by path, relative to the configuration file', () => {
    writeFileSync(
      join(dir, 'rate.yaml'),
      'kind: Configuration\nlimits:\n- type: Server\n  qps: 5\n  burst: 10\n',
    );
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apiserver.config.orch.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: EventRateLimit',
        '  path: rate.yaml',
        '- name: PodNodeSelector',
        '  configuration:',
        '    podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: "zone=a"}',
      ].join('\n'),
    );
    const m = loadAdmissionConfig(file);
    expect(m.get('EventRateLimit')).toEqual({
      kind: 'Configuration',
      limits: [{ type: 'Server', qps: 5, burst: 10 }],
    });
    expect(m.get('PodNodeSelector')).toEqual({
      podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'zone=a' },
    });
    expect(
      parseServeArgs(['--admission-control-config-file', file], dir)!.options.admissionControlConfigFile,
    ).toBe(file);
  });

  it.each([
    ['kind: Other\napiVersion: apiserver.config.orch.io/v1\n', /want kind AdmissionConfiguration/],
    [
      'kind: AdmissionConfiguration\napiVersion: apiserver.config.orch.io/v1\nplugins: {a: 1}\n',
      /plugins must be a list/,
    ],
    [
      'kind: AdmissionConfiguration\napiVersion: apiserver.config.orch.io/v1\nplugins: [{configuration: {}}]\n',
      /plugins\[0\]: name is required/,
    ],
    [
      'kind: AdmissionConfiguration\napiVersion: apiserver.config.orch.io/v1\nplugins: [{name: A}, {name: A}]\n',
      /configured twice/,
    ],
    [
      'kind: AdmissionConfiguration\napiVersion: apiserver.config.orch.io/v1\nplugins: [{name: A, path: missing.yaml}]\n',
      /cannot read/,
    ],
    ['{{{', /not YAML or JSON/],
  ])('refuses a bad file with a message that says what is wrong (%#)', (text, message) => {
    const file = join(dir, `bad-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, text);
    expect(() => loadAdmissionConfig(file)).toThrow(message);
    expect(() => parseServeArgs(['--admission-control-config-file', file], dir)).toThrow(UsageError);
  });
});
