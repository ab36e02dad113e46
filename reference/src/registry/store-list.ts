// The store's list verb: resource-version semantics after doc1's list table, and chunks
// with continue tokens.
import { errors } from '../errors/status.ts';
import { ExpiredError, type KObject, type StoredObject } from '../storage/types.ts';
import {
  type Continue,
  ContinueExpiredError,
  decodeContinue,
  encodeContinue,
  LIST_TOO_OLD,
  listOptionsInvalid,
  parseRv,
  validateListOptions,
} from './list-options.ts';
import type { StoreCore } from './store-core.ts';
import type { ListParams, ListResult } from './store-types.ts';

/**
 * list, after doc1's list table:
 * - continue token: Continue Token, Exact (rv unset or 0; any other rv is a 400);
 * - rv unset: Most Recent; rv=0: Any (both: the current state here);
 * - rv=X with Exact, or with a limit and no resourceVersionMatch: Exact (the collection as
 *   it was at X, 410 when X is older than the history);
 * - rv=X otherwise (NotOlderThan, or no limit): Not older than (waits for X, then current).
 * The invalid rows answer what Kubernetes answers: 422 Invalid on ListOptions.
 */
export async function listObjects(store: StoreCore, namespace: string, p: ListParams): Promise<ListResult> {
  const { labels, fields } = store.parseSelectorSyntax(p);
  const causes = validateListOptions(p, false, store.opts.gates.WatchList);
  if (causes.length) throw listOptionsInvalid(causes);
  store.checkFieldLabels(fields);
  if (p.limit !== undefined && !Number.isSafeInteger(p.limit))
    throw errors.badRequest(`invalid limit: ${p.limit}`);
  // APIListChunking off: limit and continue are ignored (complete lists)
  const chunking = store.opts.gates.APIListChunking;
  const limit = chunking && p.limit !== undefined && p.limit > 0 ? p.limit : 0;
  const token = chunking && p.continue ? p.continue : '';
  const rv = p.resourceVersion ?? '';
  const rvm = p.resourceVersionMatch ?? '';
  const rvNum = rv === '' ? undefined : parseRv(rv);
  const match = store.matcherOf(labels, fields);
  const live = store.def.strategy.live;
  if (live) return { items: (await live.list()).filter(match), resourceVersion: '' };
  const hasSelectors = labels.length > 0 || fields.length > 0;
  const prefix = store.prefix(namespace);

  let atRv: number | undefined; // undefined: the current state
  let startKey = '';
  if (token) {
    const c = continueFrom(store, token, rvNum);
    startKey = prefix + c.start;
    if (c.rv > 0) atRv = c.rv;
  } else if (rvNum !== undefined && rvNum !== 0) {
    const exact = rvm === 'Exact' || (rvm === '' && limit > 0);
    await store.waitForRv(rvNum);
    if (exact) {
      if (rvNum < store.oldestListable()) throw errors.gone(LIST_TOO_OLD);
      atRv = rvNum;
    }
  }

  const snapRv = atRv ?? store.storage.revision();
  let all: StoredObject[];
  try {
    all = await store.listStored(prefix, atRv);
  } catch (e) {
    if (!(e instanceof ExpiredError)) throw e;
    if (token)
      throw new ContinueExpiredError(
        encodeContinue({ rv: -1, start: startKey.slice(prefix.length), ts: store.now() }),
      );
    throw errors.gone(LIST_TOO_OLD);
  }
  return chunkOf(store, all, startKey, limit, match, hasSelectors, prefix, snapRv);
}

/** A list's continue token, checked: no resource version beside it, and not expired (410). */
function continueFrom(store: StoreCore, token: string, rvNum: number | undefined): Continue {
  const c = decodeContinue(token);
  if (rvNum !== undefined && rvNum !== 0)
    throw errors.badRequest('specifying resource version is not allowed when using continue');
  if (c.rv > 0 && (store.now() - c.ts > store.opts.continueTtlMs || c.rv < store.oldestListable()))
    throw new ContinueExpiredError(encodeContinue({ rv: -1, start: c.start, ts: store.now() }));
  return c;
}

/** The items of a list from `startKey` on (up to `limit`), with the continue token when more remain. */
function chunkOf(
  store: StoreCore,
  all: StoredObject[],
  startKey: string,
  limit: number,
  match: (obj: KObject) => boolean,
  hasSelectors: boolean,
  prefix: string,
  snapRv: number,
): ListResult {
  let i = startKey ? firstAfter(all, startKey) : 0;
  const items: KObject[] = [];
  let last = '';
  for (; i < all.length; i++) {
    if (limit && items.length >= limit) break;
    const o = all[i]!;
    if (match(o.obj)) items.push(o.obj);
    last = o.key;
  }
  const res: ListResult = { items, resourceVersion: String(snapRv) };
  if (limit && i < all.length) {
    // More keys remain. With selectors some may not match: look for one, so that the
    // last chunk is never an empty one with a continue token that leads nowhere.
    let more = !hasSelectors;
    for (let j = i; !more && j < all.length; j++) more = match(all[j]!.obj);
    if (more) {
      res.continue = encodeContinue({ rv: snapRv, start: last.slice(prefix.length), ts: store.now() });
      // the count is only exact without selectors (Kubernetes omits it otherwise)
      if (!hasSelectors) res.remainingItemCount = all.length - i;
    }
  }
  return res;
}

/** The index of the first key after the token's last key (`all` is sorted by key). */
function firstAfter(all: StoredObject[], startKey: string): number {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (all[mid]!.key <= startKey) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
