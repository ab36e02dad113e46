// The last step of generation, keeping a run meaningful:
//   - no namespace is deleted (a deleted namespace finalizes its content in the background, and
//     the work namespace must stay): such deletes go to `default`, which the server refuses;
//   - the objects that configure the server (CONFIGURING_GROUPS) are read, never written;
//   - the canary's namespace never appears in a request (a generator that named it is a bug);
//   - a watch or a followed log is marked as a stream (read briefly, then hung up on).
import { CONFIGURING_GROUPS, type FuzzContext } from './context.ts';
import type { FuzzRequest } from './fuzz-request.ts';

const NAMESPACE_ITEM = /\/namespaces(\/[^/?]*)?\/?(\?|$)/;

export function guard(r: FuzzRequest, ctx: FuzzContext): FuzzRequest {
  const out = { ...r };
  const path = r.target.split('?')[0]!;
  const read = /^(GET|HEAD)$/i.test(r.method);
  if (/^DELETE$/i.test(r.method) && NAMESPACE_ITEM.test(path)) out.target = '/api/v1/namespaces/default';
  if (!read && CONFIGURING_GROUPS.some((g) => path.includes(`/apis/${g}/`) || path.endsWith(`/apis/${g}`))) {
    out.method = 'GET';
    out.body = undefined;
  }
  if (
    decodeURIComponentSafe(out.target).includes(ctx.canaryNamespace) ||
    out.target.includes(ctx.canaryNamespace)
  )
    throw new Error(
      `generator bug: request ${r.index} names the canary's namespace: ${r.method} ${r.target}`,
    );
  const q = out.target.includes('?') ? out.target.slice(out.target.indexOf('?')) : '';
  if (
    /^(GET|HEAD)$/.test(out.method) &&
    (/[?&](watch|follow)=(1|true|TRUE|True|t)(&|$)/.test(q) || /\/watch(\/|$)/.test(path))
  )
    out.streaming = true;
  return out;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
