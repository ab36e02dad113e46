// doc3 § Node agent configuration, property-based (fast-check): random valid configurations
// (config-arbitrary.ts, drawn from the table alone) are accepted, and survive a round trip
// default -> serialize -> load unchanged: the defaulter keeps every field that was given,
// its output is itself valid, and defaulting it again changes nothing. A valid configuration
// with one rule broken (BREAKERS) is refused, naming the field at fault. A failure prints
// fast-check's seed and path (replay with --seed and ORCH_SEED). No API server is used.
import fc from 'fast-check';
import { describe } from 'vitest';
import { parse, stringify } from 'yaml';
import { ConformanceError, deepEqual, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { propertySettings } from '../../harness/src/session.ts';
import { type CaseDef, describePlace } from '../../harness/src/spec.ts';
import {
  type CommandResult,
  defaulterCommand,
  describeRun,
  namesPath,
  outputOf,
  runOnText,
  validatorCommand,
} from './commands.ts';
import { BREAKERS, validConfig } from './config-arbitrary.ts';
import { goDurationNs } from './go-duration.ts';

type Obj = Record<string, unknown>;
const RUNS = 8;
const BROKEN_RUNS = 20;

class Counterexample extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`Expected: ${expected}\nActual: ${actual}`);
  }
}

function expect(ok: boolean, expected: string, actual: () => string): asserts ok {
  if (!ok) throw new Counterexample(expected, actual());
}

/** Runs a property; a counterexample fails the case with fast-check's seed, path and shrunk input. */
async function property<T>(
  def: CaseDef,
  arb: fc.Arbitrary<T>,
  body: (v: T) => Promise<void>,
  runs: number,
): Promise<void> {
  const details = await fc.check(fc.asyncProperty(arb, body), propertySettings(runs));
  if (!details.failed) return;
  const e = details.errorInstance;
  const replay = `seed ${details.seed}, path "${details.counterexamplePath}" (replay: --seed=${details.seed})`;
  if (e instanceof Counterexample)
    throw new ConformanceError(
      `${describePlace(def)}: ${def.title}`,
      e.expected,
      `${e.actual}\n  counterexample (${replay}):\n${show(details.counterexample)}`,
    );
  throw new Error(
    `${def.title}: ${String((e as Error)?.message ?? e)}\n  counterexample (${replay}): ${show(details.counterexample)}`,
  );
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `kept` holds `given`: equal values (durations by value), objects key by key (defaults may be added). */
function keeps(kept: unknown, given: unknown): boolean {
  if (isObject(given)) return isObject(kept) && Object.entries(given).every(([k, v]) => keeps(kept[k], v));
  return (
    deepEqual(kept, given) ||
    (goDurationNs(given) !== undefined && goDurationNs(kept) === goDurationNs(given))
  );
}

function defaultedOf(r: CommandResult): Obj {
  expect(r.code === 0, 'the defaulter prints the defaulted file (exit code 0)', () => describeRun(r));
  let doc: unknown;
  try {
    doc = parse(r.stdout);
  } catch (e) {
    throw new Counterexample(
      'the defaulter prints YAML or JSON',
      `${(e as Error).message}; ${describeRun(r)}`,
    );
  }
  expect(
    doc !== null && typeof doc === 'object' && !Array.isArray(doc),
    'the defaulter prints an object',
    () => describeRun(r),
  );
  return doc as Obj;
}

const PLACE =
  'Kind `NodeAgentConfiguration`, apiVersion `nodeagent.config.orch.io/v1beta1` ... (every row of the table: its defaults and constraints)';
/**
 * The rule the properties name: the document's kind sentence (each row of the table is named by
 * the row cases of rows/*.yaml, which check it one by one).
 */
const SPEC_RULES = [
  'doc3/node-agent-configuration/kind-nodeagentconfiguration-apiversion-nodeagent-config-orch',
];

describe.concurrent('node agent configuration properties', () => {
  const roundTrip: CaseDef = {
    id: 'node-agent-config/properties/valid-round-trip',
    title: 'random valid configurations are accepted, and default -> serialize -> load keeps them unchanged',
    doc: 3,
    section: 'Node agent configuration',
    place: PLACE,
    specRules: SPEC_RULES,
    level: 'MUST',
  };
  conformance(
    roundTrip,
    () =>
      property(
        roundTrip,
        validConfig,
        async (config) => {
          const text = stringify(config);
          const [valid, defaulted] = await Promise.all([
            runOnText(validatorCommand(), text),
            runOnText(defaulterCommand(), text),
          ]);
          expect(valid.code === 0, 'the validator accepts a valid configuration (exit code 0)', () =>
            describeRun(valid),
          );
          const d1 = defaultedOf(defaulted);
          for (const [k, v] of Object.entries(config))
            expect(keeps(d1[k], v), `the defaulter keeps ${k}: ${show(v)}`, () => `${k}: ${show(d1[k])}`);
          const text2 = stringify(d1);
          const [valid2, again] = await Promise.all([
            runOnText(validatorCommand(), text2),
            runOnText(defaulterCommand(), text2),
          ]);
          expect(valid2.code === 0, "the validator accepts the defaulter's output", () =>
            describeRun(valid2),
          );
          const d2 = defaultedOf(again);
          expect(
            deepEqual(d2, d1),
            'defaulting the defaulted file again changes nothing',
            () => `first: ${show(d1)}\n  again: ${show(d2)}`,
          );
        },
        RUNS,
      ),
    { timeout: 240_000 },
  );

  const broken: CaseDef = {
    id: 'node-agent-config/properties/one-rule-broken',
    title: 'a random valid configuration with one rule broken is refused, naming the field',
    doc: 3,
    section: 'Node agent configuration',
    place: PLACE,
    specRules: SPEC_RULES,
    level: 'MUST',
  };
  const brokenArb = fc
    .tuple(validConfig, fc.constantFrom(...BREAKERS))
    .chain(([c, b]) => b.apply(c).map((x) => ({ rule: b.name, ...x })));
  conformance(
    broken,
    () =>
      property(
        broken,
        brokenArb,
        async ({ rule, config, paths }) => {
          const r = await runOnText(validatorCommand(), stringify(config));
          expect(
            r.code !== 0 && r.code !== null,
            `the validator refuses a file with ${rule} (a non-zero exit code)`,
            () => describeRun(r),
          );
          expect(
            paths.some((p) => namesPath(outputOf(r), p)),
            `the validator's output names ${paths.map((p) => JSON.stringify(p)).join(' or ')} (${rule})`,
            () => describeRun(r),
          );
        },
        BROKEN_RUNS,
      ),
    { timeout: 240_000 },
  );
});
