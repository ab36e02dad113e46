// Faults against doc1's core rules that suites/watch catches.
import type { Fault } from '../proxy.ts';
import { STREAM_CASES } from '../util.ts';

export const FAULTS: Fault[] = [
  {
    name: 'reorder-watch-events',
    breaks: 'doc1 § Events: the watch stream delivers changes in order',
    area: 'watch',
    catchers: ['watch/law/exactly-once-in-order'],
    // every case that compares a stream with exactly the events of its writes checks each of
    // the stream's rules (once, in order, the right type, the right version): see STREAM_CASES
    // (a held event that never gets a follower is sent at the end of the stream, too late for a case waiting for it)
    // the expiry cases read streams of their writes too (before and after the window passes)
    alsoFails: [...STREAM_CASES, 'watch/start/expired-error-event', 'watch/start/expired-gone'],
    watch: (s, line) => {
      if (line.includes('"BOOKMARK"') || line.includes('"ERROR"')) return [line];
      if (s.held === undefined) {
        s.held = line;
        return [];
      }
      const h = s.held;
      s.held = undefined;
      return [line, h];
    },
  },
  {
    name: 'drop-watch-events',
    breaks: 'doc1 § Watch recovery: no change is lost',
    area: 'watch',
    catchers: ['watch/law/restart-at-any-cut', 'watch/law/exactly-once-in-order'],
    // every case that compares a stream with exactly the events of its writes checks each of
    // the stream's rules (once, in order, the right type, the right version): see STREAM_CASES
    alsoFails: STREAM_CASES,
    watch: (s, line) =>
      line.includes('"MODIFIED"') && (s.dropped = ((s.dropped as number) ?? 0) + 1) % 2 === 1 ? [] : [line],
  },
];
