// The fake API server for tests (src/testing.ts `startServer`, and `serve --quiet`): a typed
// Kubernetes client reaches it through the kubeconfig it hands out, stop() ends it and removes
// the file, and the command prints nothing and writes its kubeconfig once it answers.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startServer } from '../src/testing.ts';
import { scratchDir } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('startServer', () => {
  it('hands out a kubeconfig a typed Kubernetes client uses, in Kubernetes words, and stops', async () => {
    const api = await startServer({ dialect: 'kubernetes' });
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']),
    );
    await api.stop();
    expect(existsSync(api.kubeconfig)).toBe(false);
    await expect(fetch(`${api.url}/version`)).rejects.toThrow();
  });

  it('speaks the spec words by default', async () => {
    const api = await startServer();
    try {
      const r = await api.server.registry.byResource('', 'namespaces')!.store.getStored('', 'orch-system');
      expect(r?.obj.metadata.name).toBe('orch-system');
    } finally {
      await api.stop();
    }
  });
});

describe('serve --quiet', () => {
  it('prints nothing and writes its kubeconfig once it answers', async () => {
    const dir = scratchDir('orch-quiet-');
    const kubeconfig = join(dir, 'kubeconfig');
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'scripts', 'bin.mjs'),
        'serve',
        '--dialect',
        'kubernetes',
        '--in-memory',
        '--port',
        '0',
      ].concat(['--data-dir', dir, '--kubeconfig', kubeconfig, '--quiet']),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    try {
      const deadline = Date.now() + 30_000;
      while (!existsSync(kubeconfig) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const cfg = parseYaml(readFileSync(kubeconfig, 'utf8'));
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const ns = await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'kube-system' });
      expect(ns.metadata?.name).toBe('kube-system');
      expect(cfg.clusters[0].cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(out).toBe('');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);
});
