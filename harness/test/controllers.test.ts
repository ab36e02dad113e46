// Failures caused by a target without kube-controller-manager say so.
import { describe, expect, it } from 'vitest';
import { missingControllerHint, namespaceControllerHint } from '../src/controllers.ts';

describe('missing controller hints', () => {
  it('a Pod refused for the missing default ServiceAccount names the service-account controller', () => {
    // kube-apiserver 1.28's ServiceAccount admission plugin, in a namespace no controller set up
    const msg =
      'pods "p" is forbidden: error looking up service account ns1/default: serviceaccount "default" not found';
    expect(missingControllerHint(msg)).toContain('no service-account controller');
    expect(missingControllerHint(msg)).toContain('kube-controller-manager');
  });
  it('other failures get no hint', () => {
    expect(missingControllerHint('configmaps "x" not found')).toBe('');
    expect(missingControllerHint(undefined)).toBe('');
  });
  it('a namespace left in place names the namespace controller', () => {
    expect(namespaceControllerHint('ns1', 30)).toMatch(/ns1 still present after 30 s.*namespace controller/);
  });
});
