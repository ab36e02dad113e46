// Runs one row of a resource-version table: builds the row's history in a fresh namespace,
// makes the request with the row's symbolic versions, and checks the answer against what
// the history says the cell's semantic (doc1 § Resource version semantics, Meanings) allows.
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import { readCaughtUp } from '../../harness/src/caught-up.ts';
import type { Response } from '../../harness/src/client.ts';
import { paths } from '../../harness/src/fixtures.ts';
import type { OwnObjects } from '../../harness/src/own-objects.ts';
import { type WatchEvent, WatchStream } from '../../harness/src/watch.ts';
import {
  type Change,
  type KnownVersion,
  type ListQuery,
  Scenario,
  type State,
  sameState,
  showState,
} from './scenario.ts';
import type { GetCase, ListCase, WatchCase, Write } from './table-cases.ts';

const EVENT_WAIT_MS = 5_000;

async function withScenario(
  t: CaseContext,
  setup: Write[],
  fn: (sc: Scenario) => Promise<void>,
): Promise<void> {
  const sc = await Scenario.open(t.client);
  sc.claim(setup);
  try {
    await t.step(`setup: ${setup.map((w) => Object.entries(w)[0]!.join(' ')).join(', ')}`, async () => {
      for (const w of setup) await sc.apply(w);
    });
    await fn(sc);
  } finally {
    await sc.close();
  }
}

/** "may wait briefly and then answer 504, or answer with Retry-After; its error text then includes 'Too large resource version'" */
function checkTooLarge(r: Response): void {
  const retryAfter = r.header('retry-after');
  check(
    r.status === 504 || (r.status >= 400 && retryAfter !== undefined),
    '504, or an error answer with a Retry-After header',
    `${r.describe()} (Retry-After: ${retryAfter ?? 'absent'})`,
    'an unrecognized (future) resource version is not served as if it were known',
  );
  check(
    r.text.includes('Too large resource version'),
    "an error text including 'Too large resource version'",
    r.describe(),
  );
}

/** A version the case saw the server acknowledge: a read at it may first meet a cache that trails (caught-up.ts). */
function acknowledged(rv: unknown): boolean {
  return rv === 'past' || rv === 'current';
}

function queryText(q: Record<string, unknown>): string {
  const parts = Object.entries(q).filter(([, v]) => v !== undefined);
  return parts.length
    ? parts.map(([k, v]) => `${k}=${k === 'continue' ? '<token>' : v}`).join('&')
    : 'no parameters';
}

// ------------------------------------------------------------------------------------ get

export async function runGet(c: GetCase, setup: Write[], t: CaseContext): Promise<void> {
  await withScenario(t, c.setup ?? setup, async (sc) => {
    const rv = await sc.resolve(c.request.rv, t, 'exact-list');
    const get = () =>
      t.client.get(paths.configmap(sc.ns, c.request.name), { query: { resourceVersion: rv } });
    const r = await t.step(`get ${c.request.name} with ${queryText({ resourceVersion: rv })}`, () =>
      acknowledged(c.request.rv) ? readCaughtUp(get) : get(),
    );
    if (c.expect.tooLargeResourceVersion) return checkTooLarge(r);
    checkStatus(r, c.expect.status ?? 200);
    const name = c.request.name;
    const got = r.status === 200 ? (r.json?.data ?? {}) : undefined;
    const at = (i: number) => sc.states[i]!.get(name);
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    const allowed = (from: number) => sc.states.slice(from).map((s) => s.get(name));
    switch (c.expect.object) {
      case 'current':
        check(
          same(got, at(sc.states.length - 1)),
          show(at(sc.states.length - 1)),
          show(got),
          'the latest written state of the object',
        );
        break;
      case 'notOlderThanRequested': {
        const from = rv === undefined ? 0 : sc.marked(c.request.rv as 'past' | 'current').state;
        const ok = allowed(from);
        check(
          ok.some((s) => same(got, s)),
          `one of the object's states at or after the requested version: ${ok.map((s) => show(s ?? 'absent')).join(' | ')}`,
          show(got ?? 'absent (404)'),
          'Not older than: at least as new as the given version',
        );
        break;
      }
      case 'anyVersion': {
        const ok = allowed(0);
        check(
          ok.some((s) => same(got, s)),
          `one of the object's states at some version: ${ok.map((s) => show(s ?? 'absent')).join(' | ')}`,
          show(got ?? 'absent (404)'),
          'Any: data at any version',
        );
        break;
      }
    }
  });
}

// ----------------------------------------------------------------------------------- list

interface Page {
  items: unknown[];
  rv: string | undefined;
  continue: string;
}

function pageOf(r: Response): Page {
  return {
    items: r.json?.items ?? [],
    rv: r.json?.metadata?.resourceVersion,
    continue: r.json?.metadata?.continue ?? '',
  };
}

export async function runList(c: ListCase, setup: Write[], t: CaseContext): Promise<void> {
  await withScenario(t, c.setup ?? setup, async (sc) => {
    sc.claim(c.between ?? []);
    const limit = c.request.limit;
    // with a limit and no resourceVersionMatch a version is read as Exact too, paged
    const rv = await sc.resolve(c.request.rv, t, limit ? 'paged-list' : 'exact-list');
    let first: Page | undefined;
    let snapshot: State | undefined;
    if (c.request.continue) {
      await t.step(
        `read a first chunk (limit=${limit}), then ${(c.between ?? []).map((w) => Object.entries(w)[0]!.join(' ')).join(', ') || 'no writes'}`,
        async () => {
          const f = await sc.list({ limit });
          checkStatus(f, 200, undefined, 'setup: the first chunk of a paged list');
          first = pageOf(f);
          check(
            first.continue !== '',
            'a continue token on a first chunk that leaves items out',
            show(f.json?.metadata),
            'setup',
          );
          snapshot = new Map(sc.current);
          for (const w of c.between ?? []) await sc.apply(w);
        },
      );
    } else for (const w of c.between ?? []) await sc.apply(w);

    const q: ListQuery = {
      resourceVersion: rv,
      resourceVersionMatch: c.request.rvMatch,
      limit,
      continue: first?.continue,
    };
    const r = await t.step(`list with ${queryText(q)}`, () =>
      acknowledged(c.request.rv) ? readCaughtUp(() => sc.list(q)) : sc.list(q),
    );
    if (c.expect.tooLargeResourceVersion) return checkTooLarge(r);
    checkStatus(r, c.expect.status ?? 200, c.expect.reason);
    if (r.status !== 200) return;

    // the rest of the chunks, as a client reads them: same limit, the previous chunk's token
    const pages = [pageOf(r)];
    await t.step('read the remaining chunks', async () => {
      for (let guard = 0; limit && pages[pages.length - 1]!.continue; guard++) {
        check(guard < 50, 'a paged list of a few objects ends within 50 chunks', `${pages.length} chunks`);
        const n = await sc.list({ limit, continue: pages[pages.length - 1]!.continue });
        checkStatus(n, 200, undefined, "a chunk requested with the previous chunk's continue token");
        pages.push(pageOf(n));
      }
    });
    const rvs = [...(first ? [first.rv] : []), ...pages.map((p) => p.rv)];
    check(
      rvs.every((x) => x === rvs[0]),
      `one metadata.resourceVersion on every chunk (${show(rvs[0])})`,
      show(rvs),
      'Continue Token, Exact: the version of the first paginated call, remembered by the token',
    );
    const items = [...(first?.items ?? []), ...pages.flatMap((p) => p.items)];
    const names = sc.own.items(items).map((o: any) => o?.metadata?.name);
    check(
      new Set(names).size === names.length,
      "each of the case's objects once across the chunks",
      show(names),
    );
    const got = sc.stateOf(items);
    const actual = sc.showItems(items);
    const listRv = pages[0]!.rv;
    const requested =
      c.request.rv === 'past' || c.request.rv === 'current' ? sc.marked(c.request.rv) : undefined;
    const current = sc.marks.get('current') ?? sc.versions[sc.versions.length - 1];

    const atSomeState = (from: number) => sc.states.some((s, i) => i >= from && sameState(got, s));
    const statesFrom = (from: number) => sc.states.slice(from).map(showState).join(' | ');
    switch (c.expect.items) {
      case 'current':
        check(
          sameState(got, sc.current),
          showState(sc.current),
          actual,
          'Most Recent: consistent data, every write made before the list',
        );
        break;
      case 'atRequested': {
        const want = sc.states[requested!.state]!;
        check(
          sameState(got, want),
          `${showState(want)} (the collection at the requested version: objects deleted since present, objects created since absent, changed ones with their old data)`,
          actual,
          'Exact: exactly that version',
        );
        break;
      }
      case 'notOlderThanRequested':
        check(
          atSomeState(requested!.state),
          `the collection at the requested version or a later one: ${statesFrom(requested!.state)}`,
          actual,
          'Not older than: at least as new as the given version',
        );
        break;
      case 'anyVersion':
        check(
          atSomeState(0),
          `the collection at some version: ${statesFrom(0)}`,
          actual,
          'Any: data at any version',
        );
        break;
      case 'firstChunkSnapshot':
        check(
          sameState(got, snapshot!),
          `${showState(snapshot!)} (the collection when the first chunk was read; writes since then do not show)`,
          actual,
          'Continue Token, Exact: the version of the first paginated call',
        );
        break;
    }

    const notOlder = (ref: KnownVersion | undefined, why: string) => {
      if (!ref) return;
      const older = sc.olderThan(ref).find((v) => v.rv === listRv);
      check(
        !older,
        `a collection version not older than ${show(ref.rv)}`,
        `${show(listRv)}, a version seen before it`,
        why,
      );
      const k = listRv ? sc.known(listRv) : undefined;
      if (k)
        check(
          sameState(got, sc.states[k.state]!),
          `${showState(sc.states[k.state]!)} (the collection at version ${listRv}, the version the list names)`,
          actual,
          "the items are the collection at the list's metadata.resourceVersion",
        );
    };
    switch (c.expect.listRv) {
      case 'requested':
        checkEqual(listRv, rv, 'Exact: the collection version equals the requested one');
        break;
      case 'firstChunk':
        checkEqual(listRv, first!.rv, "Continue Token, Exact: the collection version is the first chunk's");
        break;
      case 'notOlderThanRequested':
        notOlder(requested, 'Not older than: the collection version is not older than the requested one');
        break;
      case 'notOlderThanCurrent':
        notOlder(current, 'Most Recent: the collection version is not older than the last write');
        break;
    }
  });
}

// ---------------------------------------------------------------------------------- watch

/** Reads `n` change events of the case's own objects (others, and BOOKMARKs, are passed over). */
async function take(w: WatchStream, own: OwnObjects, n: number, what: string): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (out.length < n) {
    let e: WatchEvent;
    try {
      e = await w.next(Math.max(1, deadline - Date.now()));
    } catch (err) {
      check(
        false,
        `${n} events: ${what}`,
        `${out.length} within ${EVENT_WAIT_MS} ms (${(err as Error).message}): ${showEvents(out)}`,
      );
    }
    if (e!.type !== 'BOOKMARK' && own.events([e!]).length) out.push(e!);
  }
  return out;
}

function showEvents(evs: WatchEvent[]): string {
  return `[${evs.map((e) => `${e.type} ${e.object?.metadata?.name ?? e.object?.code ?? ''}${e.object?.data ? `=${Object.values(e.object.data).join(',')}` : ''}`).join(', ')}]`;
}

function showChanges(cs: Change[]): string {
  return `[${cs.map((c) => `${c.type === 'create' ? 'ADDED' : c.type === 'update' ? 'MODIFIED' : '<deletion>'} ${c.name}${c.type === 'delete' ? '' : `=${Object.values(c.data).join(',')}`}`).join(', ')}]`;
}

/** An event stands for the change: ADDED for a create, MODIFIED for an update, and for a delete the deletion event (its type name: not shown in doc1; Kubernetes says DELETED). */
function matches(e: WatchEvent, c: Change): boolean {
  if (e.object?.metadata?.name !== c.name) return false;
  if (c.type === 'delete') return !['ADDED', 'MODIFIED', 'BOOKMARK', 'ERROR'].includes(e.type);
  return (
    e.type === (c.type === 'create' ? 'ADDED' : 'MODIFIED') &&
    JSON.stringify(e.object?.data ?? {}) === JSON.stringify(c.data)
  );
}

function checkChanges(evs: WatchEvent[], want: Change[], why: string): void {
  check(
    evs.length === want.length && evs.every((e, i) => matches(e, want[i]!)),
    showChanges(want),
    showEvents(evs),
    why,
  );
}

export async function runWatch(c: WatchCase, setup: Write[], t: CaseContext): Promise<void> {
  await withScenario(t, c.setup ?? setup, async (sc) => {
    sc.claim(c.after ?? []);
    const rv = await sc.resolve(c.request.rv, t, 'watch');
    const after = c.after ?? [];
    const applyAfter = () =>
      t.step(`then: ${after.map((x) => Object.entries(x)[0]!.join(' ')).join(', ')}`, async () => {
        for (const x of after) await sc.apply(x);
      });
    const opening = t.step(`watch with ${queryText({ resourceVersion: rv })}`, () =>
      WatchStream.open(t.client, { path: sc.path, query: { resourceVersion: rv } }),
    );
    // Start at Exact: the changes after the version are due whenever the watch is set up, so
    // the later writes need not wait for the stream's headers (which a server or proxy may
    // hold back until the first event).
    const exact = c.expect.initial === 'changesAfterRequested';
    if (exact && after.length) {
      opening.catch(() => {});
      await applyAfter();
    }
    const w = await opening;
    try {
      const err = c.expect.error;
      if (err) {
        if (w.status !== 200) {
          check(
            !err.eventType,
            `200 then a ${err.eventType} event`,
            `HTTP ${w.status}`,
            'the error comes in the stream',
          );
          checkEqual(w.status, err.code, 'the watch fails with this code');
          return;
        }
        let e: WatchEvent | undefined;
        try {
          e = await w.next(EVENT_WAIT_MS);
        } catch (x) {
          check(
            false,
            `HTTP ${err.code}, or a stream whose first event carries a Status with code ${err.code}`,
            `200 and no event (${(x as Error).message})`,
          );
        }
        const s = e!.object;
        check(
          s?.kind === 'Status' && s?.code === err.code,
          `an event carrying a Status with code ${err.code}`,
          showEvents([e!]) + ` ${show(s)}`,
        );
        if (err.eventType) checkEqual(e!.type, err.eventType, 'the type of the event that carries the error');
        if (err.reason) checkEqual(s.reason, err.reason, 'the reason of the Status');
        return;
      }
      checkEqual(w.status, 200, 'a watch answers 200 and streams events');

      switch (c.expect.initial) {
        case 'addedCurrent': {
          const want = sc.current;
          const evs = await take(w, sc.own, want.size, `synthetic ADDED events for ${showState(want)}`);
          check(
            evs.every((e) => e.type === 'ADDED') && sameState(sc.stateOf(evs.map((e) => e.object)), want),
            `ADDED events for exactly ${showState(want)} (the current objects)`,
            showEvents(evs),
            'Get State and Start at Most Recent: synthetic ADDED events for all existing instances',
          );
          break;
        }
        case 'changesAfterRequested': {
          const from = sc.marked(c.request.rv as 'past' | 'current');
          const want = sc.changesAfter(from); // the later writes included
          const evs = want.length ? await take(w, sc.own, want.length, showChanges(want)) : [];
          checkChanges(
            evs,
            want,
            'Start at Exact: the changes after the given version only, in order, no synthetic events',
          );
          break;
        }
        case 'addedAnyVersion': {
          // synthetic ADDED events for the state at some version, then the changes after it:
          // replaying the stream from an empty cache reaches the current state
          const cache: State = new Map();
          const seen: WatchEvent[] = [];
          const deadline = Date.now() + EVENT_WAIT_MS;
          while (!sameState(cache, sc.current)) {
            let e: WatchEvent;
            try {
              e = await w.next(Math.max(1, deadline - Date.now()));
            } catch (x) {
              check(
                false,
                `a stream that, replayed from an empty cache, reaches ${showState(sc.current)}`,
                `${showState(cache)} after ${showEvents(seen)} (${(x as Error).message})`,
                'Get State and Start at Any: synthetic ADDED events, then later changes',
              );
            }
            if (e!.type === 'BOOKMARK' || !sc.own.events([e!]).length) continue;
            seen.push(e!);
            const name = String(e!.object?.metadata?.name);
            if (e!.type === 'ADDED' || e!.type === 'MODIFIED')
              cache.set(name, { ...(e!.object?.data ?? {}) });
            else cache.delete(name);
          }
          if (seen.length)
            checkEqual(seen[0]!.type, 'ADDED', 'the stream begins with synthetic ADDED events');
          break;
        }
      }

      if (after.length && !exact) {
        const before = sc.log.length;
        await applyAfter();
        const want = sc.log.slice(before);
        const evs = await take(w, sc.own, want.length, showChanges(want));
        checkChanges(evs, want, 'then later changes, in order');
      }
    } finally {
      w.close();
    }
  });
}
