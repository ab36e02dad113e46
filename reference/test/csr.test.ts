// CertificateSigningRequest (certificates.orch.io/v1; doc3 "Certificate signing request",
// doc2 "Versioning"; Kubernetes 1.28 where they are silent): validation of the request, the
// requester filled in by the server, an immutable spec, approval conditions only through
// `approval`, the certificate only through `status` and only once approved; the
// orch.io/kube-apiserver-client signer issuing from the cluster signing CA; and real kubectl
// creating, approving and using a certificate.
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../src/cli.ts';
import { build } from '../src/index.ts';
import { csrPem, type Issued, keyPem, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-csr-'));
const PATH = '/apis/certificates.orch.io/v1/certificatesigningrequests';
const SIGNER = 'orch.io/kube-apiserver-client';
let ts: TestServer;
let ca: Issued;

beforeAll(async () => {
  ca = await makeCa('cluster-ca');
  writeFileSync(join(dir, 'ca.crt'), ca.certPem);
  writeFileSync(join(dir, 'ca.key'), ca.keyPem);
  ts = await startServer({
    tls: true,
    auditInMemory: 300,
    clientCaFile: join(dir, 'ca.crt'),
    clusterSigningCertFile: join(dir, 'ca.crt'),
    clusterSigningKeyFile: join(dir, 'ca.key'),
  });
});
afterAll(async () => {
  await ts?.close();
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

function csr(name: string, request: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'certificates.orch.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(request), signerName: SIGNER, usages: ['client auth'], ...spec },
  };
}

async function waitFor<T>(what: string, f: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const approve = async (name: string, type = 'Approved') => {
  const cur = (await ts.req('GET', `${PATH}/${name}`)).json;
  cur.status.conditions = [
    ...(cur.status.conditions ?? []),
    { type, status: 'True', reason: 'TestApprove', message: 'approved by test' },
  ];
  return ts.req('PUT', `${PATH}/${name}/approval`, cur);
};

describe('create and validation', () => {
  it('the server sets the requester (user, groups) and an empty status; the body cannot claim another user', async () => {
    const { pem } = await csrPem('CN=alice');
    const body = csr('c-create', pem, { username: 'mallory', groups: ['system:masters'], uid: 'x' });
    const r = await ts.req('POST', PATH, body);
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.username).toBe('orch-admin');
    expect(r.json.spec.uid).toBe('orch-admin');
    expect(r.json.spec.groups).toEqual(['system:masters', 'system:authenticated']);
    expect(r.json.status).toEqual({});
    expect(Buffer.from(r.json.spec.request, 'base64').toString()).toBe(pem);
  });

  const invalid: [string, () => Promise<Record<string, unknown>>, string, string][] = [
    [
      'a CERTIFICATE block as the request',
      async () => ({ request: b64(ca.certPem) }),
      'spec.request',
      'PEM block type must be CERTIFICATE REQUEST',
    ],
    [
      'a request whose signature does not verify',
      async () => {
        const { pem } = await csrPem('CN=alice');
        const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
        der[der.length - 5]! ^= 0xff;
        const bad = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
        return { request: b64(bad) };
      },
      'spec.request',
      '',
    ],
    ['no signer name', async () => ({ signerName: '' }), 'spec.signerName', 'Required value'],
    [
      'a signer name that is not a qualified domain and path',
      async () => ({ signerName: 'signer' }),
      'spec.signerName',
      'fully qualified domain and path',
    ],
    [
      'the legacy unknown signer',
      async () => ({ signerName: 'orch.io/legacy-unknown' }),
      'spec.signerName',
      'the legacy signerName is not allowed via this API version',
    ],
    [
      'expirationSeconds under 600',
      async () => ({ expirationSeconds: 599 }),
      'spec.expirationSeconds',
      'may not specify a duration less than 600 seconds (10 minutes)',
    ],
    ['no usages', async () => ({ usages: [] }), 'spec.usages', 'Required value'],
    [
      'an unknown usage',
      async () => ({ usages: ['client auth', 'flying'] }),
      'spec.usages[1]',
      'Unsupported value: "flying"',
    ],
    [
      'a repeated usage',
      async () => ({ usages: ['client auth', 'client auth'] }),
      'spec.usages[1]',
      'Duplicate value',
    ],
  ];
  it.each(invalid)('%s: 422 Invalid naming the field', async (_what, spec, field, message) => {
    const { pem } = await csrPem('CN=alice');
    const r = await ts.req('POST', PATH, csr(uniqueName('bad'), pem, await spec()));
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    const cause = r.json.details.causes.find((c: { field: string }) => c.field === field);
    expect(cause, r.text).toBeDefined();
    expect(cause.message).toContain(message);
  });

  it('expirationSeconds of 600 is accepted; request that is not base64 is a 400', async () => {
    const { pem } = await csrPem('CN=alice');
    expect((await ts.req('POST', PATH, csr(uniqueName('ok'), pem, { expirationSeconds: 600 }))).status).toBe(
      201,
    );
    const bad = csr(uniqueName('b64'), pem);
    bad.spec.request = '***';
    const r = await ts.req('POST', PATH, bad);
    expect(r.status).toBe(400);
    expect(r.json.reason).toBe('BadRequest');
  });
});

describe('updates, approval and status', () => {
  it('an update of the resource changes neither spec nor status', async () => {
    const { pem } = await csrPem('CN=alice');
    const name = uniqueName('imm');
    const created = (await ts.req('POST', PATH, csr(name, pem, { signerName: 'example.com/other' }))).json;
    created.spec.signerName = 'example.com/changed';
    created.spec.username = 'mallory';
    created.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    created.metadata.labels = { a: 'b' };
    const r = await ts.req('PUT', `${PATH}/${name}`, created);
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.signerName).toBe('example.com/other');
    expect(r.json.spec.username).toBe('orch-admin');
    expect(r.json.status).toEqual({});
    expect(r.json.metadata.labels).toEqual({ a: 'b' });
  });

  it('approval conditions cannot be added through status, nor a certificate set before approval', async () => {
    const { pem } = await csrPem('CN=alice');
    const name = uniqueName('st');
    const cur = (await ts.req('POST', PATH, csr(name, pem, { signerName: 'example.com/other' }))).json;
    const added = structuredClone(cur);
    added.status.conditions = [{ type: 'Approved', status: 'True', reason: 'R' }];
    const r = await ts.req('PUT', `${PATH}/${name}/status`, added);
    expect(r.status).toBe(422);
    expect(r.text).toContain('updates may not add a condition of type \\"Approved\\"');
    const cert = structuredClone(cur);
    cert.status.certificate = b64(ca.certPem);
    const c = await ts.req('PUT', `${PATH}/${name}/status`, cert);
    expect(c.status).toBe(422);
    expect(c.json.details.causes[0].field).toBe('status.certificate');
  });

  it('approval sets the condition with times; Approved and Denied together are refused; a condition cannot be removed', async () => {
    const { pem } = await csrPem('CN=alice');
    const name = uniqueName('ap');
    await ts.req('POST', PATH, csr(name, pem, { signerName: 'example.com/other' }));
    const r = await approve(name);
    expect(r.status, r.text).toBe(200);
    const [cond] = r.json.status.conditions;
    expect(cond).toMatchObject({ type: 'Approved', status: 'True', reason: 'TestApprove' });
    expect(cond.lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cond.lastTransitionTime).toMatch(/Z$/);
    const both = await approve(name, 'Denied');
    expect(both.status).toBe(422);
    expect(both.text).toContain('Approved and Denied conditions are mutually exclusive');
    const cur = (await ts.req('GET', `${PATH}/${name}`)).json;
    cur.status.conditions = [];
    const removed = await ts.req('PUT', `${PATH}/${name}/approval`, cur);
    expect(removed.status).toBe(422);
    expect(removed.text).toContain('updates may not remove a condition of type \\"Approved\\"');
    // once approved, a signer may set the certificate through status (this signer name has none here)
    const withCert = (await ts.req('GET', `${PATH}/${name}`)).json;
    withCert.status.certificate = b64(ca.certPem);
    const set = await ts.req('PUT', `${PATH}/${name}/status`, withCert);
    expect(set.status, set.text).toBe(200);
    const again = set.json;
    again.status.certificate = b64(ca.certPem + ca.certPem);
    expect((await ts.req('PUT', `${PATH}/${name}/status`, again)).status).toBe(422);
  });

  it('the RequestedDuration column prints expirationSeconds as kubectl prints durations; spec.signerName selects', async () => {
    const cases: [number, string][] = [
      [600, '10m'],
      [7200, '120m'],
      [19800, '5h30m'],
      [30000, '8h'],
      [90000, '25h'],
      [277200, '3d5h'],
      [864000, '10d'],
      [(3 * 365 + 10) * 86400, '3y10d'],
    ];
    const signer = `example.com/${uniqueName('dur')}`;
    for (const [seconds] of cases) {
      const { pem } = await csrPem('CN=d');
      expect(
        (
          await ts.req(
            'POST',
            PATH,
            csr(`dur-${seconds}-${signer.slice(12)}`, pem, {
              signerName: signer,
              expirationSeconds: seconds,
            }),
          )
        ).status,
      ).toBe(201);
    }
    const table = await ts.req(
      'GET',
      `${PATH}?fieldSelector=spec.signerName%3D${encodeURIComponent(signer)}`,
      undefined,
      {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      },
    );
    expect(table.status, table.text).toBe(200);
    const got = new Map(table.json.rows.map((r: { cells: string[] }) => [r.cells[0], r.cells[4]]));
    expect(got.size).toBe(cases.length);
    for (const [seconds, want] of cases) expect(got.get(`dur-${seconds}-${signer.slice(12)}`)).toBe(want);
  });

  it('discovery lists the resource with approval and status subresources as 1.28 does', async () => {
    const facts = JSON.parse(readFileSync('/work/shared/kubernetes-1.28/discovery.json', 'utf8')).resources[
      'certificates.k8s.io/v1'
    ];
    const r = await ts.req('GET', '/apis/certificates.orch.io/v1');
    expect(r.status).toBe(200);
    for (const f of facts as {
      name: string;
      verbs: string[];
      namespaced: boolean;
      shortNames?: string[];
    }[]) {
      const mine = r.json.resources.find((x: { name: string }) => x.name === f.name);
      expect(mine, f.name).toBeDefined();
      expect([...mine.verbs].sort()).toEqual([...f.verbs].sort());
      expect(mine.namespaced).toBe(f.namespaced);
      if (f.shortNames) expect(mine.shortNames).toEqual(f.shortNames);
    }
  });
});

describe("under Kubernetes' group name too", () => {
  const K8S = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
  it('discovery lists certificates.k8s.io just before certificates.orch.io (a client resolving csr picks it)', async () => {
    const names = (await ts.req('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    expect(names.indexOf('certificates.k8s.io')).toBe(names.indexOf('certificates.orch.io') - 1);
    const list = (await ts.req('GET', '/apis/certificates.k8s.io/v1')).json;
    expect(list.resources.map((r: { name: string }) => r.name).sort()).toEqual([
      'certificatesigningrequests',
      'certificatesigningrequests/approval',
      'certificatesigningrequests/status',
    ]);
  });

  it('the same objects, each answer in the group the request named; writes through either land in one store', async () => {
    const { pem } = await csrPem('CN=twin');
    const name = uniqueName('twin');
    const made = await ts.req('POST', K8S, { ...csr(name, pem), apiVersion: 'certificates.k8s.io/v1' });
    expect(made.status, made.text).toBe(201);
    expect(made.json.apiVersion).toBe('certificates.k8s.io/v1');
    expect(made.json.metadata.managedFields.map((m: { apiVersion: string }) => m.apiVersion)).toEqual([
      'certificates.k8s.io/v1',
    ]);
    const own = (await ts.req('GET', `${PATH}/${name}`)).json;
    expect(own.apiVersion).toBe('certificates.orch.io/v1');
    expect(own.metadata.managedFields.map((m: { apiVersion: string }) => m.apiVersion)).toEqual([
      'certificates.orch.io/v1',
    ]);
    expect(own.metadata.uid).toBe(made.json.metadata.uid);
    // the body must name the group of the path it is sent to
    const wrong = await ts.req('POST', K8S, csr(uniqueName('twin'), pem));
    expect(wrong.status, wrong.text).toBe(400);
    expect((await approve(name)).status).toBe(200);
    const seen = (await ts.req('GET', `${K8S}/${name}`)).json;
    expect(seen.apiVersion).toBe('certificates.k8s.io/v1');
    expect(seen.status.conditions.map((c: { type: string }) => c.type)).toEqual(['Approved']);
  });
});

describe('the kube-apiserver-client signer', () => {
  it('an approved request gets a certificate from the signing CA with the requested subject and duration', async () => {
    // (system:masters is refused for this signer: the CertificateSubjectRestriction plugin)
    const { pem } = await csrPem('CN=signed-user, O=ops, O=team');
    const name = uniqueName('sign');
    expect(
      (
        await ts.req(
          'POST',
          PATH,
          csr(name, pem, { expirationSeconds: 3600, usages: ['client auth', 'digital signature'] }),
        )
      ).status,
    ).toBe(201);
    // not approved: nothing issued
    await new Promise((r) => setTimeout(r, 200));
    expect((await ts.req('GET', `${PATH}/${name}`)).json.status.certificate).toBeUndefined();
    expect((await approve(name)).status).toBe(200);
    const certB64 = await waitFor(
      'the certificate',
      async () => (await ts.req('GET', `${PATH}/${name}`)).json.status?.certificate,
    );
    const certPem = Buffer.from(certB64, 'base64').toString();
    const cert = new X509Certificate(certPem);
    expect(cert.subject.split('\n')).toEqual(['CN=signed-user', 'O=ops', 'O=team']);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    const span = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    expect(span).toBeLessThanOrEqual(3600 * 1000);
    expect(span).toBeGreaterThan(3500 * 1000);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    const table = await ts.req('GET', `${PATH}/${name}`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(table.json.rows[0].cells.slice(2)).toEqual([SIGNER, 'orch-admin', '60m', 'Approved,Issued']);
  });

  it("usages that are not a client certificate's make the request Failed (SignerValidationFailure)", async () => {
    const { pem } = await csrPem('CN=server-ish');
    const name = uniqueName('fail');
    await ts.req('POST', PATH, csr(name, pem, { usages: ['client auth', 'server auth'] }));
    await approve(name);
    const failed = await waitFor('the Failed condition', async () => {
      const o = (await ts.req('GET', `${PATH}/${name}`)).json;
      return o.status.conditions?.find((c: { type: string }) => c.type === 'Failed');
    });
    expect(failed).toMatchObject({
      status: 'True',
      reason: 'SignerValidationFailure',
      message: 'invalid usage for client certificate: server auth',
    });
    expect((await ts.req('GET', `${PATH}/${name}`)).json.status.certificate).toBeUndefined();
  });

  it('a denied request gets no certificate', async () => {
    const { pem } = await csrPem('CN=denied');
    const name = uniqueName('deny');
    await ts.req('POST', PATH, csr(name, pem));
    expect((await approve(name, 'Denied')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await ts.req('GET', `${PATH}/${name}`)).json.status.certificate).toBeUndefined();
  });

  it('signing flags: both or neither; a key of another certificate stops the server', async () => {
    expect(() => parseServeArgs(['--cluster-signing-cert-file', 'a.crt'])).toThrow(/both or neither/);
    const other = await makeCa('other');
    writeFileSync(join(dir, 'other.key'), other.keyPem);
    await expect(
      build({
        inMemory: true,
        clusterSigningCertFile: join(dir, 'ca.crt'),
        clusterSigningKeyFile: join(dir, 'other.key'),
      }),
    ).rejects.toThrow(/--cluster-signing-key-file: .*other\.key: the key does not belong to the certificate/);
  });
});

describe('kubectl: request, approve, use', () => {
  const bin = findKubectl();
  it('create a request, approve it, read the certificate, then authenticate with it', async () => {
    expect(kubectlMissing(bin), kubectlMissing(bin)).toBeUndefined();
    const kdir = mkdtempSync(join(dir, 'kubectl-'));
    const kubeconfig = (user: Record<string, string>) => {
      const p = join(kdir, `kubeconfig-${Object.keys(user)[0]}`);
      writeFileSync(
        p,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [
            { name: 'c', cluster: { server: ts.url, 'certificate-authority-data': b64(ts.server.caPem!) } },
          ],
          users: [{ name: 'u', user }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
      return p;
    };
    const run = (config: string, ...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          bin!,
          ['--kubeconfig', config, '--cache-dir', join(kdir, 'cache'), '--request-timeout', '20s', ...args],
          { env: { ...process.env, HOME: kdir }, timeout: 60_000 },
          (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const admin = kubeconfig({ token: ts.token });
    // the group may read namespaces (system:masters is refused for this signer)
    const bound = await ts.req('POST', '/apis/rbac.authorization.orch.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: uniqueName('kc-readers') },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.orch.io', kind: 'Group', name: 'kubectl-readers' }],
    });
    expect(bound.status, bound.text).toBe(201);
    const { pem, keys } = await csrPem('CN=kubectl-user, O=kubectl-readers');
    const name = uniqueName('kc');
    const manifest = join(kdir, 'csr.json');
    writeFileSync(manifest, JSON.stringify(csr(name, pem, { expirationSeconds: 86400 })));
    const created = await run(admin, 'create', '-f', manifest);
    expect(created.code, created.stderr).toBe(0);
    const pending = await run(admin, 'get', 'csr', name);
    expect(pending.stdout).toContain('Pending');
    // kubectl finds the request through discovery and writes the Approved condition to the
    // approval subresource under Kubernetes' group name (the only one it accepts)
    const approved = await run(admin, 'certificate', 'approve', name);
    expect(approved.stdout).toContain(`certificatesigningrequest.certificates.k8s.io/${name} approved`);
    expect(approved.code, approved.stderr).toBe(0);
    const listed = await run(admin, 'get', 'csr', name);
    expect(listed.stdout).toMatch(/Approved/);
    const certB64 = await waitFor(
      'the certificate',
      async () => {
        const r = await run(admin, 'get', 'csr', name, '-o', 'jsonpath={.status.certificate}');
        return r.code === 0 && r.stdout ? r.stdout : undefined;
      },
      20_000,
    );
    const certPem = Buffer.from(certB64, 'base64').toString();
    const asUser = kubeconfig({
      'client-certificate-data': b64(certPem),
      'client-key-data': b64(await keyPem(keys.privateKey)),
    });
    const got = await run(asUser, 'get', 'namespaces', '-o', 'name');
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain('namespace/default');
    const who = ts.server.audit!.events.filter((e) => e.user?.username === 'kubectl-user').at(-1);
    expect(who?.user.groups).toEqual(['kubectl-readers', 'system:authenticated']);
  }, 120_000);
});
