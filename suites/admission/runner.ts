// Runs a configuration row: the write of each kind it names (a create, or a create from the base
// webhook then a replace), its answer checked against the row, and the object removed after.
// `strict` adds what only Kubernetes shows: 201 and 200, 422 Invalid, each violation a cause
// with its exact field path, its reason and a fragment of its message, all in one answer;
// without it a refusal is any 4xx that leaves nothing written (or the stored object unchanged).
import { check, checkStatus, deepEqual, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import type { Kind, LoadedRow, Violation } from './row-files.ts';

const GROUP = 'admissionregistration.orch.io';

export const KINDS: Record<Kind, { kind: string; path: string }> = {
  validating: {
    kind: 'ValidatingWebhookConfiguration',
    path: `/apis/${GROUP}/v1/validatingwebhookconfigurations`,
  },
  mutating: { kind: 'MutatingWebhookConfiguration', path: `/apis/${GROUP}/v1/mutatingwebhookconfigurations` },
};

function body(kind: Kind, name: string, webhooks: unknown[], extra: Record<string, unknown> = {}) {
  return { apiVersion: `${GROUP}/v1`, kind: KINDS[kind].kind, metadata: { name, ...extra }, webhooks };
}

/** A label no object carries: a webhook selecting it is never called. */
export const INERT_SELECTOR = { matchLabels: { 'conformance-inert': 'never-called' } };

/** Rules no request matches (a resource of a group no case writes to). */
export const INERT_RULES = [
  {
    operations: ['CREATE'],
    apiGroups: ['inert.conformance.orch.io'],
    apiVersions: ['v1'],
    resources: ['never-written'],
  },
];

const isEmpty = (v: unknown) =>
  v === undefined || (typeof v === 'object' && v !== null && !Object.keys(v).length);

/**
 * The webhooks as written: a server calls the webhooks of the configurations it stores, and
 * these point at hosts that do not exist, so while a row's configuration exists every request
 * it matches (other cases' too, running at once, and a live cluster's own) would fail. Each
 * webhook gets an objectSelector no object matches; a row about the objectSelector (it sets
 * one, or shows one) keeps its selector, and a webhook of it whose selector matches everything
 * (none, or `{}`) matches no request by its rules instead, unless the row sets the rules too.
 */
function inert(
  row: LoadedRow,
  hooks: Record<string, unknown>[],
  own: Record<string, unknown>[],
): Record<string, unknown>[] {
  const about =
    row.webhooks.some((w) => 'objectSelector' in w) ||
    (row.accepted?.shows ?? []).some((w) => 'objectSelector' in w);
  return hooks.map((h, i) => {
    if (!about) return 'objectSelector' in h ? h : { ...h, objectSelector: INERT_SELECTOR };
    if (!isEmpty(h.objectSelector) || 'rules' in (own[i] ?? {})) return h;
    return { ...h, rules: INERT_RULES };
  });
}

function showCauses(r: Response): string {
  const causes = r.statusObj?.details?.causes ?? [];
  return causes.length
    ? causes
        .map((c) => `{field: ${show(c.field)}, reason: ${show(c.reason)}, message: ${show(c.message)}}`)
        .join(', ')
    : '(no causes)';
}

function checkViolations(r: Response, want: Violation[], why: string): void {
  checkStatus(r, 422, 'Invalid', why);
  const causes = r.statusObj?.details?.causes ?? [];
  for (const v of want) {
    const hit = causes.some(
      (c) =>
        c.field === v.field &&
        typeof c.message === 'string' &&
        c.message.includes(v.message) &&
        (!v.reason || c.reason === v.reason),
    );
    check(
      hit,
      `among the causes, one with field ${show(v.field)}${v.reason ? `, reason ${v.reason}` : ''} and a message containing ${show(v.message)}`,
      `${r.describe()} — causes: ${showCauses(r)}`,
      why,
    );
  }
}

/** Each webhook holds the fields the row names for it (a field named null: none). */
function checkShows(obj: any, shows: Record<string, unknown>[], what: string, why: string): void {
  shows.forEach((want, i) => {
    const hook = obj?.webhooks?.[i] ?? {};
    for (const [k, v] of Object.entries(want))
      if (v === null) check(hook[k] === undefined, `${what}: no webhooks[${i}].${k}`, show(hook[k]), why);
      else check(deepEqual(hook[k], v), `${what}: webhooks[${i}].${k} ${show(v)}`, show(hook[k]), why);
  });
}

async function remove(t: CaseContext, kind: Kind, name: string): Promise<void> {
  await t.client.delete(`${KINDS[kind].path}/${name}`);
}

async function runKind(row: LoadedRow, kind: Kind, t: CaseContext, strict: boolean): Promise<void> {
  const name = row.name ?? uniqueName('whc');
  const path = KINDS[kind].path;
  const why = `${row.id} (${KINDS[kind].kind})${row.note ? `: ${row.note}` : ''}`;
  let stored: any;
  try {
    if (row.update) {
      const c = await t.step(`${KINDS[kind].kind}: create ${name} from the base webhook`, () =>
        t.client.post(path, body(kind, name, inert(row, [row.base], []))),
      );
      checkStatus(c, 201, undefined, `setup of ${row.id}: the base webhook is valid`);
      stored = c.json;
    }
    const hooks = inert(row, row.sent, row.webhooks);
    const sent = row.update
      ? body(kind, name, hooks, { resourceVersion: stored.metadata.resourceVersion })
      : body(kind, name, hooks);
    const r = await t.step(
      `${KINDS[kind].kind}: ${row.update ? 'replace' : 'create'} ${name} with webhooks ${show(hooks)}, expected ${row.refused ? 'refused' : 'accepted'}`,
      () => (row.update ? t.client.put(`${path}/${name}`, sent) : t.client.post(path, sent)),
    );
    const read = await t.client.get(`${path}/${name}`);
    if (row.refused) {
      if (strict) checkViolations(r, row.refused, why);
      else check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe(), why);
      if (row.update)
        check(
          read.status === 200 && deepEqual(read.json?.webhooks, stored.webhooks),
          'the stored object unchanged',
          read.describe(),
          why,
        );
      else checkStatus(read, 404, undefined, `${why} (nothing is created)`);
      return;
    }
    if (strict) checkStatus(r, row.update ? 200 : 201, undefined, why);
    else check(r.status === 200 || r.status === 201, row.update ? '200' : '200 or 201', r.describe(), why);
    checkStatus(read, 200, undefined, 'reading the object back');
    const shows = row.accepted?.shows ?? [];
    checkShows(r.json, shows, 'the answer', why);
    checkShows(read.json, shows, 'the stored object', why);
  } finally {
    await remove(t, kind, name);
  }
}

export async function runRow(row: LoadedRow, t: CaseContext, strict: boolean): Promise<void> {
  for (const kind of row.kinds ?? (['validating', 'mutating'] as Kind[])) await runKind(row, kind, t, strict);
}
