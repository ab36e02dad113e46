// Faults against doc1's core rules that suites/watch catches.
import type { Fault } from '../proxy.ts';

export const FAULTS: Fault[] = [
  {
    name: 'reorder-watch-events',
    breaks: 'doc1 § Events: the watch stream delivers changes in order',
    area: 'watch',
    catchers: ['watch/law/exactly-once-in-order'],
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
    watch: (s, line) =>
      line.includes('"MODIFIED"') && (s.dropped = ((s.dropped as number) ?? 0) + 1) % 2 === 1 ? [] : [line],
  },
];
