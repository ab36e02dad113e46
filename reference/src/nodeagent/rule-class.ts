// The classes of rules a node agent configuration is checked against. Every check belongs to
// one, so a caller can name the classes to leave out (the fault meta test builds deliberately
// incomplete validators this way).
export const RULE_CLASSES = [
  'unknown-fields',
  'duplicate-fields',
  'required',
  'ranges',
  'values',
  'cross-field',
  'durations',
  'cpu-lists',
  'eviction-signals',
  'formats',
  'credential-providers',
] as const;

export type RuleClass = (typeof RULE_CLASSES)[number];

export interface RuleOptions {
  /** Classes of rules not checked. */
  without?: ReadonlySet<RuleClass>;
}

export const checks = (opts: RuleOptions | undefined, c: RuleClass): boolean => !opts?.without?.has(c);
