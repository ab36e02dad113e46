// The Kubernetes dialect's word table (src/util/words.ts) and the build step that applies it to
// the sources' literals (src/server/dialect-build.ts). Every Kubernetes word of the table is
// looked up in the real kube-apiserver and kube-controller-manager 1.28 binaries
// (../shared/kubernetes-1.28/bin): a word the real server never says is a word the dialect
// invented.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { resolveAssets, SHARED_ASSETS } from '../../harness/src/control-plane/assets.ts';
import { literalMapper } from '../src/server/dialect-build.ts';
import { inKubernetesWords, KUBERNETES_PAIRS, kubernetesIdentifier } from '../src/util/words.ts';

describe('the word table', () => {
  it('says only words the real Kubernetes 1.28 binaries carry', () => {
    const assets = resolveAssets(SHARED_ASSETS);
    const binaries = [assets.kubeApiserver, assets.kubeControllerManager].map((f) => readFileSync(f));
    const unknown = KUBERNETES_PAIRS.filter(([, k]) => !binaries.some((b) => b.includes(k, 0, 'latin1')));
    expect(
      unknown.map(([o, k]) => `${o} -> ${k}`),
      'Kubernetes words of the table that neither kube-apiserver nor kube-controller-manager 1.28 contains',
    ).toEqual([]);
  }, 60_000);

  it.each([
    // a group keeps k8s.io, a label domain of the same stem says kubernetes.io
    ['node.orch.io/v1', 'node.k8s.io/v1'],
    ['node.orch.io/not-ready', 'node.kubernetes.io/not-ready'],
    ['rbac.authorization.orch.io/v1', 'rbac.authorization.k8s.io/v1'],
    ['rbac.authorization.orch.io/autoupdate', 'rbac.authorization.kubernetes.io/autoupdate'],
    ['rbac.authorization.orch.io/aggregate-to-edit', 'rbac.authorization.k8s.io/aggregate-to-edit'],
    ['orch.io/hostname', 'kubernetes.io/hostname'],
    ['storageclass.beta.orch.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'],
    ['io.orch.api.core.v1.Pod', 'io.k8s.api.core.v1.Pod'],
    ['{"x-orch-list-type":"map"}', '{"x-kubernetes-list-type":"map"}'],
    ['application/vnd.orch.protobuf;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'],
    ['system:serviceaccount:orch-system:x', 'system:serviceaccount:kube-system:x'],
    // each place is mapped once: a Kubernetes word is never mapped again
    ['orch-root-ca.crt in orch-public', 'kube-root-ca.crt in kube-public'],
    // words of the project itself are not the API's
    ['orch-conformance orch .orch/data v1.28.0-orch.0', 'orch-conformance orch .orch/data v1.28.0-orch.0'],
  ])('%s says %s', (orch, kubernetes) => {
    expect(inKubernetesWords(orch)).toBe(kubernetes);
  });

  it('renames an identifier only when it is a configuration word whole', () => {
    expect(kubernetesIdentifier('orchConfigFile')).toBe('kubeConfigFile');
    expect(kubernetesIdentifier('orchConfigFileName')).toBeUndefined();
    expect(kubernetesIdentifier('orch.io')).toBeUndefined();
  });
});

describe('the literal mapper of the Kubernetes build', () => {
  const map = literalMapper(ts, 'kubernetes');
  const source = [
    "import { x } from './orch.io/module.ts';",
    '// a comment about orch.io stays as written',
    "const group = 'apps.orch.io';",
    'const key = `${group}/x-orch-${n}`;',
    'const re = /^[a-z]+\\.orch\\.io\\/x$/;',
    "const lazy = await import('./orch-system.ts');",
    'if (block.orchConfigFile) use(block.orchConfigFile);',
    'const orchard = "orchard";',
  ].join('\n');
  const out = map(source, 'm.ts').split('\n');

  it('maps string, template and regular expression literals', () => {
    expect(out[2]).toBe("const group = 'apps.k8s.io';");
    expect(out[3]).toBe('const key = `${group}/x-kubernetes-${n}`;');
    expect(out[4]).toBe('const re = /^[a-z]+\\.k8s\\.io\\/x$/;');
  });

  it('leaves module specifiers and comments, and words that merely contain orch', () => {
    expect(out[0]).toBe("import { x } from './orch.io/module.ts';");
    expect(out[1]).toBe('// a comment about orch.io stays as written');
    expect(out[5]).toBe("const lazy = await import('./orch-system.ts');");
    expect(out[7]).toBe('const orchard = "orchard";');
  });

  it('renames the configuration fields read as properties', () => {
    expect(out[6]).toBe('if (block.kubeConfigFile) use(block.kubeConfigFile);');
  });

  it('leaves the orch dialect as written', () => {
    expect(literalMapper(ts, 'orch')(source, 'm.ts')).toBe(source);
  });
});
