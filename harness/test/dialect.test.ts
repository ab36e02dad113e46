// The word mapping against Kubernetes' own spellings, as a kube-apiserver 1.28 with its
// controller manager answered them (run --kubernetes-assets): group names keep k8s.io, while
// taints, pod security labels, the bootstrap token type and the well-known names use
// kubernetes.io.
import { describe, expect, it } from 'vitest';
import { dialect } from '../src/dialect.ts';

const k = dialect('kubernetes');

describe('dialect kubernetes', () => {
  it.each([
    ['node.orch.io/v1', 'node.k8s.io/v1'],
    ['/apis/node.orch.io/v1/runtimeclasses', '/apis/node.k8s.io/v1/runtimeclasses'],
    ['node.orch.io/not-ready', 'node.kubernetes.io/not-ready'],
    ['node.orch.io/unreachable', 'node.kubernetes.io/unreachable'],
    ['pod-security.orch.io/enforce', 'pod-security.kubernetes.io/enforce'],
    ['bootstrap.orch.io/token', 'bootstrap.kubernetes.io/token'],
    ['orch.io/service-account-token', 'kubernetes.io/service-account-token'],
    ['orch.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client'],
    ['orch.io/metadata.name', 'kubernetes.io/metadata.name'],
    ['orch-root-ca.crt', 'kube-root-ca.crt'],
    ['orch.io/description', 'kubernetes.io/description'],
    ['orch-api-access-x7q2d', 'kube-api-access-x7q2d'],
    ['deployment.orch.io/revision', 'deployment.kubernetes.io/revision'],
    ['orch.io/initial-events-end', 'k8s.io/initial-events-end'],
    ['orch-system', 'kube-system'],
  ])('%s <-> %s', (orch, kube) => {
    expect(k.w(orch)).toBe(kube);
    expect(k.back(kube)).toBe(orch);
  });

  it('keeps a key __proto__ a key when mapping a JSON value', () => {
    const v = JSON.parse('{"extra":{"__proto__":["p"],"a":["b"]}}');
    const mapped = k.in(v) as { extra: Record<string, string[]> };
    expect(Object.keys(mapped.extra)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(mapped.extra, '__proto__')?.value).toEqual(['p']);
    expect(Object.getPrototypeOf(mapped.extra)).toBe(Object.prototype);
  });
});
