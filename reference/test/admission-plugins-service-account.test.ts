// The ServiceAccount admission plugin (default-enabled) and the serviceaccount controller, as
// Kubernetes 1.28: every namespace gets a `default` account; a pod gets it when it names none,
// is refused when its account does not exist, gets the projected token volume mounted in every
// container unless automounting is off, inherits the account's image pull secrets, and, for an
// account that enforces mountable secrets, may only use the secrets the account lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const MOUNT = '/var/run/secrets/orch.io/serviceaccount';

function pod(name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...meta },
    spec: { containers: [{ name: 'c', image: 'registry.example/app:1.0' }], ...spec },
  };
}

describe('ServiceAccount', () => {
  let s: TestServer;
  let ns: string;
  const create = (body: unknown, n = ns) => s.req('POST', `/api/v1/namespaces/${n}/pods`, body);
  const account = async (name: string, extra: Record<string, unknown> = {}) => {
    const { metadata, ...rest } = extra as { metadata?: Record<string, unknown> };
    const r = await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, ...metadata },
      ...rest,
    });
    expect(r.status, r.text).toBe(201);
  };
  beforeAll(async () => {
    s = await startServer();
    ns = uniqueName('sa');
    expect(
      (
        await s.req('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(() => s.close());

  it('the controller gives every namespace, the system ones too, a default account, and makes it again when deleted', async () => {
    for (const n of [ns, 'default', 'orch-system']) {
      const r = await s.req('GET', `/api/v1/namespaces/${n}/serviceaccounts/default`);
      expect(r.status, `${n}: ${r.text}`).toBe(200);
    }
    const uid = (await s.req('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).json.metadata.uid;
    expect((await s.req('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200);
    let again: any;
    for (let i = 0; i < 50; i++) {
      again = await s.req('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      if (again.status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again.status).toBe(200);
    expect(again.json.metadata.uid).not.toBe(uid);
  });

  it('a pod without an account runs as default, with the token volume mounted read-only in every container', async () => {
    const r = await create(
      pod('p', {
        initContainers: [{ name: 'i', image: 'registry.example/init:1' }],
        containers: [
          { name: 'a', image: 'registry.example/app:1.0' },
          { name: 'b', image: 'registry.example/app:1.0' },
        ],
      }),
    );
    expect(r.status, r.text).toBe(201);
    const spec = r.json.spec;
    expect(spec.serviceAccountName).toBe('default');
    const vols = spec.volumes.filter((v: { name: string }) => v.name.startsWith('orch-api-access-'));
    expect(vols).toHaveLength(1);
    expect(vols[0].name).toMatch(/^orch-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(vols[0].projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    });
    for (const c of [...spec.initContainers, ...spec.containers])
      expect(c.volumeMounts).toEqual([{ name: vols[0].name, readOnly: true, mountPath: MOUNT }]);
  });

  it('a container that already mounts something at the token path keeps it; automount false on the pod or the account mounts nothing', async () => {
    const own = await create(
      pod('own-mount', {
        volumes: [{ name: 'mine', emptyDir: {} }],
        containers: [
          {
            name: 'c',
            image: 'registry.example/app:1.0',
            volumeMounts: [{ name: 'mine', mountPath: MOUNT }],
          },
        ],
      }),
    );
    expect(own.status, own.text).toBe(201);
    expect(own.json.spec.volumes).toEqual([{ name: 'mine', emptyDir: {} }]);
    const off = await create(pod('pod-off', { automountServiceAccountToken: false }));
    expect(off.json.spec.volumes).toBeUndefined();
    await account('quiet', { automountServiceAccountToken: false });
    const quiet = await create(pod('sa-off', { serviceAccountName: 'quiet' }));
    expect(quiet.status, quiet.text).toBe(201);
    expect(quiet.json.spec.volumes).toBeUndefined();
    // the pod's own choice wins over the account's
    const on = await create(
      pod('pod-on', { serviceAccountName: 'quiet', automountServiceAccountToken: true }),
    );
    expect(on.json.spec.volumes).toHaveLength(1);
  });

  it('a pod naming an account that does not exist is refused with 403', async () => {
    const r = await create(pod('orphan', { serviceAccountName: 'nobody' }));
    expect(r.status, r.text).toBe(403);
    expect(r.json.reason).toBe('Forbidden');
    expect(r.json.message).toBe(
      `pods "orphan" is forbidden: error looking up service account ${ns}/nobody: serviceaccount "nobody" not found`,
    );
    expect((await s.req('GET', `/api/v1/namespaces/${ns}/pods/orphan`)).status).toBe(404);
  });

  it("a pod without image pull secrets gets the account's", async () => {
    await account('puller', { imagePullSecrets: [{ name: 'registry-a' }, { name: 'registry-b' }] });
    const r = await create(pod('pull', { serviceAccountName: 'puller' }));
    expect(r.json.spec.imagePullSecrets).toEqual([{ name: 'registry-a' }, { name: 'registry-b' }]);
    const own = await create(
      pod('pull-own', { serviceAccountName: 'puller', imagePullSecrets: [{ name: 'mine' }] }),
    );
    expect(own.json.spec.imagePullSecrets).toEqual([{ name: 'mine' }]);
  });

  it('an account enforcing mountable secrets limits secret volumes, env secrets and pull secrets to those it lists', async () => {
    await account('strict', {
      metadata: { annotations: { 'orch.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'listed' }],
      imagePullSecrets: [{ name: 'pull-listed' }],
    });
    const base = { serviceAccountName: 'strict', automountServiceAccountToken: false };
    const ok = await create(
      pod('ok', { ...base, volumes: [{ name: 's', secret: { secretName: 'listed' } }] }),
    );
    expect(ok.status, ok.text).toBe(201);
    const vol = await create(
      pod('vol', { ...base, volumes: [{ name: 's', secret: { secretName: 'other' } }] }),
    );
    expect(vol.status, vol.text).toBe(403);
    expect(vol.json.message).toBe(
      'pods "vol" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    const envRef = await create(
      pod('env', {
        ...base,
        containers: [
          {
            name: 'c',
            image: 'registry.example/app:1.0',
            env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }],
          },
        ],
      }),
    );
    expect(envRef.status).toBe(403);
    expect(envRef.json.message).toContain(
      'container c with envVar PW referencing secret.secretName="other" is not allowed',
    );
    const pull = await create(pod('pull', { ...base, imagePullSecrets: [{ name: 'nope' }] }));
    expect(pull.status).toBe(403);
    expect(pull.json.message).toContain('spec.imagePullSecrets[0].name="nope" is not allowed');
    // without the annotation nothing is limited
    await account('lax', { secrets: [{ name: 'listed' }] });
    expect(
      (
        await create(
          pod('lax', {
            serviceAccountName: 'lax',
            volumes: [{ name: 's', secret: { secretName: 'other' } }],
          }),
        )
      ).status,
    ).toBe(201);
  });

  it('a mirror pod is not given a volume and may not reference secrets', async () => {
    const mirror = { annotations: { 'orch.io/config.mirror': 'hash' } };
    const r = await create(pod('mirror', {}, mirror));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.volumes).toBeUndefined();
    const sec = await create(
      pod('mirror-secret', { volumes: [{ name: 's', secret: { secretName: 'x' } }] }, mirror),
    );
    expect(sec.status).toBe(403);
    expect(sec.json.message).toBe(
      'pods "mirror-secret" is forbidden: a mirror pod may not reference secrets',
    );
    const named = await create(pod('mirror-sa', { serviceAccountName: 'quiet' }, mirror));
    expect(named.status).toBe(403);
    expect(named.json.message).toBe(
      'pods "mirror-sa" is forbidden: a mirror pod may not reference service accounts',
    );
  });

  it('a pod created right after its namespace finds the default account', async () => {
    const n = uniqueName('fresh');
    expect(
      (
        await s.req('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: n },
        })
      ).status,
    ).toBe(201);
    const r = await create(pod('first'), n);
    expect(r.status, r.text).toBe(201);
  });

  it('without the controller and the plugin nothing is defaulted beyond the pod strategy', async () => {
    const bare = await startServer({
      controllers: ['*', '-serviceaccount'],
      disableAdmissionPlugins: ['ServiceAccount'],
    });
    try {
      expect((await bare.req('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status).toBe(404);
      const r = await bare.req('POST', '/api/v1/namespaces/default/pods', pod('p'));
      expect(r.status, r.text).toBe(201);
      expect(r.json.spec.volumes).toBeUndefined();
    } finally {
      await bare.close();
    }
  });
});
