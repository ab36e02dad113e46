// Faults against doc3's plugin table rows PodSecurity, CertificateApproval, CertificateSigning,
// CertificateSubjectRestriction, NodeRestriction and OwnerReferencesPermissionEnforcement; each
// names the suites/admission cases that must catch it. A plugin that does not check a user is
// shown by sending that user's request without its Impersonate-* headers (so it runs as the run's
// administrator, whom the plugin lets through, while RBAC would have let the user through too).
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, divert, failure, header, unlessDiverted } from '../util.ts';

const PS = 'pod-security.orch.io/';
const NAMESPACES = /^\/api\/v1\/namespaces\/?$/;
const CSRS = /^\/apis\/certificates\.(orch|k8s)\.io\/v1\/certificatesigningrequests(\/|$)/;

/** The request without impersonation (run as the caller's own credentials). */
function unimpersonated(r: ProxiedRequest): ProxiedRequest {
  const headers = Object.fromEntries(
    Object.entries(r.headers).filter(([k]) => !k.startsWith('impersonate-')),
  );
  return { ...r, headers };
}
const impersonatedGroups = (r: ProxiedRequest): string[] => {
  const g = r.headers['impersonate-group'];
  return Array.isArray(g) ? g : g ? [g] : [];
};
const isNodeAgent = (r: ProxiedRequest) =>
  typeof r.headers['impersonate-user'] === 'string' && impersonatedGroups(r).includes('system:nodes');

/** A namespace create whose labels `f` may change (the body re-sent when it did). */
function rewriteNamespaceLabels(
  r: ProxiedRequest,
  f: (labels: Record<string, string>) => boolean,
): ProxiedRequest {
  if (r.method !== 'POST' || !NAMESPACES.test(r.url.pathname)) return r;
  const b = bodyOf(r.body);
  const labels = b?.metadata?.labels;
  if (!labels || typeof labels !== 'object') return r;
  return f(labels) ? { ...r, body: Buffer.from(JSON.stringify(b)) } : r;
}

/** The answer without the Warning headers `drop` matches. */
function dropWarnings(res: ProxiedResponse, drop: (w: string) => boolean): ProxiedResponse {
  const key = Object.keys(res.headers).find((k) => k.toLowerCase() === 'warning');
  if (!key) return res;
  const v = res.headers[key]!;
  const list = (Array.isArray(v) ? v : [v]).filter((w) => !drop(w));
  const headers = { ...res.headers };
  if (list.length) headers[key] = list;
  else delete headers[key];
  return { ...res, headers };
}

export const HOOKS: FaultHooks[] = [
  // ------------------------------------------------------------------------------ PodSecurity
  {
    name: 'pod-security-enforce-ignored',
    request: (r) =>
      rewriteNamespaceLabels(r, (labels) => {
        if (!(`${PS}enforce` in labels)) return false;
        delete labels[`${PS}enforce`];
        return true;
      }),
  },
  {
    name: 'pod-security-restricted-as-baseline',
    request: (r) =>
      rewriteNamespaceLabels(r, (labels) => {
        if (labels[`${PS}enforce`] !== 'restricted') return false;
        labels[`${PS}enforce`] = 'baseline';
        return true;
      }),
  },
  {
    name: 'pod-security-bad-label-accepted',
    request: (r) =>
      rewriteNamespaceLabels(r, (labels) => {
        let changed = false;
        for (const [k, v] of Object.entries(labels)) {
          if (!k.startsWith(PS)) continue;
          const version = k.endsWith('-version');
          const ok = version
            ? v === 'latest' || /^v1\.\d+$/.test(v)
            : ['privileged', 'baseline', 'restricted'].includes(v);
          if (!ok) {
            labels[k] = version ? 'latest' : 'restricted';
            changed = true;
          }
        }
        return changed;
      }),
  },
  {
    name: 'pod-security-warning-dropped',
    response: (_r, res) => dropWarnings(res, (w) => w.includes('would violate PodSecurity')),
  },
  {
    name: 'pod-security-existing-pods-unwarned',
    response: (r, res) =>
      /^\/api\/v1\/namespaces\/[^/]+$/.test(r.url.pathname) && r.method === 'PATCH'
        ? dropWarnings(res, () => true)
        : res,
  },
  // ---------------------------------------------------------------------- certificate plugins
  {
    name: 'csr-approval-unchecked',
    request: (r) =>
      r.method === 'PUT' && CSRS.test(r.url.pathname) && r.url.pathname.endsWith('/approval')
        ? unimpersonated(r)
        : r,
  },
  {
    name: 'csr-signing-unchecked',
    request: (r) =>
      r.method === 'PUT' &&
      CSRS.test(r.url.pathname) &&
      r.url.pathname.endsWith('/status') &&
      bodyOf(r.body)?.status?.certificate
        ? unimpersonated(r)
        : r,
  },
  {
    name: 'csr-signing-checks-every-status-write',
    request: (r) =>
      r.method === 'PUT' &&
      CSRS.test(r.url.pathname) &&
      r.url.pathname.endsWith('/status') &&
      header(r, 'impersonate-user') &&
      !bodyOf(r.body)?.status?.certificate
        ? divert(r, () => failure(403, 'Forbidden', 'user not permitted to sign requests (the fault)'))
        : r,
    response: unlessDiverted,
  },
  {
    name: 'csr-system-masters-admitted',
    request: (r) => {
      if (r.method !== 'POST' || !CSRS.test(r.url.pathname)) return r;
      const b = bodyOf(r.body);
      if (!/\/kube-apiserver-client$/.test(String(b?.spec?.signerName ?? ''))) return r;
      b.spec.signerName = 'conformance.example.com/rewritten';
      return { ...r, body: Buffer.from(JSON.stringify(b)) };
    },
  },
  // --------------------------------------------------------------------------- NodeRestriction
  {
    name: 'node-agent-other-node',
    request: (r) => {
      if (!isNodeAgent(r) || r.method !== 'POST' || r.url.pathname !== '/api/v1/nodes') return r;
      const node = String(r.headers['impersonate-user']).replace(/^system:node:/, '');
      return bodyOf(r.body)?.metadata?.name !== node ? unimpersonated(r) : r;
    },
  },
  {
    name: 'node-agent-taints-edited',
    request: (r) =>
      isNodeAgent(r) && r.url.pathname.startsWith('/api/v1/nodes/') && bodyOf(r.body)?.spec?.taints
        ? unimpersonated(r)
        : r,
  },
  {
    name: 'node-agent-reserved-labels',
    request: (r) =>
      isNodeAgent(r) &&
      r.url.pathname.startsWith('/api/v1/nodes') &&
      Object.keys(bodyOf(r.body)?.metadata?.labels ?? {}).some((k) =>
        k.startsWith('node-restriction.orch.io/'),
      )
        ? unimpersonated(r)
        : r,
  },
  {
    name: 'node-agent-foreign-pods',
    request: (r) => (isNodeAgent(r) && /\/pods(\/|$)/.test(r.url.pathname) ? unimpersonated(r) : r),
  },
  // ------------------------------------------------------ OwnerReferencesPermissionEnforcement
  {
    name: 'owner-references-delete-unchecked',
    request: (r) => {
      if (!r.headers['impersonate-user'] || isNodeAgent(r)) return r;
      const refs = bodyOf(r.body)?.metadata?.ownerReferences;
      return Array.isArray(refs) && refs.length && !refs.some((o: any) => o?.blockOwnerDeletion === true)
        ? unimpersonated(r)
        : r;
    },
  },
  {
    name: 'owner-references-create-checked',
    request: (r) => {
      if (r.method !== 'POST' || !r.headers['impersonate-user'] || isNodeAgent(r)) return r;
      const refs = bodyOf(r.body)?.metadata?.ownerReferences;
      return Array.isArray(refs) && refs.length && !refs.some((o: any) => o?.blockOwnerDeletion === true)
        ? divert(r, () =>
            failure(403, 'Forbidden', "cannot set an ownerRef on a resource you can't delete (the fault)"),
          )
        : r;
    },
    response: unlessDiverted,
  },
  {
    name: 'owner-references-block-unchecked',
    request: (r) => {
      if (!r.headers['impersonate-user'] || isNodeAgent(r)) return r;
      const refs = bodyOf(r.body)?.metadata?.ownerReferences;
      return Array.isArray(refs) && refs.some((o: any) => o?.blockOwnerDeletion === true)
        ? unimpersonated(r)
        : r;
    },
  },
];
