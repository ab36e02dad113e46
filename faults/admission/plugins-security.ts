// Faults against doc3's plugin table rows PodSecurity, CertificateApproval, CertificateSigning,
// CertificateSubjectRestriction, NodeRestriction and OwnerReferencesPermissionEnforcement; each
// names the suites/admission cases that must catch it. A plugin that does not check a user is
// shown by sending that user's request without its Impersonate-* headers (so it runs as the run's
// administrator, whom the plugin lets through, while RBAC would have let the user through too).
import type { Fault, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { bodyOf, divert, failure, header, unlessDiverted } from '../util.ts';

const PS = 'pod-security.orch.io/';
const NAMESPACES = /^\/api\/v1\/namespaces\/?$/;
const CSRS = /^\/apis\/certificates\.(orch|k8s)\.io\/v1\/certificatesigningrequests(\/|$)/;
const psa = (id: string) => `admission/plugins/pod-security/${id}`;
const BASELINE_CASES = [
  'host-namespaces',
  'privileged',
  'capabilities',
  'host-path',
  'host-ports',
  'sysctls',
  'seccomp-unconfined',
  'selinux',
].map((c) => psa(`baseline-${c}`));

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

/** The off-by-default plugins the NodeRestriction and owner reference faults need on. */
const OPTIONAL_ON = { enableAdmissionPlugins: ['NodeRestriction', 'OwnerReferencesPermissionEnforcement'] };

export const FAULTS: Fault[] = [
  // ------------------------------------------------------------------------------ PodSecurity
  {
    name: 'pod-security-enforce-ignored',
    breaks:
      "doc3 plugin table, PodSecurity: new workload units are checked against the namespace's standard (the proxy drops the enforce label from every namespace created, so nothing is enforced)",
    area: 'admission',
    catchers: [psa('enforce-rejects'), psa('enforce-message'), psa('restricted'), ...BASELINE_CASES],
    request: (r) =>
      rewriteNamespaceLabels(r, (labels) => {
        if (!(`${PS}enforce` in labels)) return false;
        delete labels[`${PS}enforce`];
        return true;
      }),
  },
  {
    name: 'pod-security-restricted-as-baseline',
    breaks:
      'doc3 plugin table, PodSecurity (1.28 levels): restricted adds its checks to baseline (the proxy creates namespaces labelled enforce=restricted as baseline)',
    area: 'admission',
    catchers: [psa('restricted')],
    request: (r) =>
      rewriteNamespaceLabels(r, (labels) => {
        if (labels[`${PS}enforce`] !== 'restricted') return false;
        labels[`${PS}enforce`] = 'baseline';
        return true;
      }),
  },
  {
    name: 'pod-security-bad-label-accepted',
    breaks:
      'doc3 plugin table, PodSecurity (1.28): a pod security label with an unknown level or a malformed version is refused (the proxy fixes such values before the server sees them)',
    area: 'admission',
    catchers: [psa('bad-labels')],
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
    breaks:
      'doc3 plugin table, PodSecurity (1.28): warn adds a Warning naming the violations (the proxy drops every `would violate PodSecurity` warning)',
    area: 'admission',
    catchers: [psa('warn'), psa('workload-warn-only')],
    response: (_r, res) => dropWarnings(res, (w) => w.includes('would violate PodSecurity')),
  },
  {
    name: 'pod-security-existing-pods-unwarned',
    breaks:
      "doc3 plugin table, PodSecurity (1.28): raising a namespace's enforce level warns about its existing violating pods (the proxy drops the warnings of namespace writes)",
    area: 'admission',
    catchers: [psa('existing-pods-warning')],
    response: (r, res) =>
      /^\/api\/v1\/namespaces\/[^/]+$/.test(r.url.pathname) && r.method === 'PATCH'
        ? dropWarnings(res, () => true)
        : res,
  },
  // ---------------------------------------------------------------------- certificate plugins
  {
    name: 'csr-approval-unchecked',
    breaks:
      "doc3 plugin table, CertificateApproval: the approver needs the approve permission for the signer (the proxy sends approvals without impersonation, as the run's administrator)",
    area: 'admission',
    catchers: [
      'admission/plugins/certificates/approval-needs-approve',
      'admission/plugins/certificates/approval-exact-signer',
    ],
    request: (r) =>
      r.method === 'PUT' && CSRS.test(r.url.pathname) && r.url.pathname.endsWith('/approval')
        ? unimpersonated(r)
        : r,
  },
  {
    name: 'csr-signing-unchecked',
    breaks:
      'doc3 plugin table, CertificateSigning: setting status.certificate needs the sign permission for the signer (the proxy sends status writes that carry a certificate without impersonation)',
    area: 'admission',
    catchers: ['admission/plugins/certificates/signing-needs-sign'],
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
    breaks:
      'doc3 plugin table, CertificateSigning: only a write that sets status.certificate is checked (the proxy refuses an impersonated status write without a certificate as the plugin would a missing sign permission)',
    area: 'admission',
    catchers: ['admission/plugins/certificates/signing-certificate-only'],
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
    breaks:
      'doc3 plugin table, CertificateSubjectRestriction: client-signer requests with group system:masters are rejected (the proxy sends every client-signer request to another signer)',
    area: 'admission',
    catchers: ['admission/plugins/certificates/subject-system-masters'],
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
    breaks:
      "doc3 plugin table, NodeRestriction: a node agent is limited to its own node (the proxy lets a node agent's write of another Node through as the administrator)",
    area: 'admission',
    catchers: ['admission/plugins/node-restriction/own-node'],
    server: OPTIONAL_ON,
    request: (r) => {
      if (!isNodeAgent(r) || r.method !== 'POST' || r.url.pathname !== '/api/v1/nodes') return r;
      const node = String(r.headers['impersonate-user']).replace(/^system:node:/, '');
      return bodyOf(r.body)?.metadata?.name !== node ? unimpersonated(r) : r;
    },
  },
  {
    name: 'node-agent-taints-edited',
    breaks:
      "doc3 plugin table, NodeRestriction: no taint edits (the proxy lets a node agent's change of taints through as the administrator)",
    area: 'admission',
    catchers: ['admission/plugins/node-restriction/no-taint-edits'],
    server: OPTIONAL_ON,
    request: (r) =>
      isNodeAgent(r) && r.url.pathname.startsWith('/api/v1/nodes/') && bodyOf(r.body)?.spec?.taints
        ? unimpersonated(r)
        : r,
  },
  {
    name: 'node-agent-reserved-labels',
    breaks:
      "doc3 plugin table, NodeRestriction: reserved label prefixes (the proxy lets a node agent's Node write with node-restriction.orch.io/ labels through as the administrator)",
    area: 'admission',
    catchers: ['admission/plugins/node-restriction/reserved-labels'],
    server: OPTIONAL_ON,
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
    breaks:
      "doc3 plugin table, NodeRestriction: a node agent is limited to its bound workload units (the proxy lets a node agent's pod writes through as the administrator)",
    area: 'admission',
    catchers: ['admission/plugins/node-restriction/bound-pods'],
    server: OPTIONAL_ON,
    request: (r) => (isNodeAgent(r) && /\/pods(\/|$)/.test(r.url.pathname) ? unimpersonated(r) : r),
  },
  // ------------------------------------------------------ OwnerReferencesPermissionEnforcement
  {
    name: 'owner-references-delete-unchecked',
    breaks:
      'doc3 plugin table, OwnerReferencesPermissionEnforcement: only holders of delete permission change ownerReferences (the proxy sends impersonated writes that set owner references, none blocking, as the administrator)',
    area: 'admission',
    catchers: ['admission/plugins/owner-references/needs-delete'],
    server: OPTIONAL_ON,
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
    breaks:
      'Kubernetes (beyond the doc3 plugin table): a creation may set owner references without delete permission (the proxy refuses an impersonated creation with owner references as the plugin refuses a change)',
    area: 'admission',
    catchers: ['admission/plugins/owner-references/create-free'],
    server: OPTIONAL_ON,
    request: (r) => {
      if (r.method !== 'POST' || !r.headers['impersonate-user'] || isNodeAgent(r)) return r;
      const refs = bodyOf(r.body)?.metadata?.ownerReferences;
      return Array.isArray(refs) && refs.length && !refs.some((o: any) => o?.blockOwnerDeletion === true)
        ? divert(r, () => failure(403, 'Forbidden', "cannot set an ownerRef on a resource you can't delete (the fault)"))
        : r;
    },
    response: unlessDiverted,
  },
  {
    name: 'owner-references-block-unchecked',
    breaks:
      "doc3 plugin table, OwnerReferencesPermissionEnforcement: blockOwnerDeletion needs update on the owner's finalizers (the proxy sends impersonated writes with a blocking owner reference as the administrator)",
    area: 'admission',
    catchers: ['admission/plugins/owner-references/block-owner-deletion'],
    server: OPTIONAL_ON,
    request: (r) => {
      if (!r.headers['impersonate-user'] || isNodeAgent(r)) return r;
      const refs = bodyOf(r.body)?.metadata?.ownerReferences;
      return Array.isArray(refs) && refs.some((o: any) => o?.blockOwnerDeletion === true)
        ? unimpersonated(r)
        : r;
    },
  },
];
