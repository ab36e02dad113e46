// doc3 § Webhook configuration objects, plugin table rows CertificateApproval ("checks the
// approver has the approve permission for the request's signer"), CertificateSigning ("checks the
// signer has permission when `status.certificate` is set") and CertificateSubjectRestriction
// ("rejects client-signer requests with group `system:masters`"). The permission's shape (verbs
// approve and sign on `signers` of the certificates group, named by the signer or `<domain>/*`)
// and the messages are Kubernetes 1.28's. Users act through impersonation, granted by RBAC exactly
// what each step needs, so each refusal is the plugin's and not RBAC's.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { actingAs } from '../../harness/src/auth/impersonation.ts';
import { makeCa, makeCsr } from '../../harness/src/auth/pki.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import type { CaseDef } from '../../harness/src/spec.ts';
import { grant, row, settle } from './plugin-helpers.ts';
import { pluginCase } from './plugin-support.ts';

const CSRS = '/apis/certificates.orch.io/v1/certificatesigningrequests';
const CLIENT_SIGNER = 'orch.io/kube-apiserver-client';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const APPROVAL = row(
  'CertificateApproval',
  'V',
  "Checks the approver has the approve permission for the request's signer",
);
const SIGNING = row(
  'CertificateSigning',
  'V',
  'Checks the signer has permission when `status.certificate` is set',
);
const SUBJECT = row(
  'CertificateSubjectRestriction',
  'V',
  'Rejects client-signer requests with group `system:masters`',
);
const def = (id: string, title: string, place: string, level: CaseDef['level']): CaseDef =>
  pluginCase(`certificates/${id}`, title, place, level);

async function newCsr(c: Client, signerName: string, orgs: string[] = []) {
  const name = uniqueName('plugin-csr');
  const { csr } = await makeCsr(name, orgs);
  const r = await c.post(CSRS, {
    apiVersion: 'certificates.orch.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(csr), signerName, usages: ['client auth'] },
  });
  return { name, r, remove: () => c.delete(`${CSRS}/${name}`).then(() => undefined) };
}
const approved = (o: any) => ({
  ...o,
  status: {
    conditions: [
      { type: 'Approved', status: 'True', reason: 'Conformance', message: 'approved by the suite' },
    ],
  },
});
const CSR_RULES = (sub: string) => [
  {
    apiGroups: ['certificates.orch.io'],
    resources: ['certificatesigningrequests', `certificatesigningrequests/${sub}`],
    verbs: ['get', 'update'],
  },
];

describe('admission: certificate plugins', () => {
  conformance(
    def(
      'approval-needs-approve',
      'Approving a request through `approval` without the approve permission on its signer is refused (403); with approve on `<domain>/*` it succeeds',
      APPROVAL,
      'MUST',
    ),
    async (t) => {
      const user = uniqueName('plugin-approver');
      const as = actingAs(t.client, { user });
      const undo: (() => Promise<void>)[] = [
        await grant(t.client, { kind: 'User', name: user }, CSR_RULES('approval')),
      ];
      const csr = await newCsr(t.client, 'conformance.example.com/approval');
      try {
        checkStatus(csr.r, 201, undefined, 'setup: the request');
        const refused = await settle(
          () => as.put(`${CSRS}/${csr.name}/approval`, approved(csr.r.json)),
          (r) => r.status === 403 && String(r.statusObj?.message).includes('approve'),
        );
        checkStatus(
          refused,
          403,
          'Forbidden',
          'update on certificatesigningrequests/approval alone is not enough',
        );
        const want = `user not permitted to approve requests with signerName "conformance.example.com/approval"`;
        check(
          String(refused.statusObj?.message).endsWith(want),
          `a message ending ${show(want)} (Kubernetes 1.28)`,
          show(refused.statusObj?.message),
        );
        undo.push(
          await grant(t.client, { kind: 'User', name: user }, [
            {
              apiGroups: ['certificates.orch.io'],
              resources: ['signers'],
              verbs: ['approve'],
              resourceNames: ['conformance.example.com/*'],
            },
          ]),
        );
        const ok = await settle(
          () => as.put(`${CSRS}/${csr.name}/approval`, approved(csr.r.json)),
          (r) => r.status === 200,
        );
        checkStatus(ok, 200, undefined, 'approve on the signer domain wildcard');
      } finally {
        await csr.remove();
        for (const u of undo) await u();
      }
    },
    { needs: { admissionPlugins: ['CertificateApproval'] } },
  );

  conformance(
    def(
      'approval-exact-signer',
      'The approve permission may name the signer exactly; a permission for another signer does not count',
      APPROVAL,
      'BEYOND',
    ),
    async (t) => {
      const user = uniqueName('plugin-approver');
      const as = actingAs(t.client, { user });
      const undo = [
        await grant(t.client, { kind: 'User', name: user }, CSR_RULES('approval')),
        await grant(t.client, { kind: 'User', name: user }, [
          {
            apiGroups: ['certificates.orch.io'],
            resources: ['signers'],
            verbs: ['approve'],
            resourceNames: ['conformance.example.com/exact'],
          },
        ]),
      ];
      const mine = await newCsr(t.client, 'conformance.example.com/exact');
      const other = await newCsr(t.client, 'conformance.example.com/other');
      try {
        const ok = await settle(
          () => as.put(`${CSRS}/${mine.name}/approval`, approved(mine.r.json)),
          (r) => r.status === 200,
        );
        checkStatus(ok, 200, undefined, 'approve on the exact signer name');
        const refused = await as.put(`${CSRS}/${other.name}/approval`, approved(other.r.json));
        checkStatus(refused, 403, 'Forbidden', 'no approve permission for this signer');
      } finally {
        await mine.remove();
        await other.remove();
        for (const u of undo) await u();
      }
    },
    { needs: { admissionPlugins: ['CertificateApproval'] } },
  );

  conformance(
    def(
      'signing-needs-sign',
      'Setting `status.certificate` without the sign permission on the signer is refused (403); with sign it succeeds',
      SIGNING,
      'MUST',
    ),
    async (t) => {
      const user = uniqueName('plugin-signer');
      const as = actingAs(t.client, { user });
      const undo: (() => Promise<void>)[] = [
        await grant(t.client, { kind: 'User', name: user }, CSR_RULES('status')),
      ];
      const csr = await newCsr(t.client, 'conformance.example.com/signing');
      try {
        const a = await t.client.put(`${CSRS}/${csr.name}/approval`, approved(csr.r.json));
        checkStatus(a, 200, undefined, "setup: approved by the run's credentials");
        const { cert } = await makeCa('conformance-issued');
        const withCert = { ...a.json, status: { ...a.json.status, certificate: b64(cert) } };
        const refused = await settle(
          () => as.put(`${CSRS}/${csr.name}/status`, withCert),
          (r) => r.status === 403 && String(r.statusObj?.message).includes('sign'),
        );
        checkStatus(refused, 403, 'Forbidden', 'setting the certificate needs sign');
        const want = 'user not permitted to sign requests with signerName "conformance.example.com/signing"';
        check(
          String(refused.statusObj?.message).endsWith(want),
          `a message ending ${show(want)} (Kubernetes 1.28)`,
          show(refused.statusObj?.message),
        );
        undo.push(
          await grant(t.client, { kind: 'User', name: user }, [
            {
              apiGroups: ['certificates.orch.io'],
              resources: ['signers'],
              verbs: ['sign'],
              resourceNames: ['conformance.example.com/signing'],
            },
          ]),
        );
        const ok = await settle(
          () => as.put(`${CSRS}/${csr.name}/status`, withCert),
          (r) => r.status === 200,
        );
        checkStatus(ok, 200, undefined, 'sign on the signer');
      } finally {
        await csr.remove();
        for (const u of undo) await u();
      }
    },
    { needs: { admissionPlugins: ['CertificateSigning'] } },
  );

  conformance(
    def(
      'signing-certificate-only',
      'A status write that leaves `status.certificate` alone (it adds a condition) is not checked: it needs no sign permission',
      SIGNING,
      'MUST',
    ),
    async (t) => {
      const user = uniqueName('plugin-signer');
      const as = actingAs(t.client, { user });
      const undo = [await grant(t.client, { kind: 'User', name: user }, CSR_RULES('status'))];
      const csr = await newCsr(t.client, 'conformance.example.com/signing');
      try {
        const a = await t.client.put(`${CSRS}/${csr.name}/approval`, approved(csr.r.json));
        checkStatus(a, 200, undefined, "setup: approved by the run's credentials");
        const cond = {
          ...a.json,
          status: {
            ...a.json.status,
            conditions: [
              ...a.json.status.conditions,
              { type: 'Progressing', status: 'True', reason: 'R', message: 'm' },
            ],
          },
        };
        const noCert = await settle(
          () => as.put(`${CSRS}/${csr.name}/status`, cond),
          (r) => r.status === 200,
        );
        checkStatus(noCert, 200, undefined, 'a status write without a certificate needs no sign permission');
      } finally {
        await csr.remove();
        for (const u of undo) await u();
      }
    },
    { needs: { admissionPlugins: ['CertificateSigning'] } },
  );

  conformance(
    def(
      'subject-system-masters',
      'A request to the client signer whose subject has the organization (group) system:masters is refused (403)',
      SUBJECT,
      'MUST',
    ),
    async (t) => {
      const csr = await newCsr(t.client, CLIENT_SIGNER, ['system:masters']);
      try {
        checkStatus(csr.r, 403, 'Forbidden');
        const want = `use of ${CLIENT_SIGNER} signer with system:masters group is not allowed`;
        check(
          String(csr.r.statusObj?.message).endsWith(want),
          `a message ending ${show(want)} (Kubernetes 1.28)`,
          show(csr.r.statusObj?.message),
        );
      } finally {
        if (csr.r.status < 300) await csr.remove();
      }
    },
    { needs: { admissionPlugins: ['CertificateSubjectRestriction'] } },
  );

  conformance(
    def(
      'subject-other-groups',
      'Other groups with the client signer, and system:masters with another signer, are admitted',
      SUBJECT,
      'MUST',
    ),
    async (t) => {
      const devs = await newCsr(t.client, CLIENT_SIGNER, ['conformance-devs']);
      const other = await newCsr(t.client, 'conformance.example.com/any', ['system:masters']);
      try {
        checkStatus(devs.r, 201, undefined, 'client signer, another group');
        checkStatus(other.r, 201, undefined, 'system:masters, another signer');
      } finally {
        await devs.remove();
        await other.remove();
      }
    },
    { needs: { admissionPlugins: ['CertificateSubjectRestriction'] } },
  );
});
