// The subresources the server knows, declared once: the verbs each serves and the kind its
// requests and replies carry when it is not the resource's own. The router, discovery and
// OpenAPI all read this table.
export interface SubresourceInfo {
  verbs: readonly string[];
  /** The kind of the subresource's body (absent: the resource's own kind). */
  kind?: { group: string; version: string; kind: string };
}

export const SUBRESOURCES: Readonly<Record<string, SubresourceInfo>> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { verbs: ['get', 'patch', 'update'], kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
  eviction: { verbs: ['create'], kind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
  finalize: { verbs: ['update'] },
  approval: { verbs: ['get', 'patch', 'update'] },
  token: { verbs: ['create'], kind: { group: 'authentication.orch.io', version: 'v1', kind: 'TokenRequest' } },
};

export function subresourceVerbs(name: string): readonly string[] {
  return SUBRESOURCES[name]?.verbs ?? [];
}
