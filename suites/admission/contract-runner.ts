// Runs a webhook contract row: the case gets a scope (namespace and label) and a webhook
// server answering as the row scripts; the object an UPDATE, DELETE, STATUS or GET needs is
// made before the webhooks exist; the row's webhooks are registered (mutating ones in one
// configuration, validating ones in another, each in row order) and the request is sent;
// then the answer, every webhook's calls and reviews, and the object read back are checked.
// The configurations, the server and the objects are gone after, whatever happened.
import { randomBytes } from 'node:crypto';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { makeCa } from '../../harness/src/auth/pki.ts';
import { auditOffset, waitAuditEvent } from '../../harness/src/admission/audit-log.ts';
import {
  type Answer,
  type Call,
  refusedUrl,
  type Script,
  startWebhookServer,
} from '../../harness/src/admission/callbacks.ts';
import { openScope, type WebhookKind } from '../../harness/src/admission/webhook-scope.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { type Bindings, mismatches } from './contract-match.ts';
import { RESOURCES } from './contract-objects.ts';
import type { LoadedContractRow, RowWebhook } from './contract-rows.ts';

/** The full name of a row's webhook. */
export const hookName = (short: string) => `${short}.hooks.conformance`;

function scriptOf(w: RowWebhook): Script {
  if (w.answers) {
    const list = w.answers;
    return (_c: Call, n: number) => list[Math.min(n, list.length) - 1]!;
  }
  return w.answer ?? {};
}

/** The texts of the answer's Warning headers of code 299. */
export function warningTexts(r: Response): string[] {
  const raw = r.headers.warning;
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const v of values)
    for (const m of v.matchAll(/(\d{3}) \S+ "((?:[^"\\]|\\.)*)"/g))
      if (m[1] === '299') out.push(m[2]!.replace(/\\(.)/g, '$1'));
  return out;
}

async function userName(client: Client): Promise<string | undefined> {
  const r = await client.post('/apis/authentication.orch.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.orch.io/v1',
    kind: 'SelfSubjectReview',
  });
  return r.json?.status?.userInfo?.username;
}

function checkSubset(actual: unknown, want: unknown, b: Bindings, what: string, why: string): void {
  const diff = mismatches(actual, want, b);
  check(diff.length === 0, `${what} holds ${show(want)}`, diff.join('; '), why);
}

/** `{n}` or `{n+k}` in an audit key: one index the row's keys share. */
const INDEX = /\{n(?:\+\d+)?\}/;
const atIndex = (key: string, n: number) =>
  key.replace(new RegExp(INDEX.source, 'g'), (m) => String(n + Number(/\+(\d+)/.exec(m)?.[1] ?? 0)));
type AuditWant = NonNullable<LoadedContractRow['expect']['audit']>[number];

const wildcard = (pattern: string, any: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join(any)}$`,
  );

/**
 * The audit event of the row's request holds the annotations the row names: the event of the
 * answer's Audit-Id (a cluster's controllers write into the namespace too), else the first
 * write to the collection's URI that is not a dry run.
 */
async function checkAudit(
  row: LoadedContractRow,
  t: CaseContext,
  log: string,
  from: number,
  collection: string,
  auditId: string | undefined,
  b: Bindings,
  why: string,
): Promise<void> {
  const d = t.client.d;
  const ours = (e: any) =>
    e?.stage === 'ResponseComplete' &&
    (auditId
      ? e.auditID === auditId
      : typeof e.requestURI === 'string' &&
        e.requestURI.startsWith(d.back(collection)) &&
        !e.requestURI.includes('dryRun') &&
        e.verb !== 'get');
  const event = await waitAuditEvent(log, from, ours, { dialect: d });
  check(!!event, `an audit event of the request in ${log}`, 'none within 5 s', why);
  const ann: Record<string, string> = event.annotations ?? {};
  const holds = (want: AuditWant, key: string) => {
    const re = wildcard(key, '\\d+');
    return Object.entries(ann).some(([k, v]) => {
      if (!re.test(k)) return false;
      if (want.text !== undefined) return v === want.text;
      let j: unknown;
      try {
        j = JSON.parse(v);
      } catch {
        return false;
      }
      return mismatches(j, want.value ?? {}, b).length === 0;
    });
  };
  const wants = row.expect.audit ?? [];
  const indexed = wants.filter((w) => INDEX.test(w.key));
  for (const want of wants.filter((w) => !INDEX.test(w.key)))
    check(
      holds(want, want.key),
      `an audit annotation ${want.key} holding ${show(want.text ?? want.value)}`,
      show(ann),
      why,
    );
  if (indexed.length) {
    // one index n for all the row's keys: a live cluster numbers other tests' webhooks too
    const numbers = [
      ...new Set(Object.keys(ann).flatMap((k) => [...k.matchAll(/\d+/g)].map((m) => Number(m[0])))),
    ];
    const n = numbers.find((i) => indexed.every((w) => holds(w, atIndex(w.key, i))));
    check(
      n !== undefined,
      `for one index n: ${indexed.map((w) => `an audit annotation ${w.key} holding ${show(w.text ?? w.value)}`).join('; ')}`,
      show(ann),
      why,
    );
  }
  for (const key of row.expect.noAudit ?? []) {
    const re = wildcard(key, '.*');
    const hits = Object.keys(ann).filter((k) => re.test(k));
    check(hits.length === 0, `no audit annotation ${key}`, show(ann), why);
  }
}

export async function runContractRow(row: LoadedContractRow, t: CaseContext): Promise<void> {
  const why = `${row.id}${row.note ? `: ${row.note}` : ''}`;
  const resource = row.request.resource ?? 'configmaps';
  const op = row.request.operation ?? 'CREATE';
  const def = RESOURCES[resource];
  const scope = await openScope(t.client, row.request.namespaceLabels ?? {});
  const scripts = Object.fromEntries(row.webhooks.map((w) => [w.name, scriptOf(w)]));
  const server = await startWebhookServer(scripts, { dialect: t.client.d });
  try {
    const ns = scope.namespace;
    const name = def.namespaced ? `obj-${randomBytes(3).toString('hex')}` : `${scope.id}-obj`;
    const collection = def.collection(ns);
    const path = `${collection}/${name}`;
    if (!def.namespaced) scope.track(path);
    const labels = { ...(row.request.labels ?? {}), ...scope.labels };
    const b: Bindings = {
      ns,
      name,
      user: JSON.stringify(row.expect).includes('$user') ? await userName(t.client) : undefined,
    };

    if (op !== 'CREATE') {
      const before = def.make(name, ns, {
        ...(row.request.oldLabels ?? row.request.labels ?? {}),
        ...scope.labels,
      });
      const c = await t.step(`create ${resource} ${name} before the webhooks exist`, () =>
        t.client.post(collection, before),
      );
      checkStatus(c, 201, undefined, `setup of ${row.id}`);
    }

    // the webhooks, mutating ones first (the order does not matter to the server)
    for (const kind of ['mutating', 'validating'] as WebhookKind[]) {
      const hooks = row.webhooks
        .map((w, i) => ({ w, fields: row.fields[i]! }))
        .filter(({ w }) => (w.kind ?? 'validating') === kind);
      if (!hooks.length) continue;
      const webhooks: Record<string, unknown>[] = [];
      for (const { w, fields } of hooks) {
        let clientConfig: { url: string; caBundle: string } = server.clientConfig(w.name);
        if (w.clientConfig === 'refused')
          clientConfig = { url: await refusedUrl(), caBundle: server.caBundle };
        if (w.clientConfig === 'untrusted')
          clientConfig = {
            url: server.url(w.name),
            caBundle: Buffer.from((await makeCa("not the webhook server's")).cert).toString('base64'),
          };
        webhooks.push({ ...fields, name: hookName(w.name), clientConfig });
      }
      const r = await t.step(`register the ${kind} webhooks ${hooks.map(({ w }) => w.name).join(', ')}`, () =>
        scope.register(kind, webhooks, server),
      );
      checkStatus(r, 201, undefined, `setup of ${row.id}: the ${kind} configuration is valid`);
      if (kind === 'mutating') b.mutating = r.json?.metadata?.name;
    }

    const auditLog = row.expect.audit || row.expect.noAudit ? t.target.declared.auditLog : undefined;
    const auditFrom = auditLog ? auditOffset(auditLog) : 0;

    const query = row.request.dryRun ? { dryRun: 'All' } : undefined;
    const started = Date.now();
    const r = await t.step(`${op} ${resource} ${name}${row.request.dryRun ? ' (dry run)' : ''}`, async () => {
      switch (op) {
        case 'CREATE':
          return t.client.post(collection, def.make(name, ns, labels), { query });
        case 'GET':
          return t.client.get(path);
        case 'DELETE':
          return t.client.delete(path, { query });
        case 'UPDATE':
        case 'STATUS': {
          const cur = await t.client.get(path);
          checkStatus(cur, 200, undefined, `setup of ${row.id}: reading the object to change`);
          const o = cur.json;
          o.metadata.labels = labels;
          if (op === 'UPDATE') def.change(o);
          return t.client.put(op === 'STATUS' ? `${path}/status` : path, o, { query });
        }
      }
    });
    const elapsed = (Date.now() - started) / 1000;
    const e = row.expect;

    if (e.code !== undefined) checkStatus(r, e.code, e.reason, why);
    else if (e.refused) check(r.status >= 400, 'a refusal (4xx or 5xx)', r.describe(), why);
    else if (e.reason) check(r.statusObj?.reason === e.reason, `reason ${e.reason}`, r.describe(), why);
    for (const m of e.message ?? [])
      check(!!r.statusObj?.message?.includes(m), `a Status message containing ${show(m)}`, r.describe(), why);
    if (e.withinSeconds !== undefined)
      check(
        elapsed <= e.withinSeconds,
        `an answer within ${e.withinSeconds} s`,
        `${elapsed.toFixed(2)} s (${r.describe()})`,
        why,
      );
    for (const [w, n] of Object.entries(e.calls ?? {})) {
      const got = server.callsTo(w);
      check(
        got.length === n,
        `${n} call(s) of webhook ${w}`,
        `${got.length}: ${show(got.map((c) => c.review?.request?.operation ?? c.text.slice(0, 80)))} (${r.describe()})`,
        why,
      );
    }
    for (const [w, want] of Object.entries(e.review ?? {})) {
      const c = server.callsTo(w)[0];
      check(!!c, `a call of webhook ${w}`, `none (${r.describe()})`, why);
      checkSubset(c, want, b, `the first call of webhook ${w}`, why);
    }
    for (const [w, want] of Object.entries(e.lastReview ?? {})) {
      const c = server.callsTo(w).at(-1);
      check(!!c, `a call of webhook ${w}`, `none (${r.describe()})`, why);
      checkSubset(c, want, b, `the last call of webhook ${w}`, why);
    }
    if (e.answered) checkSubset(r.json, e.answered, b, 'the answer', why);
    if (e.warnings) {
      const got = warningTexts(r);
      for (const w of e.warnings)
        check(
          got.includes(w),
          `a Warning header 299 with text ${show(w)}`,
          `${show(got)} (raw ${show(r.headers.warning)})`,
          why,
        );
    }
    if (e.noWarnings)
      check(warningTexts(r).length === 0, 'no Warning header 299', show(r.headers.warning), why);
    if (e.order) {
      const seqs = e.order.map((w) => server.callsTo(w)[0]?.seq ?? Number.NaN);
      check(
        seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
        `first calls in the order ${e.order.join(', ')}`,
        show(seqs),
        why,
      );
    }
    if (e.concurrent) {
      const delays = row.webhooks
        .filter((w) => e.concurrent!.includes(w.name))
        .map((w) => (w.answer as Answer | undefined)?.delayMs ?? 0);
      const at = e.concurrent.map((w) => server.callsTo(w)[0]?.at ?? Number.NaN);
      const spread = Math.max(...at) - Math.min(...at);
      check(
        spread < Math.min(...delays),
        `every one of ${e.concurrent.join(', ')} called before the first answered (${Math.min(...delays)} ms)`,
        `calls ${spread} ms apart`,
        why,
      );
    }
    if (auditLog) await checkAudit(row, t, auditLog, auditFrom, collection, r.header('audit-id'), b, why);
    if (e.stored !== undefined) {
      const read = await t.client.get(path);
      if (e.stored === 'absent') checkStatus(read, 404, undefined, `${why} (nothing is written)`);
      else {
        checkStatus(read, 200, undefined, `${why} (reading the object back)`);
        checkSubset(read.json, e.stored, b, 'the stored object', why);
      }
    }
  } finally {
    await scope.close();
    await server.close();
  }
}
