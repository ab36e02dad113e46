// The certificate plugins (doc3 plugin table: CertificateApproval, CertificateSigning,
// CertificateSubjectRestriction; the permission's shape as Kubernetes 1.28) and
// OwnerReferencesPermissionEnforcement, on a server with RBAC: users acting through
// impersonation, each granted exactly what a case needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACTORIES } from '../src/admission/plugins/catalog.ts';
import { clusterTrustBundleAttest } from '../src/admission/plugins/cluster-trust-bundle-attest.ts';
import { AuthorizerChain } from '../src/authorization/chain.ts';
import { admissionAttributes } from './admission-attributes.ts';
import { csrPem, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const CSRS = '/apis/certificates.orch.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const b64 = (s: string) => Buffer.from(s).toString('base64');
let ts: TestServer;

beforeAll(async () => {
  ts = await startServer({ enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'] });
});
afterAll(async () => ts?.close());

const as = (user: string) => ({ 'impersonate-user': user });

async function grant(user: string, rules: unknown[]) {
  const name = uniqueName('role');
  expect(
    (
      await ts.req('POST', `${RBAC}/clusterroles`, {
        apiVersion: 'rbac.authorization.orch.io/v1',
        kind: 'ClusterRole',
        metadata: { name },
        rules,
      })
    ).status,
  ).toBe(201);
  const b = await ts.req('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.orch.io' }],
  });
  expect(b.status).toBe(201);
}

async function newCsr(signerName: string, subject = 'CN=someone') {
  const name = uniqueName('csr');
  const { pem } = await csrPem(subject);
  const r = await ts.req('POST', CSRS, {
    apiVersion: 'certificates.orch.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(pem), signerName, usages: ['client auth'] },
  });
  return { name, r };
}

const approved = (o: any) => ({
  ...o,
  status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] },
});

describe('the catalog', () => {
  it('makes every plugin of this file', () => {
    for (const n of [
      'CertificateApproval',
      'CertificateSigning',
      'CertificateSubjectRestriction',
      'ClusterTrustBundleAttest',
      'OwnerReferencesPermissionEnforcement',
    ] as const)
      expect(FACTORIES[n], n).toBeDefined();
  });
});

describe('CertificateApproval and CertificateSigning', () => {
  it('approval needs approve on the signer, by its name or its domain wildcard', async () => {
    const user = uniqueName('approver');
    await grant(user, [
      {
        apiGroups: ['certificates.orch.io'],
        resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'],
        verbs: ['get', 'update'],
      },
    ]);
    const { name, r } = await newCsr('example.com/one');
    expect(r.status, r.text).toBe(201);
    const refused = await ts.req('PUT', `${CSRS}/${name}/approval`, approved(r.json), as(user));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      `certificatesigningrequests.certificates.orch.io "${name}" is forbidden: user not permitted to approve requests with signerName "example.com/one"`,
    );
    await grant(user, [
      {
        apiGroups: ['certificates.orch.io'],
        resources: ['signers'],
        verbs: ['approve'],
        resourceNames: ['example.com/*'],
      },
    ]);
    const ok = await ts.req('PUT', `${CSRS}/${name}/approval`, approved(r.json), as(user));
    expect(ok.status, ok.text).toBe(200);
  });

  it('setting the certificate needs sign on the signer; a status write without it does not', async () => {
    const user = uniqueName('signer');
    await grant(user, [
      {
        apiGroups: ['certificates.orch.io'],
        resources: ['certificatesigningrequests', 'certificatesigningrequests/status'],
        verbs: ['get', 'update'],
      },
    ]);
    const { name, r } = await newCsr('example.com/two');
    const a = await ts.req('PUT', `${CSRS}/${name}/approval`, approved(r.json));
    expect(a.status, a.text).toBe(200);
    const cond = {
      ...a.json,
      status: {
        ...a.json.status,
        conditions: [
          ...a.json.status.conditions,
          { type: 'Extra', status: 'True', reason: 'R', message: 'm' },
        ],
      },
    };
    const noCert = await ts.req('PUT', `${CSRS}/${name}/status`, cond, as(user));
    expect(noCert.status, noCert.text).toBe(200);
    const { certPem } = await makeCa('issued');
    const withCert = { ...noCert.json, status: { ...noCert.json.status, certificate: b64(certPem) } };
    const refused = await ts.req('PUT', `${CSRS}/${name}/status`, withCert, as(user));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.message).toBe(
      `certificatesigningrequests.certificates.orch.io "${name}" is forbidden: user not permitted to sign requests with signerName "example.com/two"`,
    );
    await grant(user, [
      {
        apiGroups: ['certificates.orch.io'],
        resources: ['signers'],
        verbs: ['sign'],
        resourceNames: ['example.com/two'],
      },
    ]);
    const ok = await ts.req('PUT', `${CSRS}/${name}/status`, withCert, as(user));
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('CertificateSubjectRestriction', () => {
  it('refuses the client signer with the system:masters group, allows other signers and groups', async () => {
    const bad = await newCsr('orch.io/kube-apiserver-client', 'CN=root, O=system:masters');
    expect(bad.r.status).toBe(403);
    expect(bad.r.json.message).toBe(
      `certificatesigningrequests.certificates.orch.io "${bad.name}" is forbidden: use of orch.io/kube-apiserver-client signer with system:masters group is not allowed`,
    );
    expect((await newCsr('orch.io/kube-apiserver-client', 'CN=root, O=devs')).r.status).toBe(201);
    expect((await newCsr('example.com/other', 'CN=root, O=system:masters')).r.status).toBe(201);
  });
});

describe('OwnerReferencesPermissionEnforcement', () => {
  const cm = (name: string, ownerReferences: unknown[]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ownerReferences },
    data: {},
  });
  const owner = (block?: boolean) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'owner',
    uid: '00000000-0000-0000-0000-000000000001',
    ...(block === undefined ? {} : { blockOwnerDeletion: block }),
  });

  it("owner references need delete on the object; blockOwnerDeletion needs update on the owner's finalizers", async () => {
    const user = uniqueName('owner');
    await grant(user, [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update', 'patch'] },
    ]);
    // kube-apiserver 1.28 (run --kubernetes-assets): a creation may set owner references
    // without delete; an update that adds them needs it
    const created = await ts.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm(uniqueName('c'), [owner()]),
      as(user),
    );
    expect(created.status, created.text).toBe(201);
    const plain = uniqueName('c');
    expect(
      (await ts.req('POST', '/api/v1/namespaces/default/configmaps', cm(plain, []), as(user))).status,
    ).toBe(201);
    const noDelete = await ts.req(
      'PATCH',
      `/api/v1/namespaces/default/configmaps/${plain}`,
      { metadata: { ownerReferences: [owner()] } },
      { ...as(user), 'content-type': 'application/merge-patch+json' },
    );
    expect(noDelete.status).toBe(403);
    expect(noDelete.json.message).toContain("cannot set an ownerRef on a resource you can't delete");
    await grant(user, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }]);
    expect(
      (
        await ts.req(
          'POST',
          '/api/v1/namespaces/default/configmaps',
          cm(uniqueName('c'), [owner(false)]),
          as(user),
        )
      ).status,
    ).toBe(201);
    const block = await ts.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm(uniqueName('c'), [owner(true)]),
      as(user),
    );
    expect(block.status).toBe(403);
    expect(block.json.message).toContain(
      "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
    );
    await grant(user, [
      { apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'], resourceNames: ['owner'] },
    ]);
    expect(
      (
        await ts.req(
          'POST',
          '/api/v1/namespaces/default/configmaps',
          cm(uniqueName('c'), [owner(true)]),
          as(user),
        )
      ).status,
    ).toBe(201);
    const unknown = await ts.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm(uniqueName('c'), [{ ...owner(true), apiVersion: 'nowhere.example/v1', kind: 'Thing' }]),
      as(user),
    );
    expect(unknown.status).toBe(403);
    expect(unknown.json.message).toContain(
      'cannot find RESTMapping for APIVersion nowhere.example/v1 Kind Thing',
    );
  });
});

describe('ClusterTrustBundleAttest (the kind is not served: the plugin alone)', () => {
  const attrs = (operation: 'CREATE' | 'UPDATE', object: any, oldObject?: any) =>
    admissionAttributes({
      operation,
      group: 'certificates.orch.io',
      version: 'v1alpha1',
      kind: 'ClusterTrustBundle',
      resource: 'clustertrustbundles',
      name: 'b',
      object,
      oldObject,
    });
  /** Allows `attest` on exactly the names given. */
  const only = (names: string[]) =>
    new AuthorizerChain([
      {
        name: 'test',
        authorize: (a) =>
          a.verb === 'attest' &&
          a.resource === 'signers' &&
          a.apiGroup === 'certificates.orch.io' &&
          names.includes(a.name)
            ? { decision: 'allow', reason: '' }
            : { decision: 'no-opinion', reason: '' },
      },
    ]);
  const bundle = (signerName?: string, trustBundle = 'pem') => ({
    metadata: { name: 'b' },
    spec: { ...(signerName ? { signerName } : {}), trustBundle },
  });

  it('a bundle naming a signer needs attest on it (or its domain); one naming none needs nothing', async () => {
    const p = clusterTrustBundleAttest({ authorizer: only(['example.com/*']) });
    expect(p.handles!(attrs('CREATE', bundle('example.com/s')))).toBe(true);
    await expect(p.validate!(attrs('CREATE', bundle('example.com/s')))).resolves.toBeUndefined();
    await expect(p.validate!(attrs('CREATE', bundle('other.com/s')))).rejects.toMatchObject({
      code: 403,
      message:
        'clustertrustbundles.certificates.orch.io "b" is forbidden: user not permitted to attest for signerName "other.com/s"',
    });
    await expect(p.validate!(attrs('CREATE', bundle()))).resolves.toBeUndefined();
  });
  it('an update that changes neither the signer nor the bundle is not checked', async () => {
    const p = clusterTrustBundleAttest({ authorizer: only([]) });
    await expect(
      p.validate!(attrs('UPDATE', bundle('other.com/s'), bundle('other.com/s'))),
    ).resolves.toBeUndefined();
    await expect(
      p.validate!(attrs('UPDATE', bundle('other.com/s', 'new'), bundle('other.com/s'))),
    ).rejects.toMatchObject({ code: 403 });
  });
});
