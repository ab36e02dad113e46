// doc2 § States and transitions, property-based: random sequences of applies, forced applies and
// updates (PUT) by three managers (alice and bob apply, carol updates) on a Widget whose spec has
// a granular map, an atomic list, a set list and a map list keyed by name. After every step the
// model of model.ts predicts whether the request conflicts (and with whom), the object, and which
// manager owns which field; the server must agree. Found counterexamples are kept below.
import fc from 'fast-check';
import { afterAll, beforeAll, describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings, session } from '../../harness/src/session.ts';
import { canonicalPath, lenientSet, sameSet, setDiff, sortedList } from './fieldsets.ts';
import {
  APPLIERS,
  type Applier,
  applyStep,
  type Conflict,
  type Edit,
  editObject,
  editSpec,
  type Intent,
  initialState,
  intentBody,
  type ModelState,
  showSpec,
  specOf,
  UPDATER,
  updateStep,
} from './model.ts';
import {
  applyPatch,
  checkConflictCauses,
  checkEntryShape,
  entriesOf,
  is2xx,
  is4xx,
  ownedPaths,
  putAs,
  readObject,
} from './support.ts';
import { defineWidget, deleteWidget, type WidgetType, widgetsUnavailable, widgetType } from './widget.ts';

const RUNS = 15;
const MAX_STEPS = 7;

interface Model {
  s: ModelState;
}

interface Real {
  t: CaseContext;
  widget: WidgetType;
  path: string;
  name: string;
  strict: boolean;
  /** The steps so far, for failure messages. */
  log: string[];
}

/**
 * Containers that only hold owned fields: the model leaves them out (an empty one counts as absent),
 * and an entry that owns nothing else counts as no entry.
 */
const CONTAINERS = new Set(['.spec', '.spec.granular', '.spec.setList', '.spec.mapList'].map(canonicalPath));

function ownersOf(obj: unknown, strict: boolean, why: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of entriesOf(obj)) {
    checkEntryShape(e, why);
    const k = `${e.manager}@${e.operation}`;
    check(!out.has(k), `one managedFields entry for ${k}`, 'two', why);
    const owned = new Set([...ownedPaths(e)].filter((p) => !CONTAINERS.has(p)));
    // an entry holding only containers owns nothing the model sees (the scenarios check such entries)
    if (owned.size) out.set(k, strict ? owned : lenientSet(owned));
  }
  return out;
}

function showOwners(o: Map<string, Set<string>>): string {
  return (
    [...o]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: {${sortedList(v).join(', ')}}`)
      .join(' | ') || 'none'
  );
}

/** The object on the server is the model's: same spec, same managers owning the same fields. */
async function checkAgainstModel(m: ModelState, r: Real, what: string): Promise<void> {
  const obj = await readObject(r.t.client, r.path, what);
  const history = `after ${r.log.join('; ')}`;
  check(obj !== undefined, 'the object present', 'absent', history);
  const got = showSpec(specOf(obj));
  const want = showSpec(m.spec);
  check(got === want, `spec ${want}`, `spec ${got}`, `${history}: the object the ownership rules give`);
  const owners = ownersOf(obj, r.strict, history);
  const expected = new Map([...m.owners].map(([k, v]) => [k, r.strict ? new Set(v) : lenientSet(v)]));
  const keys = new Set([...owners.keys(), ...expected.keys()]);
  const diffs = [...keys]
    .filter((k) => !sameSet(expected.get(k) ?? new Set(), owners.get(k) ?? new Set()))
    .map((k) => `${k}: ${setDiff(expected.get(k) ?? new Set(), owners.get(k) ?? new Set())}`);
  check(
    diffs.length === 0 && sameSet(new Set(owners.keys()), new Set(expected.keys())),
    `managedFields ${showOwners(expected)}`,
    `${showOwners(owners)} (${diffs.join('; ') || 'other entries'})`,
    `${history}: who owns which field`,
  );
}

function showIntent(i: Intent): string {
  return show(intentBody(i).spec);
}

class ApplyCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly manager: Applier,
    readonly intent: Intent,
    readonly force: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    const label = `${this.manager} applies ${showIntent(this.intent)}${this.force ? ' with force' : ''}`;
    r.log.push(label);
    const before = await readObject(r.t.client, r.path, `before ${label}`);
    const predicted = applyStep(m.s, this.manager, this.intent, this.force);
    const body = {
      apiVersion: r.widget.apiVersion,
      kind: r.widget.kind,
      metadata: { name: r.name },
      ...intentBody(this.intent),
    };
    const res = await applyPatch(r.t.client, r.path, body, {
      manager: this.manager,
      force: this.force || undefined,
    });
    const why = `after ${r.log.join('; ')}`;
    if (!predicted.ok) {
      const conflicts = predicted.conflicts.map((c: Conflict) => `${c.path} (${c.manager})`).join(', ');
      check(
        is4xx(res),
        `a conflict on ${conflicts}`,
        res.describe(),
        `${why}: changing a field another manager owns without force`,
      );
      if (r.strict) {
        checkStatus(res, 409, 'Conflict', why);
        checkConflictCauses(
          res,
          predicted.conflicts.map((c) => ({ field: c.path, manager: c.manager })),
          `${why}: the conflict names each field and its manager`,
        );
      }
      const after = await readObject(r.t.client, r.path, `after ${label}`);
      check(show(after) === show(before), 'nothing changed by the refused apply', show(after), why);
      r.log[r.log.length - 1] = `${label} → conflict`;
      return;
    }
    check(
      is2xx(res),
      'a 2xx answer (no conflict: no changed field is owned by another manager, or force)',
      res.describe(),
      why,
    );
    if (r.strict) checkStatus(res, predicted.created ? 201 : 200, undefined, why);
    m.s = predicted.state;
    await checkAgainstModel(m.s, r, `after ${label}`);
  }
  toString(): string {
    return `apply(${this.manager}, ${showIntent(this.intent)}${this.force ? ', force' : ''})`;
  }
}

class PutCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly edit: Edit) {}
  check(m: Readonly<Model>): boolean {
    return m.s.exists;
  }
  async run(m: Model, r: Real): Promise<void> {
    const label = `${UPDATER} updates (PUT) ${show(this.edit)}`;
    r.log.push(label);
    const cur = await readObject(r.t.client, r.path, `before ${label}`);
    check(cur !== undefined, 'the object present', 'absent', `before ${label}`);
    const res = await putAs(r.t.client, r.path, editObject(cur, this.edit), { manager: UPDATER });
    const why = `after ${r.log.join('; ')}`;
    check(is2xx(res), 'a 2xx answer (an update never conflicts)', res.describe(), why);
    const predicted = updateStep(m.s, UPDATER, editSpec(m.s.spec, this.edit));
    if (predicted.ok) m.s = predicted.state;
    await checkAgainstModel(m.s, r, `after ${label}`);
  }
  toString(): string {
    return `put(${show(this.edit)})`;
  }
}

// ------------------------------------------------------------------------ generators

const gKey = fc.constantFrom('g1', 'g2', 'g3');
const val = fc.constantFrom('v1', 'v2');
const setItem = fc.constantFrom('a', 'b', 'c');
const itemName = fc.constantFrom('m1', 'm2');
const atomicValue = fc.constantFrom('x', 'x,y', 'y').map((v) => v.split(','));

const intentArb: fc.Arbitrary<Intent> = fc
  .record(
    {
      granular: fc.dictionary(gKey, val, { minKeys: 1, maxKeys: 3 }),
      atomicList: atomicValue,
      setList: fc.uniqueArray(setItem, { minLength: 1, maxLength: 3 }),
      mapList: fc.uniqueArray(fc.record({ name: itemName, value: fc.option(val, { nil: undefined }) }), {
        minLength: 1,
        maxLength: 2,
        selector: (x) => x.name,
      }),
    },
    { requiredKeys: [] },
  )
  .map((i) => {
    // an item without value is sent without the key
    for (const it of i.mapList ?? []) if (it.value === undefined) delete it.value;
    return i;
  });

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('setKey' as const), key: gKey, value: val }),
  fc.record({ op: fc.constant('delKey' as const), key: gKey }),
  fc.record({ op: fc.constant('setAtomic' as const), value: atomicValue }),
  fc.constant({ op: 'delAtomic' as const }),
  fc.record({ op: fc.constant('addSet' as const), value: setItem }),
  fc.record({ op: fc.constant('delSet' as const), value: setItem }),
  fc.record({ op: fc.constant('setItem' as const), name: itemName, value: val }),
  fc.record({ op: fc.constant('delItem' as const), name: itemName }),
);

const commandsArb = fc.commands<Model, Real, false>(
  [
    fc
      .tuple(fc.constantFrom(...APPLIERS), intentArb, fc.boolean())
      .map(([m, i, f]) => new ApplyCommand(m, i, f) as fc.AsyncCommand<Model, Real>),
    editArb.map((e) => new PutCommand(e) as fc.AsyncCommand<Model, Real>),
  ],
  { maxCommands: MAX_STEPS },
);

/** Counterexamples found so far, replayed on every run (also in scenarios/regressions.yaml). */
const REGRESSIONS: fc.AsyncCommand<Model, Real>[][] = [
  // seed -1879879741: an apply to an object that has no managedFields entry
  [new ApplyCommand('alice', {}, false), new ApplyCommand('alice', {}, false)],
];

// --------------------------------------------------------------------------- cases

describe('apply: ownership rules against a model (property-based)', () => {
  const ns = useNamespace('ssa-model');
  const widget = widgetType('ssa-model');
  let unavailable = '';
  beforeAll(async () => {
    unavailable = await widgetsUnavailable(session());
    if (!unavailable) await defineWidget(session(), widget);
  });
  afterAll(async () => {
    if (!unavailable) await deleteWidget(session(), widget);
  });

  const law = async (t: CaseContext, strict: boolean) => {
    const ran = { steps: 0 };
    await fc.assert(
      fc.asyncProperty(commandsArb, async (cmds) => {
        const name = uniqueName('law');
        const real: Real = { t, widget, name, path: widget.one(ns.name, name), strict, log: [] };
        await fc.asyncModelRun(() => ({ model: { s: initialState() }, real }), cmds);
        ran.steps += real.log.length;
      }),
      {
        ...propertySettings(RUNS),
        examples: REGRESSIONS.map((c) => [c] as [Iterable<fc.AsyncCommand<Model, Real>>]),
      },
    );
    check(
      ran.steps > 0,
      'steps run against the server',
      `${ran.steps}`,
      'a property that ran no step proves nothing',
    );
  };

  conformance(
    {
      id: 'apply/law/ownership-model',
      title:
        'Law (ownership): for any sequence of applies, forced applies and updates by several managers, each request conflicts exactly when the rules say, and the object and the owner of every field are what the rules give',
      doc: 2,
      section: 'States and transitions',
      place:
        'Field ownership moves as follows: (the table: owned by nobody, conflict without force, force, update by PUT, same value shared, shared then changed, one applier omits, sole owner omits, applied set shrinks)',
      specRules: [
        'doc2/states-transitions/field-owned-nobody-any-write-naming',
        'doc2/states-transitions/owned-b-applies-different-value-force',
        'doc2/states-transitions/owned-b-applies-different-value-force.2',
        'doc2/states-transitions/owned-b-updates-put-non-apply',
        'doc2/states-transitions/owned-b-applies-same-value-none',
        'doc2/states-transitions/shared-b-either-applies-changed-value',
        'doc2/states-transitions/shared-one-applier-omits-field-other',
        'doc2/states-transitions/owned-only-applies-without-field-none',
        'doc2/states-transitions/applied-set-shrinks-apply-item-was',
        'doc2/states-transitions/field-topology-map-set-granular-atomic',
        'doc2/states-transitions/field-topology-atomic-map-set-granular',
      ],
      level: 'MUST',
    },
    async (t) => {
      if (unavailable) t.skip(unavailable);
      await law(t, false);
    },
    { timeout: 180_000 },
  );

  conformance(
    {
      id: 'apply/law/ownership-model/kubernetes-shape',
      title:
        'Law (ownership), with what Kubernetes answers: 201 or 200, 409 Conflict whose causes name each conflicting field and its manager, and fieldsV1 keys v:"a" and k:{"name":"m1"} for list items',
      doc: 2,
      section: 'Errors',
      place:
        'A conflict is a special status error returned by apply when it changes a field another manager owns. Its HTTP status code: not shown',
      specRules: ['doc2/errors/conflict-special-status-error-returned-apply'],
      level: 'BEYOND',
    },
    async (t) => {
      if (unavailable) t.skip(unavailable);
      await law(t, true);
    },
    { timeout: 180_000 },
  );
});
