// Faults against doc1's core rules that suites/chunking catches.
import type { FaultHooks } from '../proxy.ts';
import { mapJson } from '../util.ts';

export const HOOKS: FaultHooks[] = [
  {
    name: 'drop-continue',
    // narrowed: the first chunk keeps its token (the cases that need one token to run keep their
    // setup); a walk of three chunks or more stops early
    response: (r, res) =>
      r.url.searchParams.get('continue')
        ? mapJson(res, (j) =>
            j?.metadata?.continue ? { ...j, metadata: { ...j.metadata, continue: undefined } } : j,
          )
        : res,
  },
];
