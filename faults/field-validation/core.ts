// Faults against doc1's core rules that suites/field-validation catches.
import type { Fault } from '../proxy.ts';

export const FAULTS: Fault[] = [
  {
    name: 'strip-warnings',
    breaks: 'doc1 § Headers: Warning, one entry per dropped unknown or duplicate field',
    area: 'field-validation',
    catchers: ['field-validation/warn/', 'field-validation/custom/pruned-warn'],
    response: (_r, res) => {
      const headers = { ...res.headers };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'warning') delete headers[k];
      return { ...res, headers };
    },
  },
];
