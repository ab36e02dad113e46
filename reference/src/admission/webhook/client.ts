// Calling a webhook (doc3 "Webhook contract"): HTTPS POST of a JSON AdmissionReview to
// `clientConfig.url`, or to the Service `clientConfig.service` names (an ExternalName service's
// name, else its cluster IP; TLS server name `<name>.<namespace>.svc`; port default 443, path
// default `/`), trusting `caBundle` (absent: the system roots), with the credentials of the
// plugin's connection file, within `timeoutSeconds` for the whole exchange. As Kubernetes 1.28
// does, the timeout is also sent as the `timeout` query parameter. Connections are kept open
// between calls: one pool per webhook and TLS setting.
import type { Agent } from 'undici';
import type { Registry } from '../../registry/registry.ts';
import { beforeExposure } from '../../storage/exposure.ts';
import { undici } from '../../util/undici.ts';
import type { WebhookAccessor } from './accessor.ts';
import type { CredentialResolver, Credentials } from './credentials.ts';

/** The largest reply read (a reply carries at most an object's patch). */
export const MAX_REPLY_BYTES = 3 * 1024 * 1024;
/** Pools kept at most (the oldest is closed beyond). */
const MAX_POOLS = 256;

/** A call that did not produce a reply to judge: the failure policy decides. */
export class CallFailure extends Error {}

export interface Reply {
  status: number;
  contentType: string | undefined;
  body: string;
}

interface Target {
  /** What is dialled. */
  url: URL;
  /** What the request and messages name (`https://<name>.<namespace>.svc:<port>/path`). */
  shown: string;
  host?: string;
  servername?: string;
  credentials?: Credentials;
}

function goUrl(u: URL): string {
  return u.toString();
}

export class WebhookClient {
  private readonly pools = new Map<string, Agent>();
  /** Per webhook (a stored configuration's, unchanged): its URL target and its pool. */
  private readonly known = new WeakMap<WebhookAccessor, { url?: Target; agent: Agent }>();

  constructor(
    private readonly registry: Registry,
    private readonly credentials: CredentialResolver,
  ) {}

  private target(hook: WebhookAccessor): Target {
    const cc = hook.clientConfig;
    const timeout = `${hook.timeoutSeconds}s`;
    if (cc.url !== undefined) {
      let u: URL;
      try {
        u = new URL(cc.url);
      } catch {
        throw new CallFailure(`could not get REST client: invalid URL ${JSON.stringify(cc.url)}`);
      }
      if (u.protocol !== 'https:')
        throw new CallFailure(`could not get REST client: ${cc.url}: only https is called`);
      const hostPort = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(cc.url)?.[1] ?? u.host;
      u.searchParams.set('timeout', timeout);
      return { url: u, shown: goUrl(u), credentials: this.credentials.forHost(hostPort) };
    }
    const svc = cc.service!;
    const stored = this.registry.storage.get(`core/services/${svc.namespace}/${svc.name}`)?.obj as
      | { spec?: { type?: string; externalName?: string; clusterIP?: string } }
      | undefined;
    if (!stored)
      throw new CallFailure(`could not get REST client: service "${svc.namespace}/${svc.name}" not found`);
    const spec = stored.spec ?? {};
    const host =
      spec.type === 'ExternalName'
        ? spec.externalName
        : spec.clusterIP && spec.clusterIP !== 'None'
          ? spec.clusterIP
          : undefined;
    if (!host)
      throw new CallFailure(
        `could not get REST client: service "${svc.namespace}/${svc.name}" has no address to call`,
      );
    const path = svc.path ?? '/';
    const dial = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${svc.port}`);
    dial.pathname = path;
    dial.searchParams.set('timeout', timeout);
    const dns = `${svc.name}.${svc.namespace}.svc`;
    const shown = new URL(`https://${dns}:${svc.port}`);
    shown.pathname = path;
    shown.searchParams.set('timeout', timeout);
    return {
      url: dial,
      shown: goUrl(shown),
      host: svc.port === 443 ? dns : `${dns}:${svc.port}`,
      servername: dns,
      credentials: this.credentials.forService(svc.name, svc.namespace, svc.port),
    };
  }

  private async remember(hook: WebhookAccessor, t: Target): Promise<Agent> {
    const agent = await this.pool(hook, t);
    this.known.set(hook, { url: hook.clientConfig.url !== undefined ? t : undefined, agent });
    return agent;
  }

  private async pool(hook: WebhookAccessor, t: Target): Promise<Agent> {
    const c = t.credentials;
    const key = JSON.stringify([
      hook.uid,
      hook.clientConfig.caBundle ?? '',
      t.servername ?? '',
      c?.cert ?? '',
      c?.key ?? '',
    ]);
    let agent = this.pools.get(key);
    if (agent) {
      // most recently used last
      this.pools.delete(key);
      this.pools.set(key, agent);
      return agent;
    }
    const { Agent } = await undici();
    const ca = hook.clientConfig.caBundle
      ? Buffer.from(hook.clientConfig.caBundle, 'base64').toString('utf8')
      : undefined;
    agent = new Agent({
      connect: { ca, cert: c?.cert, key: c?.key, servername: t.servername },
      keepAliveTimeout: 30_000,
    });
    this.pools.set(key, agent);
    if (this.pools.size > MAX_POOLS) {
      const [oldKey, old] = this.pools.entries().next().value as [string, Agent];
      this.pools.delete(oldKey);
      old.close().catch(() => {});
    }
    return agent;
  }

  /**
   * POSTs the review; resolves with any HTTP reply (judged by the caller), rejects with a
   * CallFailure worded as Kubernetes 1.28 words it (`Post "<url>": <why>`).
   */
  async post(hook: WebhookAccessor, review: unknown, signal?: AbortSignal): Promise<Reply> {
    let known = this.known.get(hook);
    if (known && (known.agent.closed || known.agent.destroyed)) known = undefined;
    // a URL is resolved once; a Service is looked up on every call (it may change)
    const t = known?.url ?? this.target(hook);
    const deadline = AbortSignal.timeout(hook.timeoutSeconds * 1000);
    const abort = signal ? AbortSignal.any([deadline, signal]) : deadline;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'user-agent': 'orch-apiserver-admission',
    };
    if (t.host) headers.host = t.host;
    const c = t.credentials;
    if (c?.token) headers.authorization = `Bearer ${c.token}`;
    else if (c?.username !== undefined)
      headers.authorization = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
    const post = `Post ${JSON.stringify(t.shown)}`;
    try {
      const { request } = await undici();
      const dispatcher = known?.agent ?? (await this.remember(hook, t));
      // the review may hold a stored object (oldObject): its change is in the log first
      beforeExposure();
      const res = await request(t.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(review),
        dispatcher,
        signal: abort,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_REPLY_BYTES) {
          res.body.destroy();
          throw new CallFailure(`${post}: the reply is larger than ${MAX_REPLY_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const ct = res.headers['content-type'];
      return {
        status: res.statusCode,
        contentType: Array.isArray(ct) ? ct[0] : ct,
        body: Buffer.concat(chunks).toString('utf8'),
      };
    } catch (e) {
      if (e instanceof CallFailure) throw e;
      if (deadline.aborted) throw new CallFailure(`${post}: context deadline exceeded`);
      if (signal?.aborted) throw new CallFailure(`${post}: context canceled`);
      throw new CallFailure(`${post}: ${networkReason(e, t.url)}`);
    }
  }

  close(): void {
    for (const a of this.pools.values()) a.close().catch(() => {});
    this.pools.clear();
  }
}

/** A network error in Go's words where they are well known, else the error's own message. */
function networkReason(e: unknown, u: URL): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  const addr = `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port || '443'}`;
  switch (code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'EOF';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${u.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${u.hostname}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return err.cause?.message ?? err.message ?? String(e);
  }
}
