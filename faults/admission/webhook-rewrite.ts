// How a fault makes the server misuse the webhook configurations it is given, seen from the
// client: the proxy changes a field of each webhook a client writes (the server then calls,
// skips or gives up on webhooks as if the configuration said so), records the values it
// replaced in an annotation of the object, and puts them back in every answer about the object
// (and drops the annotation), so the configuration reads back as written and only the
// server's behaviour is wrong. A write the server refuses once changed is sent again as the
// client wrote it, so refusals stay the server's own.
import type { FaultHooks, ProxiedRequest, ProxiedResponse, Upstream } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const CONFIGURATIONS =
  /^\/apis\/admissionregistration\.(orch|k8s)\.io\/v1\/(validating|mutating)webhookconfigurations(\/|$)/;
/** The annotation holding the replaced values: {webhook index: {field: value, or null when absent}}. */
export const RESTORE_ANNOTATION = 'conformance-fault/restore';
/** The request header carrying the body as the client wrote it (base64). */
const ORIGINAL = 'x-conformance-fault-original';

type Hook = Record<string, any>;

/**
 * Changes one webhook in place; returns the fields it replaced with their values before
 * (undefined: the field was absent), or nothing when it left the webhook alone.
 */
export type HookRewrite = (
  hook: Hook,
  kind: 'validating' | 'mutating',
) => Record<string, unknown> | undefined;

function rewriteRequest(r: ProxiedRequest, f: HookRewrite): ProxiedRequest {
  if ((r.method !== 'POST' && r.method !== 'PUT') || !CONFIGURATIONS.test(r.url.pathname)) return r;
  const b = bodyOf(r.body);
  if (!Array.isArray(b?.webhooks)) return r;
  const restore: Record<string, Record<string, unknown>> = {};
  const kind = CONFIGURATIONS.exec(r.url.pathname)![2] as 'validating' | 'mutating';
  b.webhooks.forEach((h: unknown, i: number) => {
    if (!h || typeof h !== 'object') return;
    const before = f(h as Hook, kind);
    if (before && Object.keys(before).length)
      restore[i] = Object.fromEntries(
        Object.entries(before).map(([k, v]) => [k, v === undefined ? null : v]),
      );
  });
  if (!Object.keys(restore).length) return r;
  b.metadata = {
    ...(b.metadata ?? {}),
    annotations: { ...(b.metadata?.annotations ?? {}), [RESTORE_ANNOTATION]: JSON.stringify(restore) },
  };
  return {
    ...r,
    headers: { ...r.headers, [ORIGINAL]: r.body.toString('base64') },
    body: Buffer.from(JSON.stringify(b)),
  };
}

/**
 * The value written put back over the value answered: objects key by key and lists of objects
 * item by item, so what the server added (its defaults) stays.
 */
function merged(answered: unknown, written: unknown): unknown {
  if (Array.isArray(written) && Array.isArray(answered) && written.length === answered.length)
    return written.map((w, i) => merged(answered[i], w));
  if (
    written &&
    typeof written === 'object' &&
    !Array.isArray(written) &&
    answered &&
    typeof answered === 'object' &&
    !Array.isArray(answered)
  )
    return { ...(answered as object), ...(written as object) };
  return written;
}

function restoreObject(o: any): void {
  const a = o?.metadata?.annotations;
  const saved = a?.[RESTORE_ANNOTATION];
  if (typeof saved !== 'string') return;
  delete a[RESTORE_ANNOTATION];
  if (!Object.keys(a).length) delete o.metadata.annotations;
  let restore: Record<string, Record<string, unknown>>;
  try {
    restore = JSON.parse(saved);
  } catch {
    return;
  }
  for (const [i, fields] of Object.entries(restore)) {
    const h = o.webhooks?.[Number(i)];
    if (!h) continue;
    for (const [k, v] of Object.entries(fields))
      if (v === null) delete h[k];
      else h[k] = merged(h[k], v);
  }
}

async function restoreResponse(
  r: ProxiedRequest,
  res: ProxiedResponse,
  upstream: Upstream,
): Promise<ProxiedResponse> {
  if (!CONFIGURATIONS.test(r.url.pathname)) return res;
  const original = r.headers[ORIGINAL];
  if (typeof original === 'string' && res.status >= 400) {
    const { [ORIGINAL]: _drop, ...headers } = r.headers;
    return upstream.send({ ...r, headers, body: Buffer.from(original, 'base64') });
  }
  return mapJson(res, (j) => {
    for (const o of Array.isArray(j?.items) ? j.items : [j]) restoreObject(o);
    return j;
  });
}

/** A fault that rewrites each webhook written with `f` and hides it in every answer. */
export function webhookRewriteFault(o: { name: string; rewrite: HookRewrite }): FaultHooks {
  return {
    name: o.name,
    request: (r) => rewriteRequest(r, o.rewrite),
    response: (r, res, upstream) => restoreResponse(r, res, upstream),
  };
}
