// `--feature-gates` as a Kubernetes 1.28 API server reads it: `Name=bool` pairs, each name one
// of the 1.28 gates; AllAlpha and AllBeta set every alpha (beta) gate not named explicitly;
// a locked gate (GA or DEPRECATED and non-operational) refuses the other value; setting a GA or
// DEPRECATED gate warns that it will be removed, and (doc2 rule 9) says whether it still works.
import { FEATURE_GATES_1_28, type GateSpec } from './gates-1.28.ts';

/** A gate list that cannot be applied; the message is 1.28's. */
export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

/** The gates' values: every 1.28 gate, AllAlpha and AllBeta included. */
export type GateValues = Record<string, boolean>;

/** Every gate at its 1.28 default. */
export function defaultFeatureGates(): GateValues {
  return Object.fromEntries(Object.entries(FEATURE_GATES_1_28).map(([name, spec]) => [name, spec.default]));
}

/** Go's strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
export function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** Parses `A=true,B=false` (spaces around entries allowed; a later entry wins), in 1.28's words on error. */
export function parseFeatureGateList(s: string): GateValues {
  const out: GateValues = {};
  for (const raw of s.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const i = entry.indexOf('=');
    if (i < 0) throw new FeatureGateError(`missing bool value for ${entry}`);
    const k = entry.slice(0, i).trim();
    const v = entry.slice(i + 1).trim();
    const b = parseGoBool(v);
    if (b === undefined)
      throw new FeatureGateError(
        `invalid value of ${k}=${v}, err: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`,
      );
    delete out[k];
    out[k] = b;
  }
  return out;
}

/** Whether the gate still changes anything: a locked gate does not. */
function operational(spec: GateSpec): string {
  return spec.locked
    ? `It is non-operational: it is locked to ${spec.default}.`
    : 'It is still operational until then.';
}

/**
 * The gates' values after `set` (names and values as given, in order), and the warnings a 1.28
 * server logs at start. Throws FeatureGateError for an unknown gate or a locked gate set to the
 * other value.
 */
export function resolveFeatureGates(set: Readonly<Record<string, boolean>>): {
  gates: GateValues;
  warnings: string[];
} {
  const explicit = new Map<string, boolean>();
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(set)) {
    const spec = FEATURE_GATES_1_28[name];
    if (!spec || !Object.hasOwn(FEATURE_GATES_1_28, name))
      throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (spec.locked && spec.default !== value)
      throw new FeatureGateError(
        `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`,
      );
    explicit.set(name, value);
    if (spec.stage === 'DEPRECATED')
      warnings.push(
        `Setting deprecated feature gate ${name}=${value}. It will be removed in a future release. ${operational(spec)}`,
      );
    else if (spec.stage === 'GA')
      warnings.push(
        `Setting GA feature gate ${name}=${value}. It will be removed in a future release. ${operational(spec)}`,
      );
  }
  const gates = defaultFeatureGates();
  // AllAlpha / AllBeta: every gate of the stage that is not named explicitly, whatever the order
  const all: [string, GateSpec['stage']][] = [
    ['AllAlpha', 'ALPHA'],
    ['AllBeta', 'BETA'],
  ];
  for (const [special, stage] of all) {
    const v = explicit.get(special);
    if (v === undefined) continue;
    for (const [name, spec] of Object.entries(FEATURE_GATES_1_28)) if (spec.stage === stage) gates[name] = v;
  }
  for (const [name, value] of explicit) gates[name] = value;
  return { gates, warnings };
}

/** The alpha and beta gates as a 1.28 server's help lists them: `Name=true|false (STAGE - default=x)`. */
export function knownFeatureGates(): string[] {
  return Object.entries(FEATURE_GATES_1_28)
    .filter(([, s]) => s.stage === 'ALPHA' || s.stage === 'BETA')
    .map(([name, s]) => `${name}=true|false (${s.stage} - default=${s.default})`)
    .sort();
}
