// The admission chain's order and its answers: every plugin of every source in order, mutating
// phase first, whether a plugin answers at once or later; a phase whose plugins all answered at
// once answers at once (nothing to await), and a rejection stops the phase where it happens.
import { describe, expect, it } from 'vitest';
import { AdmissionChain } from '../src/admission/chain.ts';
import type { AdmissionPlugin } from '../src/admission/types.ts';
import { serverContext } from '../src/admission/plugins/support.ts';
import { errors } from '../src/errors/status.ts';
import { build } from '../src/index.ts';
import { isPromise } from '../src/util/maybe-async.ts';
import { admissionAttributes } from './admission-attributes.ts';

const later = () => new Promise<void>((r) => setTimeout(r, 1));

/** A plugin that notes its calls in `seen`, answering at once or after a timer. */
function plugin(name: string, seen: string[], async: boolean, skip = false): AdmissionPlugin {
  const note = (phase: string) => () => {
    seen.push(`${phase}:${name}`);
    return async ? later() : undefined;
  };
  return { name, handles: () => !skip, mutate: note('mutate'), validate: note('validate') };
}

const attrs = () =>
  admissionAttributes({
    operation: 'CREATE',
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'default',
    name: 'x',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
  });

describe('admission chain', () => {
  it('runs every plugin of every source in order, resuming after a plugin that answers later', async () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([
      plugin('a', seen, false),
      plugin('b', seen, true),
      plugin('skipped', seen, false, true),
      plugin('c', seen, false),
    ]);
    chain.addSource(() => [plugin('d', seen, true), plugin('e', seen, false)]);
    const a = attrs();
    const m = chain.mutate(a);
    expect(isPromise(m)).toBe(true);
    await m;
    await chain.validate(a);
    const order = ['a', 'b', 'c', 'd', 'e'];
    expect(seen).toEqual([...order.map((n) => `mutate:${n}`), ...order.map((n) => `validate:${n}`)]);
  });

  it('answers at once when every plugin did', () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([plugin('a', seen, false), plugin('b', seen, false)]);
    chain.addSource(() => [plugin('c', seen, false)]);
    const a = attrs();
    expect(chain.mutate(a)).toBeUndefined();
    expect(chain.validate(a)).toBeUndefined();
    expect(seen).toEqual(['mutate:a', 'mutate:b', 'mutate:c', 'validate:a', 'validate:b', 'validate:c']);
  });

  it('stops a phase at the plugin that rejects, at once or later', async () => {
    const seen: string[] = [];
    const refuse = (async: boolean): AdmissionPlugin => ({
      name: 'refuse',
      validate: () => {
        seen.push('validate:refuse');
        const e = errors.forbidden('no');
        if (async) return later().then(() => Promise.reject(e));
        throw e;
      },
    });
    const now = new AdmissionChain([plugin('a', seen, false), refuse(false), plugin('b', seen, false)]);
    expect(() => now.validate(attrs())).toThrow('no');
    const afterwards = new AdmissionChain([plugin('a', seen, true), refuse(true), plugin('b', seen, true)]);
    await expect(afterwards.validate(attrs())).rejects.toThrow('no');
    expect(seen).toEqual(['validate:a', 'validate:refuse', 'validate:a', 'validate:refuse']);
  });

  it('runs the mutating phase again when a plugin asks for it, once', async () => {
    const seen: string[] = [];
    const asks: AdmissionPlugin = {
      name: 'asks',
      mutate: (a) => {
        seen.push('mutate:asks');
        if (a.reinvocation) a.reinvocation.shouldReinvoke = true;
        return later();
      },
    };
    const chain = new AdmissionChain([asks, plugin('b', seen, false)]);
    await chain.mutate(attrs());
    expect(seen).toEqual(['mutate:asks', 'mutate:b', 'mutate:asks', 'mutate:b']);
  });
});

describe("a server's default plugins", () => {
  it('answer a write at once where no quota or webhook applies, and still enforce a quota once there is one', async () => {
    const s = await build({ inMemory: true, tls: false, controllers: [] });
    try {
      // nothing of the default set has to wait: no promise, no turn of the microtask queue
      const a = attrs();
      expect(s.admission.mutate(a)).toBeUndefined();
      expect(s.admission.validate(a)).toBeUndefined();
      await s.registry.byResource('', 'resourcequotas')!.store.create(
        'default',
        {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          metadata: { name: 'none' },
          spec: { hard: { 'count/configmaps': '0' } },
        },
        serverContext(),
        'v1',
      );
      const b = attrs();
      await s.admission.mutate(b);
      const refused = s.admission.validate(b);
      expect(isPromise(refused)).toBe(true);
      await expect(refused).rejects.toMatchObject({
        message: expect.stringContaining('exceeded quota: none'),
      });
    } finally {
      await s.close();
    }
  });
});
