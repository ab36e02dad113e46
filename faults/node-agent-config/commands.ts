// The faults of the node agent configuration suite. That suite runs commands, not requests, so
// its faults are faulty commands rather than proxy hooks: each is the reference validator (or
// defaulter) with one class of rules left out (reference/src/nodeagent/rule-class.ts), run by
// faults/node-agent-config/faulty.ts. Each names the cases that must catch it (an id,
// or an id prefix ending in '/') and the words their failure must hold: the reason it failed.
// faults/test/node-config-meta.test.ts runs the suite with each.

export interface NodeConfigFault {
  name: string;
  /** Which command is faulty. */
  command: 'validator' | 'defaulter';
  /**
   * The class of rules the faulty validator leaves out; 'defaults' for the defaulter (none
   * applied); 'original-names' for a validator that refuses the renamed fields too.
   */
  without: string;
  breaks: string;
  catchers: string[];
  /** A catcher's failure message must match this (it failed for the fault's reason). */
  reason: RegExp;
}

const A = 'node-agent-config/';
/** A validator fault is seen as a refused file that was accepted. */
const ACCEPTED = /exit code 0 \(accepted\)/;

const validator = (without: string, breaks: string, catchers: string[]): NodeConfigFault => ({
  name: `node-config-without-${without}`,
  command: 'validator',
  without,
  breaks,
  catchers: catchers.map((c) => `${A}${c}`),
  reason: ACCEPTED,
});

export const NODE_CONFIG_FAULTS: NodeConfigFault[] = [
  validator('ranges', 'numeric ranges are not checked (port 0, oomScoreAdj 5000 accepted)', [
    'ranges/',
    'required/errors-at-once',
    'properties/one-rule-broken',
  ]),
  validator('required', 'required fields may be missing', [
    'required/',
    'credential-providers/no-match-images',
    'credential-providers/cache-duration-missing',
    'credential-providers/api-version-missing',
    'credential-providers/no-providers',
    'properties/one-rule-broken',
  ]),
  validator(
    'cross-field',
    'rules between fields are not checked (high not above low, podsPerCore above maxPods, ...)',
    ['cross-field/', 'properties/one-rule-broken'],
  ),
  validator('durations', 'duration strings are not parsed (1x, 10, "1h 2m" accepted)', [
    'durations/',
    'required/errors-at-once',
    'credential-providers/cache-duration-syntax',
    'properties/one-rule-broken',
  ]),
  validator('cpu-lists', 'CPU lists are not parsed (3-1, all accepted)', [
    'cpu-lists/',
    'properties/one-rule-broken',
  ]),
  validator('eviction-signals', 'eviction maps take any key and any threshold', [
    'eviction/',
    'properties/one-rule-broken',
  ]),
  validator('unknown-fields', 'unknown fields (the original names among them) are ignored', [
    'unknown-fields/',
    'credential-providers/unknown-field',
    'node-config-source/unknown-field',
    'properties/one-rule-broken',
  ]),
  validator('duplicate-fields', 'a field given twice is taken (the last value wins)', [
    'unknown-fields/duplicate',
    'unknown-fields/duplicate-json',
  ]),
  validator(
    'values',
    'allowed values and keys are not checked (cgroupDriver openrc, qosReserved cpu accepted)',
    ['values/', 'cross-field/hidden-metrics-current', 'cross-field/hidden-metrics-older'],
  ),
  validator('formats', 'text formats are not checked (relative cgroup names, quantities, sysctl patterns)', [
    'values/',
  ]),
  validator(
    'credential-providers',
    'credential provider image patterns, apiVersions and names are not checked',
    ['credential-providers/'],
  ),
  {
    name: 'node-config-original-names',
    command: 'validator',
    without: 'original-names',
    breaks:
      'the renamed fields (agentCgroups, orchAPIQPS, orchAPIBurst, orchReserved, orchReservedCgroup) are refused as unknown',
    catchers: [
      `${A}unknown-fields/renamed-accepted`,
      `${A}values/orch-reserved-local-storage`,
      `${A}values/reserved-cgroup-absolute`,
      `${A}properties/valid-round-trip`,
    ],
    reason: /the validator accepts (the file|a valid configuration)/,
  },
  {
    name: 'node-config-defaulter-without-defaults',
    command: 'defaulter',
    without: 'defaults',
    breaks: 'the defaulter prints the file as given, with no default applied',
    catchers: [`${A}defaults/`],
    reason: /in the defaulter's output/,
  },
];
