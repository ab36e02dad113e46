// Faults against doc1's core rules that suites/dry-run catches.
import type { Fault } from '../proxy.ts';
import { DRY_RUN_WRITE_CASES } from '../util.ts';

export const FAULTS: Fault[] = [
  {
    name: 'ignore-dry-run',
    breaks: 'doc1 § Dry run: nothing is persisted',
    area: 'dry-run',
    catchers: [...DRY_RUN_WRITE_CASES, 'dry-run/generate-name', 'dry-run/watch/no-events'],
    // narrowed: a dryRun value other than All (or bare) is left alone (its refusal is another rule)
    request: (r) => {
      if (!['All', ''].includes(r.url.searchParams.get('dryRun') ?? 'unset')) return r;
      const url = new URL(r.url);
      url.searchParams.delete('dryRun');
      return { ...r, url };
    },
  },
];
