// Runs one scenario: its steps in order on one object, each answer and the object after each
// step checked against the scenario. `strict` adds what only Kubernetes shows: exact status
// codes, 409 Conflict causes naming each field and manager, and fieldsV1 list-item keys; without
// it codes are checked by class and list items compared as `[*]`.
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import type { Scenario, State, Step } from './scenario-files.ts';
import {
  applyPatch,
  checkConflictCauses,
  checkFields,
  checkManagedFields,
  checkUnchanged,
  entriesOf,
  is2xx,
  is4xx,
  kindUnavailable,
  MEDIA,
  mergeInto,
  type ObjectKind,
  objectKind,
  patchAs,
  postAs,
  putAs,
  readObject,
} from './support.ts';
import {
  changeTopology,
  defineWidget,
  deleteWidget,
  type WidgetType,
  widgetsUnavailable,
  widgetType,
} from './widget.ts';

export interface RunOptions {
  ns: string;
  /** The file's Widget type (scenarios with a topology define their own). */
  widget?: WidgetType;
  strict: boolean;
}

/** The full object of a body: apiVersion, kind and metadata.name added (null leaves one out). */
function compose(kind: ObjectKind, name: string, body: Record<string, unknown>): Record<string, unknown> {
  const meta = (body.metadata ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    ...body,
    metadata: { name, ...meta },
  };
  for (const k of ['apiVersion', 'kind'] as const) if (out[k] === null) delete out[k];
  return out;
}

function describeStep(s: Step, i: number): string {
  const who = s.manager ? `${s.manager}` : s.userAgent ? `User-Agent ${show(s.userAgent)}` : 'no manager';
  const flags = [
    s.force !== undefined ? `force=${s.force}` : '',
    s.dryRun ? 'dryRun=All' : '',
    s.anonymous ? 'anonymous' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const f = flags ? ` (${flags})` : '';
  let what: string;
  if (s.apply) what = `${who} applies ${show(s.apply)}${f}`;
  else if (s.create) what = `${who} creates (POST) ${show(s.create)}${f}`;
  else if (s.put) what = `${who} updates (PUT) with ${show(s.put)}${f}`;
  else if (s.merge) what = `${who} merge-patches ${show(s.merge)}${f}`;
  else if (s.strategic) what = `${who} strategic-merge-patches ${show(s.strategic)}${f}`;
  else if (s.jsonPatch) what = `${who} JSON-patches ${show(s.jsonPatch)}${f}`;
  else what = `the schema changes spec.topo to ${s.schema?.topo}`;
  return `step ${i + 1}: ${s.say ? `${s.say} — ` : ''}${what}`;
}

/** The annotation keys managed-fields entries own. */
function annotationsOwned(entries: any[]): Set<string> {
  const keys = entries.flatMap((e) => Object.keys(e?.fieldsV1?.['f:metadata']?.['f:annotations'] ?? {}));
  return new Set(keys.filter((k) => k.startsWith('f:')).map((k) => k.slice(2)));
}

/**
 * What a refused request must leave unchanged: what the scenario's managers own. For kinds a
 * controller keeps writing (on a real cluster: a Deployment's status, and its revision
 * annotation, written by the deployment controller) the status, the resourceVersion, the
 * entries of status writers and of managers the scenario does not name, and the annotations
 * only those entries own are left out; for the others the whole object, resourceVersion
 * included, must be the same.
 */
function stable(obj: any, kind: ObjectKind, managers: Set<string>): unknown {
  if (obj === undefined || (kind.name !== 'Deployment' && kind.name !== 'Pod')) return obj;
  const o = structuredClone(obj);
  delete o.status;
  delete o.metadata?.resourceVersion;
  if (Array.isArray(o.metadata?.managedFields)) {
    const entries: any[] = o.metadata.managedFields;
    const ours = entries.filter((e) => !e?.subresource && managers.has(e?.manager));
    const kept = annotationsOwned(ours);
    const annotations = o.metadata.annotations ?? {};
    // (the deployment controller writes its revision annotation through the status)
    for (const k of annotationsOwned(entries.filter((e) => !ours.includes(e))))
      if (!kept.has(k)) delete annotations[k];
    if (o.metadata.annotations && Object.keys(annotations).length === 0) delete o.metadata.annotations;
    o.metadata.managedFields = ours;
  }
  return o;
}

function checkState(obj: unknown, s: State, kind: ObjectKind, strict: boolean, why: string): void {
  if (s.absent) {
    check(obj === undefined, 'the object absent', show(obj), why);
    return;
  }
  if (s.fields || s.managedFields || s.noManagedFields)
    check(obj !== undefined, 'the object present', 'absent', why);
  if (s.fields) checkFields(obj, s.fields, kind.unordered, why);
  if (s.noManagedFields) {
    const es = entriesOf(obj);
    check(es.length === 0, 'metadata.managedFields absent or empty', show(es), why);
  }
  if (s.managedFields)
    checkManagedFields(
      obj,
      { entries: s.managedFields, otherManagers: s.otherManagers, apiVersion: kind.apiVersion, strict },
      why,
    );
}

async function send(
  t: CaseContext,
  s: Step,
  kind: ObjectKind,
  path: string,
  name: string,
  ns: string,
  w?: WidgetType,
): Promise<Response | undefined> {
  const o = {
    manager: s.manager,
    userAgent: s.userAgent,
    force: s.force,
    dryRun: s.dryRun,
    anonymous: s.anonymous,
  };
  if (s.apply)
    return applyPatch(t.client, path, compose(kind, name, s.apply), { ...o, encoding: s.encoding });
  if (s.create) return postAs(t.client, kind.collection(ns), compose(kind, name, s.create), o);
  if (s.put) {
    const cur = await readObject(t.client, path, 'to update it by PUT');
    check(cur !== undefined, 'the object present, to update it by PUT', 'absent', 'setup of a PUT step');
    return putAs(t.client, path, mergeInto(cur, s.put), o);
  }
  if (s.merge) return patchAs(t.client, path, s.merge, MEDIA.merge, o);
  if (s.strategic) return patchAs(t.client, path, s.strategic, MEDIA.strategic, o);
  if (s.jsonPatch) return patchAs(t.client, path, s.jsonPatch, MEDIA.json, o);
  if (s.schema) {
    await changeTopology(t.client, w!, ns, s.schema.topo);
    return undefined;
  }
  throw new Error('a step with nothing to do');
}

export async function runScenario(sc: Scenario, t: CaseContext, o: RunOptions): Promise<void> {
  if (sc.skip) t.skip(sc.skip);
  const unavailable =
    sc.kind === 'Widget' ? await widgetsUnavailable(t.client) : await kindUnavailable(t.client, sc.kind);
  if (unavailable) t.skip(unavailable);
  let own: WidgetType | undefined;
  if (sc.topology) {
    own = widgetType('topo');
    await t.step(`define a Widget type whose spec.topo is a ${sc.topology} list`, () =>
      defineWidget(t.client, own!, sc.topology),
    );
  }
  // the managers the scenario writes as (what they own is what a refused request must keep)
  const managers = new Set(sc.steps.flatMap((s) => (s.manager ? [s.manager] : [])));
  try {
    const widget = own ?? o.widget;
    const kind = objectKind(sc.kind, widget);
    const name = uniqueName('ssa');
    const path = kind.one(o.ns, name);
    for (const [i, s] of sc.steps.entries()) {
      const label = describeStep(s, i);
      await t.step(label, async () => {
        const e = s.expect ?? {};
        const before = s.schema ? undefined : await readObject(t.client, path, `before ${label}`);
        const r = await send(t, s, kind, path, name, o.ns, widget);
        if (!r) return;
        const why = `${label}`;
        const fails = !!e.conflicts || !!e.rejected || (e.status ?? 0) >= 400;
        if (fails) {
          check(
            is4xx(r),
            e.conflicts ? 'a 4xx error (a conflict)' : 'a 4xx error',
            r.describe(),
            `${why}: the request is refused`,
          );
          if (o.strict && e.status) checkStatus(r, e.status, e.reason, why);
          if (o.strict && e.conflicts) {
            if (!e.status)
              checkStatus(
                r,
                409,
                e.reason ?? 'Conflict',
                `${why}: Kubernetes answers a conflict with 409 Conflict`,
              );
            checkConflictCauses(
              r,
              e.conflicts,
              `${why}: the conflict names each field and the manager owning it`,
            );
          }
          const after = await readObject(t.client, path, `after ${label}`);
          checkUnchanged(
            stable(before, kind, managers),
            stable(after, kind, managers),
            `${why}: a refused request changes nothing (value, resourceVersion and managedFields)`,
          );
        } else {
          check(is2xx(r), 'a 2xx answer', r.describe(), why);
          if (o.strict && e.status) checkStatus(r, e.status, undefined, why);
          if (s.dryRun) {
            const after = await readObject(t.client, path, `after ${label}`);
            checkUnchanged(
              stable(before, kind, managers),
              stable(after, kind, managers),
              `${why}: a dry run persists nothing`,
            );
          }
        }
        if (e.response) checkState(r.json, e.response, kind, o.strict, `${why}: the object in the answer`);
        if (e.absent || e.fields || e.managedFields || e.noManagedFields) {
          const after = await readObject(t.client, path, `after ${label}`);
          checkState(after, e, kind, o.strict, `${why}: the stored object`);
        }
      });
    }
    if (sc.expect) {
      const want = sc.expect;
      await t.step('the object after the last step', async () => {
        const after = await readObject(t.client, path, 'after the last step');
        checkState(after, want, kind, o.strict, 'the object after the last step');
      });
    }
  } finally {
    if (own) await deleteWidget(t.client, own);
  }
}
