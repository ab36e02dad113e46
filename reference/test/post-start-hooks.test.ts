// The post-start hooks a server lists in its health checks, and the two API server controllers
// behind the last of them: every check Kubernetes' e2e "health handlers should contain necessary
// checks" requires of /healthz, /livez and /readyz is listed and passing, each in the order a
// 1.28 server lists it (../shared/kubernetes-1.28/health-readyz-verbose.txt); the ConfigMap
// `extension-apiserver-authentication` holds what the server trusts, merged with what another
// server wrote, written again when deleted, and is not made when there is nothing to say.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTHENTICATION_INFO_NAME,
  AUTHENTICATION_INFO_NAMESPACE,
  authenticationData,
} from '../src/controllers/authentication-info.ts';
import { makeCa } from './cert-helpers.ts';
import { scratchDir, startServer, type TestServer } from './helpers.ts';
import { FACTS_DIR } from './k8s-facts.ts';

/** The checks Kubernetes' e2e test requires of each of /healthz and /livez (readyz: these and informer-sync). */
const E2E_REQUIRED = [
  'ping',
  'log',
  'etcd',
  'poststarthook/start-kube-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/bootstrap-controller',
  'poststarthook/start-system-namespaces-controller',
  'poststarthook/start-service-ip-repair-controllers',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
  'poststarthook/start-cluster-authentication-info-controller',
  'poststarthook/start-kube-aggregator-informers',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/apiservice-status-available-controller',
  'poststarthook/kube-apiserver-autoregistration',
  'autoregister-completion',
  'poststarthook/apiservice-openapi-controller',
];

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer({ dialect: 'kubernetes' });
});
afterAll(() => ts?.close());

const checks = (text: string) => text.split('\n').filter((l) => l.startsWith('[+]') || l.startsWith('[-]'));

describe('post-start hooks', () => {
  it.each(['/healthz', '/livez', '/readyz'])(
    '%s?verbose lists every check the e2e test requires, passing',
    async (path) => {
      const r = await ts.req('GET', `${path}?verbose`);
      expect(r.status, r.text).toBe(200);
      const want = [...E2E_REQUIRED, ...(path === '/readyz' ? ['informer-sync'] : [])].map(
        (c) => `[+]${c} ok`,
      );
      expect(want.filter((c) => !checks(r.text).includes(c))).toEqual([]);
    },
  );

  it('lists only checks a 1.28 server lists, in its order', async () => {
    const real = checks(readFileSync(join(FACTS_DIR, 'health-readyz-verbose.txt'), 'utf8'));
    const ours = checks((await ts.req('GET', '/readyz?verbose')).text);
    expect(ours.filter((c) => !real.includes(c))).toEqual([]);
    const at = ours.map((c) => real.indexOf(c));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});

describe('extension-apiserver-authentication', () => {
  const path = `/api/v1/namespaces/kube-system/configmaps/${AUTHENTICATION_INFO_NAME}`;

  it('is not made when the server trusts no client CA nor proxy', async () => {
    expect(AUTHENTICATION_INFO_NAMESPACE).toBe('orch-system');
    expect((await ts.req('GET', path)).status).toBe(404);
  });

  it("holds the server's client CA and proxy settings, made again when deleted", async () => {
    const dir = scratchDir('orch-auth-info-');
    const [client, proxy] = [await makeCa('client-ca'), await makeCa('proxy-ca')];
    writeFileSync(join(dir, 'client.pem'), client.certPem);
    writeFileSync(join(dir, 'proxy.pem'), proxy.certPem);
    const s = await startServer({
      dialect: 'kubernetes',
      tls: true,
      clientCaFile: join(dir, 'client.pem'),
      requestheaderClientCaFile: join(dir, 'proxy.pem'),
      requestheaderUsernameHeaders: ['X-Remote-User'],
      requestheaderGroupHeaders: ['X-Remote-Group'],
      requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
      requestheaderAllowedNames: ['front-proxy-client'],
    });
    try {
      const r = await s.req('GET', path);
      expect(r.status).toBe(200);
      expect(r.json.data).toEqual({
        'client-ca-file': `${client.certPem.trim()}\n`,
        'requestheader-client-ca-file': `${proxy.certPem.trim()}\n`,
        'requestheader-username-headers': '["X-Remote-User"]',
        'requestheader-group-headers': '["X-Remote-Group"]',
        'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
        'requestheader-allowed-names': '["front-proxy-client"]',
      });
      expect((await s.req('DELETE', path)).status).toBe(200);
      let again = await s.req('GET', path);
      for (let i = 0; i < 100 && again.status !== 200; i++) {
        await new Promise((res) => setTimeout(res, 20));
        again = await s.req('GET', path);
      }
      expect(again.json.data).toEqual(r.json.data);
    } finally {
      await s.close();
    }
  });

  it("merges another server's: certificates and names are unions", async () => {
    const [a, b] = [await makeCa('a'), await makeCa('b')];
    const theirs = authenticationData(
      {},
      {
        clientCa: a.certPem,
        requestHeader: {
          ca: a.certPem,
          usernameHeaders: ['X-User'],
          groupHeaders: [],
          extraHeaderPrefixes: [],
          allowedNames: ['one'],
        },
      },
    );
    const merged = authenticationData(theirs, {
      clientCa: `${b.certPem}\n${a.certPem}`,
      requestHeader: {
        ca: b.certPem,
        usernameHeaders: ['X-User', 'X-Remote-User'],
        groupHeaders: [],
        extraHeaderPrefixes: [],
        allowedNames: ['two'],
      },
    });
    expect(merged['client-ca-file']).toBe(`${a.certPem.trim()}\n${b.certPem.trim()}\n`);
    expect(merged['requestheader-client-ca-file']).toBe(`${a.certPem.trim()}\n${b.certPem.trim()}\n`);
    expect(merged['requestheader-username-headers']).toBe('["X-User","X-Remote-User"]');
    expect(merged['requestheader-allowed-names']).toBe('["one","two"]');
  });
});
