// doc1 § Limits: "Watch history retained | changes of the last 5 minutes by default". A watch
// from a version a few seconds old is served from the history: every change after it, no
// 410. (A target may declare a shorter window with ORCH_HISTORY_SECONDS.)
import { describe } from 'vitest';
import { check } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { waitInsideWindow } from '../../harness/src/retention.ts';
import { runEnv } from '../../harness/src/run-env.ts';
import { checkEvents, isBookmark, isError, lines, readUntilWrite, withRoom } from './support.ts';

describe('watch: history retention', () => {
  conformance(
    {
      id: 'watch/limits/history-retained',
      title:
        'A watch from a version written a few seconds ago (well within the retained history) streams every change after it, without 410',
      doc: 1,
      section: 'Limits',
      place: 'Watch history retained | changes of the last 5 minutes by default',
      specRules: ['doc1/limits/watch-history-retained-changes-last-5'],
      level: 'MUST',
    },
    async ({ client, step }) => {
      await withRoom(client, async (room) => {
        const a = await room.create('a', { v: '1' });
        const wait = waitInsideWindow(runEnv().ORCH_HISTORY_SECONDS);
        await step(`wait ${wait} s`, () => new Promise((r) => setTimeout(r, wait * 1000)));
        const b = await room.patch('a', { v: '2' });
        const c = await room.create('c', { v: '1' });
        const s = await room.watchOk(
          { watch: 1, resourceVersion: a.rv! },
          room.path,
          `a watch from ${a.rv}, ${wait} s old`,
        );
        const events = room.mine(await readUntilWrite(s, c)).filter((e) => !isBookmark(e));
        check(
          !events.some(isError),
          'no ERROR event (the version is inside the retained history)',
          lines(events),
        );
        checkEvents(events, [b, c], 'the changes after the version, in order');
      });
    },
    { timeout: 30_000 },
  );
});
