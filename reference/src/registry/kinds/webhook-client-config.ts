// A webhook's client configuration (admissionregistration.orch.io/v1): a URL or a service
// reference, validated as Kubernetes 1.28 does (Go's url.Parse, then the webhook rules).
import type { StatusCause } from '../../errors/status.ts';
import { nameProblem } from '../validation.ts';
import { Causes, fieldErr, type Rec, rec, text } from './common.ts';

const URL_FORM = '; desired format: https://host[/path]';

/** The parts of a URL as Go's url.Parse splits them, or the reason it refuses the text. */
interface ParsedUrl {
  scheme: string;
  user?: string;
  host: string;
  rawQuery: string;
  fragment: string;
}

function parseUrl(raw: string): ParsedUrl | { error: string } {
  const fail = (why: string) => ({ error: `parse ${JSON.stringify(raw)}: ${why}` });
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return fail('net/url: invalid control character in URL');
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (/^[^/?]*:/.test(rest)) {
    if (rest.startsWith(':')) return fail('missing protocol scheme');
    return fail('first path segment in URL cannot contain colon');
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let user: string | undefined;
  let host = '';
  let path = rest;
  if (rest.startsWith('//')) {
    const authEnd = rest.indexOf('/', 2);
    const authority = authEnd < 0 ? rest.slice(2) : rest.slice(2, authEnd);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      host = authority.slice(at + 1);
    } else host = authority;
    path = authEnd < 0 ? '' : rest.slice(authEnd);
    if (host.startsWith('[') && !host.includes(']')) return fail("missing ']' in host");
    const port = /:([^\]]*)$/.exec(host);
    if (port && !host.startsWith('[') && !/^[0-9]*$/.test(port[1]!))
      return fail(`invalid port ${JSON.stringify(`:${port[1]}`)} after host`);
  }
  for (const part of [path, fragment]) {
    const bad = /%(?![0-9A-Fa-f]{2})(.{0,2})/.exec(part);
    if (bad) return fail(`invalid URL escape ${JSON.stringify(`%${bad[1]}`)}`);
  }
  return { scheme, user, host, rawQuery, fragment };
}

function validateUrl(field: string, raw: string): StatusCause[] {
  const u = parseUrl(raw);
  if ('error' in u) return [fieldErr.required(field, `url must be a valid URL: ${u.error}${URL_FORM}`)];
  const out = new Causes();
  if (u.scheme !== 'https') out.invalid(field, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`);
  if (!u.host) out.invalid(field, u.host, `host must be specified${URL_FORM}`);
  if (u.user !== undefined) out.invalid(field, u.user, 'user information is not permitted in the URL');
  if (u.fragment) out.invalid(field, u.fragment, 'fragments are not permitted in the URL');
  if (u.rawQuery) out.invalid(field, u.rawQuery, 'query parameters are not permitted in the URL');
  return out;
}

function validateService(field: string, svc: Rec): StatusCause[] {
  const out = new Causes();
  if (!text(svc.name)) out.required(`${field}.name`, 'service name is required');
  if (!text(svc.namespace)) out.required(`${field}.namespace`, 'service namespace is required');
  const port = svc.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    out.invalid(`${field}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive');
  if (typeof svc.path !== 'string') return out;
  const path = svc.path;
  if (path === '/' || path === '') return out;
  if (path === '//') return [...out, fieldErr.invalid(`${field}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) out.invalid(`${field}.path`, path, "must start with a '/'");
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      out.invalid(`${field}.path`, path, `segment[${i}] may not be empty`);
      return;
    }
    const p = nameProblem(step, 'subdomain');
    if (p) out.invalid(`${field}.path`, path, `segment[${i}]: ${p}`);
  });
  return out;
}

export function validateClientConfig(field: string, cc: Rec): StatusCause[] {
  const hasUrl = cc.url !== undefined;
  const hasService = cc.service !== undefined;
  if (hasUrl === hasService) return [fieldErr.required(field, 'exactly one of url or service is required')];
  if (hasUrl) return validateUrl(`${field}.url`, text(cc.url));
  return validateService(`${field}.service`, rec(cc.service));
}
