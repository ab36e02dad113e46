// doc2 § Retired API versions and replacements, the notable field changes: one case per row of
// rows/field-changes.yaml (a new row is a new case), each a few requests through the new
// version and the outcome the note states (refused with the field named, defaulted, kept apart,
// or renamed as read through another version).
import { describe } from 'vitest';
import { check, checkStatus, deepEqual, show } from '../../harness/src/assert.ts';
import { type CaseContext, conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { updateFresh } from '../../harness/src/conflict-retry.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import { rowCase } from '../../harness/src/spec.ts';
import { applySet, at, type Expect, type FieldRow, has, loadFieldRows } from './row-files.ts';
import { collectionPath, SECTION_RETIRED, sampleObject } from './support.ts';

const rows = loadFieldRows();

function checkExpect(r: Response, e: Expect, what: string, why: string): void {
  checkStatus(r, e.status, undefined, `${why}: ${what}`);
  if (e.causes) {
    const fields = (r.statusObj?.details?.causes ?? []).map((c) => c.field ?? '');
    for (const want of e.causes) {
      const names = [want].flat();
      check(
        fields.some((f) => names.some((n) => f === n || f.startsWith(`${n}.`) || f.startsWith(`${n}[`))),
        `a cause naming ${names.join(' (or, by another name, ')}${names.length > 1 ? ')' : ''}`,
        show(r.statusObj?.details?.causes ?? r.statusObj?.message),
        `${why}: ${what}`,
      );
    }
  }
  for (const [path, want] of Object.entries(e.shows ?? {}))
    check(
      deepEqual(at(r.json, path), want),
      `${path} = ${show(want)}`,
      show(at(r.json, path)),
      `${why}: ${what}`,
    );
  for (const path of e.absent ?? [])
    check(!has(r.json, path), `no ${path}`, show(at(r.json, path)), `${why}: ${what}`);
}

async function runRow(row: FieldRow, { client: c }: CaseContext, ns: string): Promise<void> {
  const why = row.place;
  let last: { obj: any; resource: string; namespaced: boolean; path: string } | undefined;
  const made: string[] = [];
  try {
    for (const [i, s] of row.steps.entries()) {
      const n = `step ${i + 1}`;
      if (s.create) {
        const resource = s.create.slice(s.create.indexOf('/') + 1);
        const body = applySet(await sampleObject(s.create, ns), s.set);
        const namespaced = !!body.metadata?.namespace;
        const coll = collectionPath(body.apiVersion, resource, namespaced, ns);
        const r = await c.post(coll, body, { query: s.query });
        checkExpect(r, s.expect, `${n}: POST ${coll} ${show(s.set ?? {})}`, why);
        if (r.status === 201 && r.json?.metadata?.name) {
          last = { obj: r.json, resource, namespaced, path: `${coll}/${r.json.metadata.name}` };
          made.push(last.path);
        }
      } else {
        check(!!last, `an object created by an earlier step of the row`, 'none', why);
        if (s.update) {
          const path = `${last!.path}${s.subresource ? `/${s.subresource}` : ''}`;
          // the object as it is now: its controllers (deployment, replica set, daemon set,
          // stateful set) write it too, so a write that meets one of theirs is made again (409)
          const r = await updateFresh(c, last!.path, (cur) => applySet(cur, s.set), {
            subresource: s.subresource,
            query: s.query,
          });
          checkExpect(r, s.expect, `${n}: PUT ${path} ${show(s.set ?? {})}`, why);
        } else {
          const path = `${collectionPath(s.get!, last!.resource, last!.namespaced, ns)}/${last!.obj.metadata.name}`;
          const r = await c.get(path, { query: s.query });
          checkExpect(r, s.expect, `${n}: GET ${path}`, why);
        }
      }
    }
  } finally {
    for (const p of made) await c.delete(p).catch(() => undefined);
  }
}

describe('deprecation: field changes of the new versions', () => {
  const ns = useNamespace('deprecation-fields');
  for (const row of rows)
    conformance(
      rowCase({ ...row, level: row.level ?? 'MUST' }, 2, SECTION_RETIRED, {
        id: `deprecation/field-change/${row.id}`,
      }),
      (t) => runRow(row, t, ns.name),
      { timeout: 60_000 },
    );
});
