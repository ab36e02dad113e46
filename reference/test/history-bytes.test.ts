// The store's history keeps objects that are no longer current as their JSON bytes
// (reference/src/storage/past.ts). A law: whatever the writes, reads at every past version,
// reads of one object at a past version, and a watch replayed from the start answer exactly
// what the live state and the live watch said at the time; the current objects stay the very
// objects written.
import { fc, it } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { MemoryStore } from '../src/storage/memory.ts';
import type { ChangeEvent, KObject } from '../src/storage/types.ts';

const B = 'core/configmaps';
const KEYS = ['n1/a', 'n1/b', 'n2/a'].map((k) => `${B}/${k}`);

type Op = { op: 'put' | 'delete'; key: number; value: number };
const ops = fc.array(
  fc.record({
    op: fc.constantFrom<Op['op']>('put', 'put', 'delete'),
    key: fc.integer({ min: 0, max: KEYS.length - 1 }),
    value: fc.integer({ min: 0, max: 1000 }),
  }),
  { minLength: 1, maxLength: 40 },
);

const plain = (x: unknown) => JSON.parse(JSON.stringify(x ?? null));
const seen = (ev: ChangeEvent) =>
  plain({ rv: ev.rv, type: ev.type, key: ev.key, obj: ev.obj, prev: ev.prev });

describe('the history kept as bytes', () => {
  it.prop([ops], { numRuns: Number(process.env.ORCH_RUNS) || 100 })(
    'past reads and replays answer what the live store said',
    async (list) => {
      const s = new MemoryStore();
      const live: unknown[] = [];
      s.watch(B, 0, (ev) => live.push(seen(ev)));
      /** The bucket's state (as JSON) after each revision. */
      const states = new Map<number, unknown>();
      const written = new Map<string, KObject>();
      for (const o of list) {
        const key = KEYS[o.key]!;
        const [ns, name] = key.slice(B.length + 1).split('/');
        const cur = s.get(key);
        if (o.op === 'delete') {
          if (!cur) continue;
          await s.delete(B, key);
          written.delete(key);
        } else {
          const obj: KObject = {
            metadata: { name, namespace: ns, labels: { v: String(o.value) } },
            data: { v: o.value },
          };
          if (cur) await s.update(B, key, obj);
          else await s.create(B, key, obj);
          written.set(key, obj);
        }
        states.set(s.revision(), plain(s.list(B, '').map((x) => x.obj)));
      }
      for (const [rv, state] of states) {
        expect(plain(s.list(B, '', rv).map((x) => x.obj)), `list at ${rv}`).toEqual(state);
        for (const key of KEYS) {
          const want = (state as KObject[]).find(
            (x) => `${B}/${x.metadata.namespace}/${x.metadata.name}` === key,
          );
          expect(plain(s.getAt(key, rv)), `${key} at ${rv}`).toEqual(plain(want));
        }
      }
      const replayed: unknown[] = [];
      s.watch(B, 0, (ev) => replayed.push(seen(ev)))();
      expect(replayed).toEqual(live);
      // the current objects are the objects written (not copies made from bytes)
      for (const [key, obj] of written) expect(s.get(key)?.obj).toBe(obj);
    },
  );
});
