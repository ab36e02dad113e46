// Faults against doc1's core rules that suites/field-validation catches.
import type { FaultHooks } from '../proxy.ts';

export const HOOKS: FaultHooks[] = [
  {
    name: 'strip-warnings',
    response: (_r, res) => {
      const headers = { ...res.headers };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'warning') delete headers[k];
      return { ...res, headers };
    },
  },
];
