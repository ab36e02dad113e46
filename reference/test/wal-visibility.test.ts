// A change of the write-ahead log becomes visible (to watchers, and through them to clients)
// only once its record is in the log file: a kill -9 then keeps it (the page cache survives
// the process), so no client ever sees a change that a restart forgets and whose version the
// restarted server would hand out again. With fdatasync the records of a batch used to wait
// in memory while the sync slots were busy, already visible to watchers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ChangeEvent, KObject } from '../src/storage/types.ts';
import { WriteAheadLog } from '../src/storage/wal.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-walvis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cm = (name: string): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns' },
    data: { k: name },
  }) as KObject;

it('every change a watcher sees is already in the log file (fdatasync on, syncs in flight)', async () => {
  const store = WriteAheadLog.open({ dir, sync: true });
  const log = join(dir, 'changes.log');
  const unseen: number[] = [];
  let checked = 0;
  // a watch answer goes out on a later turn of the event loop, as the watch handler sends it
  store.watch('/configmaps', 0, (ev: ChangeEvent) =>
    setImmediate(() => {
      checked++;
      if (!readFileSync(log, 'utf8').includes(`"r":${ev.rv},`)) unseen.push(ev.rv);
    }),
  );
  // many writes in many turns: fdatasyncs are in flight while later writes come
  const writes: Promise<unknown>[] = [];
  for (let turn = 0; turn < 40; turn++) {
    for (let i = 0; i < 5; i++)
      writes.push(store.create('/configmaps', `/configmaps/ns/c${turn}-${i}`, cm(`c${turn}-${i}`)));
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(writes);
  await new Promise((r) => setImmediate(r));
  await store.close();
  expect(checked).toBe(200);
  expect(unseen).toEqual([]);
});
