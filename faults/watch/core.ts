// Faults against doc1's core rules that suites/watch catches.
import type { FaultHooks } from '../proxy.ts';

export const HOOKS: FaultHooks[] = [
  {
    name: 'reorder-watch-events',
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
    watch: (s, line) =>
      line.includes('"MODIFIED"') && (s.dropped = ((s.dropped as number) ?? 0) + 1) % 2 === 1 ? [] : [line],
  },
];
