// Event events.orch.io/v1beta1 to events.orch.io/v1: same fields, stricter creation rules
// (doc2): `type` is Normal or Warning; `action`, `reason`, `reportingController` and
// `reportingInstance` are required; the `deprecated*` fields of the old event model are not
// permitted in new events (`eventTime` and `series` replace them).
import type { Rule } from '../types.ts';

const OLD = ['deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount'];

/** A time as the micro-second timestamp `eventTime` takes. */
function microTime(t: string): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export const eventRules: Rule[] = [
  {
    kinds: ['Event'],
    from: ['events.orch.io/v1beta1'],
    to: 'events.orch.io/v1',
    convert: (o, _from, notes) => {
      if (!o.eventTime && o.deprecatedFirstTimestamp) {
        o.eventTime = microTime(o.deprecatedFirstTimestamp);
        notes.push('eventTime: taken from deprecatedFirstTimestamp');
      }
      for (const f of OLD)
        if (f in o) {
          delete o[f];
          notes.push(`${f}: removed (not permitted in new events; eventTime and series replace it)`);
        }
      if (o.type !== undefined && o.type !== 'Normal' && o.type !== 'Warning')
        notes.push(`type: ${JSON.stringify(o.type)} is refused by events.orch.io/v1 (Normal or Warning)`);
      for (const f of ['action', 'reason', 'reportingController', 'reportingInstance'])
        if (!o[f]) notes.push(`${f}: unset; events.orch.io/v1 requires it when an event is created`);
      return o;
    },
  },
];
