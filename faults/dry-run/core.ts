// Faults against doc1's core rules that suites/dry-run catches.
import type { FaultHooks } from '../proxy.ts';

export const HOOKS: FaultHooks[] = [
  {
    name: 'ignore-dry-run',
    // narrowed: a dryRun value other than All (or bare) is left alone (its refusal is another rule)
    request: (r) => {
      if (!['All', ''].includes(r.url.searchParams.get('dryRun') ?? 'unset')) return r;
      const url = new URL(r.url);
      url.searchParams.delete('dryRun');
      return { ...r, url };
    },
  },
];
