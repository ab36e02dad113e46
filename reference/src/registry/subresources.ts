// The subresources the server knows, declared once: the verbs each serves and the kind its
// requests and replies carry when it is not the resource's own. The router, discovery and
// OpenAPI all read this table; the HTTP layer's routing (http/routing.ts) only names the
// handler of each subresource, for the verbs listed here.
export interface SubresourceInfo {
  verbs: readonly string[];
  /** The kind of the subresource's body (absent: the resource's own kind). */
  kind?: { group: string; version: string; kind: string };
  /** The kind is the resource's own kind with this suffix, in its group (`Pod` + `ExecOptions`). */
  kindSuffix?: string;
  /**
   * A connect subresource: the request is streamed to (or answered for) a backend rather than
   * read or written in storage (a proxy's path goes on past it: `proxy/<path>`).
   */
  connect?: boolean;
}

export const SUBRESOURCES: Readonly<Record<string, SubresourceInfo>> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { verbs: ['get', 'patch', 'update'], kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
  eviction: { verbs: ['create'], kind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
  finalize: { verbs: ['update'] },
  approval: { verbs: ['get', 'patch', 'update'] },
  token: {
    verbs: ['create'],
    kind: { group: 'authentication.orch.io', version: 'v1', kind: 'TokenRequest' },
  },
  binding: { verbs: ['create'], kind: { group: '', version: 'v1', kind: 'Binding' } },
  ephemeralcontainers: { verbs: ['get', 'patch', 'update'] },
  log: { verbs: ['get'], connect: true },
  exec: { verbs: ['create', 'get'], kindSuffix: 'ExecOptions', connect: true },
  attach: { verbs: ['create', 'get'], kindSuffix: 'AttachOptions', connect: true },
  portforward: { verbs: ['create', 'get'], kindSuffix: 'PortForwardOptions', connect: true },
  proxy: { verbs: ['create', 'delete', 'get', 'patch', 'update'], kindSuffix: 'ProxyOptions', connect: true },
};

/** Whether a subresource is a connect one (log, exec, attach, portforward, proxy). */
export function isConnect(name: string): boolean {
  return SUBRESOURCES[name]?.connect === true;
}

export function subresourceVerbs(name: string): readonly string[] {
  return SUBRESOURCES[name]?.verbs ?? [];
}
