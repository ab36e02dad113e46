// The operations of a differential run (`orch-conformance diff`), as plain records fast-check
// draws and shrinks: every verb of doc1 and doc2 on objects the run owns (ConfigMaps, Secrets
// and the run's own custom resource), over a few names so that the operations meet each other.
import fc from 'fast-check';

/** The kinds an operation acts on: two built-in ones and the run's custom resource. */
export const KINDS = ['configmaps', 'secrets', 'widgets'] as const;
export type Kind = (typeof KINDS)[number];

/** The names the operations share; `missing` is never created. */
export const NAMES = ['a', 'b', 'c', 'missing'] as const;
export type Name = (typeof NAMES)[number];

/** Values valid in a ConfigMap, a Secret (base64) and the custom resource alike. */
export const VALUES = ['YQ==', 'Yg==', 'Yw=='] as const;
export const KEYS = ['k1', 'k2', 'k3'] as const;
export const MANAGERS = ['alice', 'bob', 'carol'] as const;
export const FINALIZER = 'example.com/keep';

/** `dryRun=All`, a bare `dryRun` (doc1 § Dry run accepts both), or none. */
export type DryRun = 'All' | 'bare' | undefined;

export type Labels = Partial<Record<'tier' | 'app', string>>;
export type Data = Partial<Record<(typeof KEYS)[number], string>>;

export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export type Op =
  | {
      op: 'create';
      kind: Kind;
      name: Name | 'generate';
      data: Data;
      labels: Labels;
      finalizer: boolean;
      dryRun: DryRun;
      /** `fieldValidation=Strict` with a field the schema lacks. */
      unknownField: boolean;
    }
  | { op: 'get'; kind: Kind; name: Name }
  | {
      op: 'update';
      kind: Kind;
      name: Name;
      data: Data;
      labels: Labels;
      /** The version sent: the last one seen, the first one seen (stale once changed), or none. */
      version: 'current' | 'first' | 'none';
      dryRun: DryRun;
    }
  | { op: 'merge-patch'; kind: Kind; name: Name; patch: MergePatch; dryRun: DryRun; strict: boolean }
  | { op: 'strategic-patch'; kind: Kind; name: Name; patch: MergePatch; dryRun: DryRun }
  | { op: 'json-patch'; kind: Kind; name: Name; patch: JsonPatchOp[]; dryRun: DryRun }
  | {
      op: 'apply';
      kind: Kind;
      name: Name;
      manager: (typeof MANAGERS)[number];
      data: Data;
      labels: Labels;
      force: boolean;
      dryRun: DryRun;
    }
  | { op: 'delete'; kind: Kind; name: Name; dryRun: DryRun; precondition: 'none' | 'current' | 'first' }
  | { op: 'list'; kind: Kind; selector: string; fieldSelector?: string; limit?: number }
  | {
      op: 'watch';
      kind: Kind;
      /** Which version seen so far in the sequence the watch starts from (modulo their count). */
      from: number;
    };

export interface MergePatch {
  data?: Record<string, string | null>;
  labels?: Record<string, string | null>;
  /** Add the run's finalizer, or remove every finalizer. */
  finalizers?: 'add' | 'clear';
  /** `metadata.managedFields: []` (doc2: "Setting an empty list does not reset it"). */
  clearManagedFields?: boolean;
  /** A field the schema lacks. */
  unknownField?: boolean;
}

/** Label selectors of lists (each also requires the run's own label; watches select by it alone). */
export const SELECTORS = ['', 'tier=x', 'tier!=x', 'app in (p,q)', '!app', 'tier'] as const;

const kind = fc.constantFrom(...KINDS);
const name = fc.constantFrom(...NAMES);
const known: fc.Arbitrary<Name> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('a' as const) },
  { weight: 2, arbitrary: fc.constant('b' as const) },
  { weight: 1, arbitrary: fc.constant('c' as const) },
);
const someName = fc.oneof({ weight: 5, arbitrary: known }, { weight: 1, arbitrary: name });
const value = fc.constantFrom(...VALUES);
const data: fc.Arbitrary<Data> = fc.record(
  { k1: value, k2: value, k3: value },
  { requiredKeys: [] },
) as fc.Arbitrary<Data>;
const labels: fc.Arbitrary<Labels> = fc.record(
  { tier: fc.constantFrom('x', 'y'), app: fc.constantFrom('p', 'q', 'r') },
  { requiredKeys: [] },
);
const dryRun: fc.Arbitrary<DryRun> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant('All' as const) },
  { weight: 1, arbitrary: fc.constant('bare' as const) },
);
const key = fc.constantFrom(...KEYS);
/** True one time in ten. */
const rarely = fc.oneof(
  { weight: 9, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);
const mergePatch: fc.Arbitrary<MergePatch> = fc.record(
  {
    data: fc.dictionary(key, fc.option(value, { nil: null }), { maxKeys: 2 }),
    labels: fc.dictionary(
      fc.constantFrom('tier', 'app'),
      fc.option(fc.constantFrom('x', 'p'), { nil: null }),
      {
        maxKeys: 2,
      },
    ),
    finalizers: fc.constantFrom('add' as const, 'clear' as const),
    clearManagedFields: rarely,
    unknownField: rarely,
  },
  { requiredKeys: ['clearManagedFields', 'unknownField'] },
);
const jsonPatchOp: fc.Arbitrary<JsonPatchOp> = fc.oneof(
  fc.record({
    op: fc.constantFrom('add' as const, 'replace' as const, 'test' as const),
    path: key.map((k) => `/data/${k}`),
    value,
  }),
  fc.record({ op: fc.constant('remove' as const), path: key.map((k) => `/data/${k}`) }),
  fc.record({
    op: fc.constant('add' as const),
    path: fc.constant('/metadata/labels/tier'),
    value: fc.constantFrom('x', 'y'),
  }),
  fc.record({
    op: fc.constant('add' as const),
    path: fc.constant('/metadata/finalizers'),
    value: fc.constant([FINALIZER]),
  }),
  fc.record({ op: fc.constant('remove' as const), path: fc.constant('/metadata/finalizers') }),
);

/** One operation. */
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      kind,
      name: fc.oneof(
        { weight: 6, arbitrary: someName },
        { weight: 1, arbitrary: fc.constant('generate' as const) },
      ),
      data,
      labels,
      finalizer: fc.boolean(),
      dryRun,
      unknownField: rarely,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('get' as const), kind, name: someName }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('update' as const),
      kind,
      name: someName,
      data,
      labels,
      version: fc.constantFrom('current' as const, 'first' as const, 'none' as const),
      dryRun,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('merge-patch' as const),
      kind,
      name: someName,
      patch: mergePatch,
      dryRun,
      strict: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('strategic-patch' as const),
      kind,
      name: someName,
      patch: mergePatch,
      dryRun,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('json-patch' as const),
      kind,
      name: someName,
      patch: fc.array(jsonPatchOp, { minLength: 1, maxLength: 3 }),
      dryRun,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('apply' as const),
      kind,
      name: someName,
      manager: fc.constantFrom(...MANAGERS),
      data,
      labels,
      force: fc.boolean(),
      dryRun,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      kind,
      name: someName,
      dryRun,
      precondition: fc.constantFrom('none' as const, 'current' as const, 'first' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        op: fc.constant('list' as const),
        kind,
        selector: fc.constantFrom(...SELECTORS),
        fieldSelector: fc.constantFrom('metadata.name=a', 'metadata.name!=b'),
        limit: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: ['op', 'kind', 'selector'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('watch' as const),
      kind,
      from: fc.nat({ max: 20 }),
    }),
  },
);

/**
 * A sequence of operations, run in a namespace of its own on each side. One kind mostly (the
 * operations of a sequence meet on few objects); a fifth of them keep a kind of their own.
 */
export function sequenceArb(maxLength: number): fc.Arbitrary<Op[]> {
  return fc
    .tuple(kind, fc.array(fc.tuple(fc.nat({ max: 4 }), opArb), { minLength: 1, maxLength, size: 'max' }))
    .map(([focus, ops]) => ops.map(([own, o]) => (own === 0 ? o : { ...o, kind: focus })));
}

/** One line naming an operation and what it sends, for progress and reports. */
export function opLabel(o: Op): string {
  const { op, kind, ...rest } = o;
  const name = 'name' in rest ? `/${rest.name}` : '';
  const { name: _n, ...more } = rest as Record<string, unknown>;
  const detail = Object.entries(more)
    .filter(
      ([, v]) => v !== undefined && v !== false && !(typeof v === 'object' && v && !Object.keys(v).length),
    )
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${op} ${kind}${name}${detail ? ` ${detail}` : ''}`;
}
