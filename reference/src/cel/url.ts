// URLs as Kubernetes' URL library reads them (Go's url.ParseRequestURI): an absolute URL with a
// scheme, or an absolute path; no fragment handling. Hand-written because the platform's URL
// parser normalizes (lower-cases hosts, adds "/" paths) where Go keeps the text as given.
import { evalError } from './errors.ts';

export class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  hostname(): string {
    const h = this.host;
    if (h.startsWith('[')) {
      const end = h.indexOf(']');
      return end > 0 ? h.slice(1, end) : h;
    }
    const i = h.lastIndexOf(':');
    return i >= 0 ? h.slice(0, i) : h;
  }

  port(): string {
    const h = this.host;
    const colon = h.lastIndexOf(':');
    if (colon < 0 || (h.startsWith('[') && colon < h.indexOf(']'))) return '';
    return h.slice(colon + 1);
  }

  /** The path as Go's EscapedPath gives it: as written when it is a valid encoding, else escaped. */
  escapedPath(): string {
    if (VALID_PATH.test(this.path)) return this.path;
    let out = '';
    for (const b of Buffer.from(safeDecode(this.path), 'utf8')) {
      const ch = String.fromCharCode(b);
      out += PATH_KEEP.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
  }

  query(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (!this.rawQuery) return out;
    for (const part of this.rawQuery.split('&')) {
      if (!part || part.includes(';')) continue;
      const eq = part.indexOf('=');
      const k = decode(eq >= 0 ? part.slice(0, eq) : part);
      const v = decode(eq >= 0 ? part.slice(eq + 1) : '');
      if (k === undefined || v === undefined) continue;
      const list = out.get(k);
      if (list) list.push(v);
      else out.set(k, [v]);
    }
    return out;
  }
}

const VALID_PATH = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;
const PATH_KEEP = /^[A-Za-z0-9\-._~$&+,/:;=@]$/;

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const BAD_HOST = /[\s"<>\\^`{|}]/;

/** The URL, or an error message in Go's words. */
export function parseRequestURI(raw: string): CelURL | string {
  const fail = (why: string) => `parse ${JSON.stringify(raw)}: ${why}`;
  if (raw === '') return fail('empty url');
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  let rest = raw;
  let scheme = '';
  if (!rest.startsWith('/')) {
    const m = SCHEME.exec(rest);
    if (!m) return fail(rest.startsWith(':') ? 'missing protocol scheme' : 'invalid URI for request');
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith('/')) return fail('invalid URI for request');
  let host = '';
  if (scheme && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    host = slash >= 0 ? rest.slice(2, slash) : rest.slice(2);
    rest = slash >= 0 ? rest.slice(slash) : '';
    const at = host.lastIndexOf('@');
    if (at >= 0) host = host.slice(at + 1);
    if (BAD_HOST.test(host))
      return fail(`invalid character ${JSON.stringify(host.match(BAD_HOST)![0])} in host name`);
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !(host.startsWith('[') && colon < host.indexOf(']'))) {
      const port = host.slice(colon + 1);
      if (!/^\d*$/.test(port)) return fail(`invalid port ${JSON.stringify(`:${port}`)} after host`);
    }
  }
  return new CelURL(scheme, host, rest, rawQuery);
}

export function urlOrThrow(raw: string): CelURL {
  const u = parseRequestURI(raw);
  if (typeof u === 'string') throw evalError(`URL parse error during conversion from string: ${u}`);
  return u;
}
