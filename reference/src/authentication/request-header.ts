// The authenticating proxy (`--requestheader-*`, doc3 "Authentication"): a proxy in front of
// the server authenticates the user and names it in request headers. The headers count only
// on a request whose client certificate the request-header CAs verify (signatures, dates,
// client-auth usage) and, when allowed names are set, whose subject CN is one of them;
// otherwise this method refuses the certificate and the request falls to the other methods
// (a 401 when none accepts). The user name is the first non-empty value among the username
// headers, in their order (names are case-insensitive); every value of every group header is
// a group; a header starting with an extra prefix adds its values to the extra attribute
// named by the rest of the header name, lower-cased and percent-decoded. A verified proxy
// request without a user name header is not this method's.
import type { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../registry/types.ts';
import type { MaybePromise } from '../util/maybe-async.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  NOT_MINE,
} from './types.ts';
import { VerifiedChains } from './x509-chain.ts';
import { subjectReader, subjectReaderLoaded } from './x509-subject-reader.ts';

export interface RequestHeaderConfig {
  roots: readonly X509Certificate[];
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraPrefixes: readonly string[];
}

export class RequestHeaderAuthenticator implements Authenticator {
  readonly name = 'requestheader';
  private readonly chains: VerifiedChains<object>;
  private readonly usernameHeaders: string[];
  private readonly groupHeaders: Set<string>;
  private readonly extraPrefixes: string[];
  private readonly allowed: Set<string>;

  constructor(c: RequestHeaderConfig, now: () => number = Date.now) {
    this.usernameHeaders = lower(c.usernameHeaders);
    this.groupHeaders = new Set(lower(c.groupHeaders));
    this.extraPrefixes = lower(c.extraPrefixes);
    this.allowed = new Set(c.allowedNames);
    this.chains = new VerifiedChains(c.roots, (leaf) => this.allowedProxy(leaf), now);
  }

  authenticate(r: AuthenticationRequest): MaybePromise<AuthenticationResult> {
    const chain = r.peerCertificates;
    if (!chain?.length) return NOT_MINE;
    // allowed names: the first certificate loads the reader of subject names
    if (this.allowed.size && !subjectReaderLoaded()) return subjectReader().then(() => this.authenticate(r));
    const c = this.chains.verify(chain);
    if ('error' in c) return { status: 'error', message: c.error };
    const headers = headerList(r);
    const username = this.username(headers);
    if (!username) return NOT_MINE;
    const user: UserInfo = { username, groups: [] };
    // keys come from the proxy's headers (`__proto__`, `constructor` are keys like any other): no prototype
    const extra: Record<string, string[]> = Object.create(null);
    let hasExtra = false;
    for (const [name, value] of headers) {
      if (this.groupHeaders.has(name)) {
        if (value !== '') user.groups.push(value);
        continue;
      }
      for (const prefix of this.extraPrefixes) {
        if (!name.startsWith(prefix)) continue;
        const key = decodeKey(name.slice(prefix.length));
        (extra[key] ??= []).push(value);
        hasExtra = true;
        break;
      }
    }
    if (hasExtra) user.extra = extra;
    return { status: 'user', user };
  }

  private username(headers: [string, string][]): string | undefined {
    for (const want of this.usernameHeaders) {
      // the header's first value, as a proxy sets it once
      const first = headers.find(([name]) => name === want);
      if (first && first[1] !== '') return first[1];
    }
    return undefined;
  }

  /** A verified proxy certificate counts only when its CN is an allowed name (when names are set). */
  private allowedProxy(leaf: Buffer): object | { error: string } {
    if (this.allowed.size === 0) return {};
    // loaded: authenticate() loads it before any chain is verified
    const cn = subjectReaderLoaded()!(leaf).commonName;
    return this.allowed.has(cn) ? {} : { error: `x509: subject with cn=${cn} is not in the allowed list` };
  }
}

function lower(names: readonly string[]): string[] {
  return names.map((n) => n.trim().toLowerCase()).filter(Boolean);
}

/** The request's headers as [lower-case name, value] pairs, repeated headers apart. */
function headerList(r: AuthenticationRequest): [string, string][] {
  const out: [string, string][] = [];
  if (r.rawHeaders) {
    for (let i = 0; i + 1 < r.rawHeaders.length; i += 2)
      out.push([r.rawHeaders[i]!.toLowerCase(), r.rawHeaders[i + 1]!]);
    return out;
  }
  for (const [name, v] of Object.entries(r.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push([name, one]);
  }
  return out;
}

/** An extra key: percent-decoded when it decodes, else as sent. */
function decodeKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k;
  }
}
