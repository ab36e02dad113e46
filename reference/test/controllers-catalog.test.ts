// `--controllers` as Kubernetes 1.28's controller manager reads it (its source,
// cmd/kube-controller-manager/app/controllermanager.go and staging/src/k8s.io/controller-manager:
// ControllersDisabledByDefault is bootstrapsigner and tokencleaner; IsControllerEnabled lets the
// first entry naming a controller decide; a name, short or canonical, that is not a controller
// is "not in the list of known controllers").
import { describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { CONTROLLERS, controllerEnabled } from '../src/controllers/catalog.ts';

describe('--controllers', () => {
  it('the default set `*` is every controller but the token cleaner and the bootstrap signer', () => {
    const on = CONTROLLERS.filter((c) => controllerEnabled(undefined, c.name)).map((c) => c.name);
    expect(on.sort()).toEqual([
      'deployment',
      'garbagecollector',
      'namespace',
      'replicaset',
      'resourcequota',
      'root-ca-cert-publisher',
      'serviceaccount',
    ]);
    expect(controllerEnabled(['*'], 'tokencleaner')).toBe(false);
    expect(controllerEnabled(['*'], 'bootstrapsigner')).toBe(false);
  });

  it('what a cluster runs (*,tokencleaner,bootstrapsigner) is every controller', () => {
    for (const c of CONTROLLERS)
      expect(controllerEnabled(['*', 'tokencleaner', 'bootstrapsigner'], c.name), c.name).toBe(true);
  });

  it('a list without `*` runs only what it names; -name switches one off', () => {
    expect(controllerEnabled(['deployment'], 'replicaset')).toBe(false);
    expect(controllerEnabled(['deployment'], 'deployment')).toBe(true);
    expect(controllerEnabled(['*', '-garbagecollector'], 'garbagecollector')).toBe(false);
    expect(controllerEnabled(['-garbage-collector-controller', '*'], 'garbagecollector')).toBe(false);
    expect(controllerEnabled([], 'namespace')).toBe(false);
  });

  it('the flag takes short and canonical names and refuses others', () => {
    expect(
      parseServeArgs(['--controllers=*,root-ca-certificate-publisher-controller,-deployment'])!.options
        .controllers,
    ).toEqual(['*', 'root-ca-certificate-publisher-controller', '-deployment']);
    expect(() => parseServeArgs(['--controllers=*,-bogus'])).toThrow(UsageError);
    expect(() => parseServeArgs(['--controllers=*,-bogus'])).toThrow(
      /"bogus" is not in the list of known controllers/,
    );
  });
});
