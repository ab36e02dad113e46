// Sends a sequence of operations to one side and records every exchange as the side answered
// it (bodies in the spec's words; the harness client maps a Kubernetes side's words back).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '../../harness/src/client.ts';
import { WatchStream } from '../../harness/src/watch.ts';
import type { Op } from './ops.ts';
import type { WireRequest } from './repro.ts';
import { isWrite, newContext, nextPage, type PlannedRequest, plan, type SideContext } from './requests.ts';

/** The user agent of every request: Kubernetes names a write's default field manager after it. */
export const USER_AGENT = 'orch-conformance-diff/1';

/**
 * A watch reads until the event of the last version written to its kind arrives, or this long
 * without an event (a delete's answer may not carry its event's version; a write that changed
 * nothing has no event); when it starts from that last version, no event is due: a shorter wait.
 */
const WATCH_IDLE_MS = 100;
const WATCH_NOTHING_DUE_MS = 40;
const WATCH_MAX_MS = 3000;
/** The most pages one list follows. */
const MAX_PAGES = 10;

export interface Exchange {
  request: WireRequest;
  status: number;
  /** The parsed answer (spec words), or the text when it is not JSON. */
  body?: unknown;
  /** A watch's events, in order (bookmarks left out). */
  events?: { type: string; object: unknown }[];
}

export interface OpResult {
  exchanges: Exchange[];
  /** Why nothing was sent (a watch before anything was written). */
  skipped?: string;
}

/** One side of the comparison as the runner uses it. */
export interface DiffSide {
  label: string;
  client: Client;
  /** The custom resource group the side's definition serves. */
  group: string;
}

/** The request as it goes on the wire: the side's words, the query in the path. */
export function wireRequest(client: Client, r: PlannedRequest): WireRequest {
  const u = new URL(client.url(r.path, r.query));
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json' };
  let body: string | undefined;
  if (r.body !== undefined) {
    body = JSON.stringify(client.d.out(r.body));
    headers['content-type'] = client.d.w(r.contentType ?? 'application/json');
  }
  return {
    method: r.method,
    path: `${u.pathname}${u.search}`,
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

async function send(client: Client, r: PlannedRequest): Promise<Exchange> {
  const request = wireRequest(client, r);
  const res = await client.request({
    method: r.method,
    path: r.path,
    query: r.query,
    headers: { 'user-agent': USER_AGENT },
    accept: 'application/json',
    ...(request.body !== undefined
      ? { body: request.body, contentType: r.contentType ?? 'application/json' }
      : {}),
  });
  let body: unknown = res.text;
  try {
    body = res.json ?? res.text;
  } catch {
    // a body declared JSON that is not: kept as text, compared as such
  }
  return { request, status: res.status, body };
}

async function watch(
  client: Client,
  r: PlannedRequest,
  until: string | undefined,
  sure: boolean,
): Promise<Exchange> {
  const idle = sure && r.query.resourceVersion === until ? WATCH_NOTHING_DUE_MS : WATCH_IDLE_MS;
  const request = wireRequest(client, r);
  const s = await WatchStream.open(client, {
    path: r.path,
    query: r.query,
    headers: { 'user-agent': USER_AGENT },
  });
  const start = Date.now();
  let last = start;
  let count = 0;
  try {
    while (!s.ended && Date.now() - start < WATCH_MAX_MS) {
      if (s.events.length !== count) {
        count = s.events.length;
        last = Date.now();
        const rv = (s.events[count - 1]?.object as any)?.metadata?.resourceVersion;
        if (sure && until !== undefined && rv === until) break;
      }
      if (Date.now() - last > idle) break;
      await sleep(5);
    }
  } finally {
    s.close();
  }
  const events = s.events
    .filter((e) => e.type !== 'BOOKMARK')
    .map((e) => ({ type: e.type, object: e.object }));
  return { request, status: s.status, events };
}

/** Records the versions a write or read answered, for later stale updates, preconditions and watches. */
function remember(c: SideContext, op: Op, x: Exchange): void {
  if (x.status < 200 || x.status >= 300) return;
  if ('dryRun' in op && op.dryRun) return;
  const meta = (x.body as any)?.metadata;
  const rv = meta?.resourceVersion;
  if (typeof rv !== 'string' || !rv || (x.body as any)?.kind === 'Status') return;
  if ('name' in op && op.name !== 'generate') {
    const key = `${op.kind}/${op.name}`;
    const v = c.versions.get(key);
    c.versions.set(key, { first: v?.first ?? rv, last: rv });
  }
  if (isWrite(op) && !(op.op === 'create' && op.name === 'generate')) {
    // a write that changed nothing answers an old version: events of later versions may follow it
    c.lastWriteSure[op.kind] = (op.op === 'create' || op.op === 'apply') && !c.written[op.kind].includes(rv);
    c.written[op.kind].push(rv);
  }
}

/** Runs one operation on one side. */
export async function runOp(side: DiffSide, c: SideContext, op: Op): Promise<OpResult> {
  const first = plan(c, op);
  if (!first) return { exchanges: [], skipped: 'no version written yet to watch from' };
  if (first.watch) {
    const written = c.written[op.kind];
    return {
      exchanges: [await watch(side.client, first, written[written.length - 1], c.lastWriteSure[op.kind])],
    };
  }
  const exchanges = [await send(side.client, first)];
  if (op.op === 'list') {
    for (let i = 1; i < MAX_PAGES; i++) {
      const token = (exchanges[exchanges.length - 1]!.body as any)?.metadata?.continue;
      if (typeof token !== 'string' || !token) break;
      exchanges.push(await send(side.client, nextPage(first, token)));
    }
  } else remember(c, op, exchanges[0]!);
  return { exchanges };
}

/** The request that makes a sequence's namespace. */
export function namespaceRequest(name: string): PlannedRequest {
  return {
    method: 'POST',
    path: '/api/v1/namespaces',
    query: {},
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  };
}

/** Makes the namespace of a sequence on a side; a refusal is an error of the run, not a divergence. */
export async function makeNamespace(
  side: DiffSide,
  name: string,
): Promise<{ context: SideContext; setup: WireRequest }> {
  const r = namespaceRequest(name);
  const x = await send(side.client, r);
  if (x.status !== 201)
    throw new Error(
      `${side.label}: creating namespace ${name} answered ${x.status}: ${JSON.stringify(x.body).slice(0, 300)}`,
    );
  return { context: newContext(name, side.group), setup: x.request };
}
