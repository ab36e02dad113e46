// The credentials a target must trust for the authentication and authorization suites to run
// (doc3 "Authentication"): `orch-conformance fixtures --out DIR` writes them, and prints the
// server flags that make a target trust them. The embedded run makes a set for its own
// servers. Everything is described by DIR/auth-fixtures.json, which the suites read
// (ORCH_AUTH_FIXTURES=DIR).
//
//   client-ca.crt/.key       a client certificate authority (--client-ca-file); the suites
//                            issue client certificates from it as they need them
//   tokens.csv               a static token file (--token-auth-file)
//   sa.key / sa.pub          a service-account key pair (--service-account-key-file and
//                            --service-account-signing-key-file): the suites forge tokens
//                            with it (expired, wrong audience) to check the verification
//   requestheader-ca.crt/.key, proxy.crt/.key
//                            an authenticating proxy's CA and its client certificate
//                            (--requestheader-*)
//   oidc-ca.crt, oidc.crt/.key, oidc-signing.jwk.json
//                            an OpenID Connect issuer served by the harness over HTTPS during
//                            the run (--oidc-*): the suites sign id_tokens with its key
//   webhook-ca.crt, webhook.crt/.key, webhook-authn.kubeconfig
//                            a token webhook served by the harness during the run
//                            (--authentication-token-webhook-*)
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import { stringify as toYaml } from 'yaml';
import { freePort } from '../free-port.ts';
import { issue, type KeyPairPem, makeCa } from './pki.ts';

export const FIXTURES_FILE = 'auth-fixtures.json';

export interface TokenUser {
  token: string;
  user: string;
  uid: string;
  groups: string[];
}

export interface AuthFixtures {
  version: 1;
  /** Absolute directory of the files below. */
  dir: string;
  /** Where the harness serves its callbacks (the target must reach it). */
  callbackHost: string;
  clientCa: { cert: string; key: string };
  tokenFile: string;
  /** The users of the token file. */
  tokens: TokenUser[];
  serviceAccount: { privateKey: string; publicKey: string; issuer: string; alg: 'RS256' };
  requestHeader: {
    ca: string;
    caKey: string;
    proxyCert: string;
    proxyKey: string;
    allowedNames: string[];
    usernameHeaders: string[];
    groupHeaders: string[];
    extraHeadersPrefixes: string[];
  };
  oidc: {
    issuerUrl: string;
    port: number;
    clientId: string;
    ca: string;
    serverCert: string;
    serverKey: string;
    /** The issuer's private signing key (JWK, with `kid` and `alg`). */
    signingJwk: string;
    usernameClaim: string;
    usernamePrefix: string;
    groupsClaim: string;
    groupsPrefix: string;
    requiredClaims: Record<string, string>;
  };
  webhook: {
    url: string;
    port: number;
    ca: string;
    serverCert: string;
    serverKey: string;
    /** The connection file the target reads (kubeconfig format). */
    kubeconfig: string;
    version: 'v1' | 'v1beta1';
    /** Tokens the harness's webhook accepts, with the user it answers. */
    tokens: TokenUser[];
  };
}

export { freePort };

const token = () => randomBytes(18).toString('base64url');
const urlHost = (h: string) => (h.includes(':') ? `[${h}]` : h);

export interface MakeOptions {
  /** Address the target reaches the harness on (default 127.0.0.1). */
  callbackHost?: string;
  oidcPort?: number;
  webhookPort?: number;
}

/** Writes a fresh set of fixtures into `dir` and returns its description. */
export async function makeAuthFixtures(dirIn: string, o: MakeOptions = {}): Promise<AuthFixtures> {
  const dir = resolve(dirIn);
  mkdirSync(dir, { recursive: true });
  const host = o.callbackHost ?? '127.0.0.1';
  const put = (name: string, text: string, mode = 0o644) => {
    const p = join(dir, name);
    writeFileSync(p, text, { mode });
    return p;
  };
  const pair = (base: string, kp: KeyPairPem) => ({
    cert: put(`${base}.crt`, kp.cert),
    key: put(`${base}.key`, kp.key, 0o600),
  });

  const clientCa = pair('client-ca', await makeCa('orch-conformance-client-ca'));

  const tokens: TokenUser[] = [
    {
      token: token(),
      user: 'conformance-alice',
      uid: 'uid-alice',
      groups: ['conformance-devs', 'conformance-readers'],
    },
    { token: token(), user: 'conformance-bob', uid: 'uid-bob', groups: [] },
  ];
  // CSV as the token file wants it: the groups column is one quoted field
  const tokenFile = put(
    'tokens.csv',
    tokens
      .map((t) => `${t.token},${t.user},${t.uid}${t.groups.length ? `,"${t.groups.join(',')}"` : ''}`)
      .join('\n') + '\n',
    0o600,
  );

  const sa = await generateKeyPair('RS256', { extractable: true });
  const serviceAccount = {
    privateKey: put('sa.key', await exportPKCS8(sa.privateKey), 0o600),
    publicKey: put('sa.pub', await exportSPKI(sa.publicKey)),
    issuer: 'https://orch.default.svc.cluster.local',
    alg: 'RS256' as const,
  };

  const rhCa = await makeCa('orch-conformance-requestheader-ca');
  const rhCaFiles = pair('requestheader-ca', rhCa);
  const proxy = pair('proxy', await issue(rhCa, { cn: 'front-proxy-client' }));

  const oidcPort = o.oidcPort ?? (await freePort(host));
  const oidcCa = await makeCa('orch-conformance-oidc-ca');
  const oidcServer = pair(
    'oidc',
    await issue(oidcCa, { cn: 'oidc-issuer', usage: 'server', hosts: [host, 'localhost'] }),
  );
  const signing = await generateKeyPair('RS256', { extractable: true });
  const jwk = {
    ...(await exportJWK(signing.privateKey)),
    kid: `k-${randomBytes(4).toString('hex')}`,
    alg: 'RS256',
    use: 'sig',
  };
  const issuerUrl = `https://${urlHost(host)}:${oidcPort}/issuer`;

  const webhookPort = o.webhookPort ?? (await freePort(host));
  const whCa = await makeCa('orch-conformance-webhook-ca');
  const whServer = pair(
    'webhook',
    await issue(whCa, { cn: 'token-webhook', usage: 'server', hosts: [host, 'localhost'] }),
  );
  const webhookUrl = `https://${urlHost(host)}:${webhookPort}/authenticate`;
  const kubeconfig = put(
    'webhook-authn.kubeconfig',
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'token-webhook',
          cluster: {
            server: webhookUrl,
            'certificate-authority-data': Buffer.from(whCa.cert).toString('base64'),
          },
        },
      ],
      users: [{ name: 'apiserver', user: {} }],
      contexts: [{ name: 'webhook', context: { cluster: 'token-webhook', user: 'apiserver' } }],
      'current-context': 'webhook',
    }),
  );

  const f: AuthFixtures = {
    version: 1,
    dir,
    callbackHost: host,
    clientCa,
    tokenFile,
    tokens,
    serviceAccount,
    requestHeader: {
      ca: rhCaFiles.cert,
      caKey: rhCaFiles.key,
      proxyCert: proxy.cert,
      proxyKey: proxy.key,
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeadersPrefixes: ['X-Remote-Extra-'],
    },
    oidc: {
      issuerUrl,
      port: oidcPort,
      clientId: 'orch-conformance',
      ca: put('oidc-ca.crt', oidcCa.cert),
      serverCert: oidcServer.cert,
      serverKey: oidcServer.key,
      signingJwk: put('oidc-signing.jwk.json', `${JSON.stringify(jwk, null, 2)}\n`, 0o600),
      usernameClaim: 'email',
      usernamePrefix: '',
      groupsClaim: 'groups',
      groupsPrefix: 'oidc:',
      requiredClaims: { tenant: 'conformance' },
    },
    webhook: {
      url: webhookUrl,
      port: webhookPort,
      ca: put('webhook-ca.crt', whCa.cert),
      serverCert: whServer.cert,
      serverKey: whServer.key,
      kubeconfig,
      version: 'v1',
      tokens: [
        {
          token: `wh-${token()}`,
          user: 'conformance-webhook-user',
          uid: 'uid-webhook',
          groups: ['conformance-webhook-group'],
        },
      ],
    },
  };
  writeFileSync(join(dir, FIXTURES_FILE), `${JSON.stringify(f, null, 2)}\n`);
  return f;
}

/** Reads the description a `fixtures` run wrote (DIR or DIR/auth-fixtures.json). */
export function loadAuthFixtures(path: string): AuthFixtures {
  const file = path.endsWith('.json') ? path : join(path, FIXTURES_FILE);
  const f = JSON.parse(readFileSync(file, 'utf8')) as AuthFixtures;
  if (f.version !== 1) throw new Error(`${file}: unknown fixtures version ${String(f.version)}`);
  return f;
}

/**
 * The server flags that make a target trust the fixtures (the reference server's and
 * kube-apiserver's flags have the same names). The webhook and OIDC issuer are served by the
 * harness only while a run is going on.
 */
export function serverFlags(f: AuthFixtures, variant?: 'oidc-sub'): string[] {
  const rh = f.requestHeader;
  // the oidc-sub target: the username from `sub`, so with the issuer URL and `#` before it
  const o = variant === 'oidc-sub' ? { ...f.oidc, usernameClaim: 'sub' } : f.oidc;
  return [
    `--client-ca-file=${f.clientCa.cert}`,
    `--token-auth-file=${f.tokenFile}`,
    `--service-account-key-file=${f.serviceAccount.publicKey}`,
    `--service-account-signing-key-file=${f.serviceAccount.privateKey}`,
    `--service-account-issuer=${f.serviceAccount.issuer}`,
    '--enable-bootstrap-token-auth',
    '--controllers=*,tokencleaner,bootstrapsigner',
    `--requestheader-client-ca-file=${rh.ca}`,
    `--requestheader-allowed-names=${rh.allowedNames.join(',')}`,
    `--requestheader-username-headers=${rh.usernameHeaders.join(',')}`,
    `--requestheader-group-headers=${rh.groupHeaders.join(',')}`,
    `--requestheader-extra-headers-prefix=${rh.extraHeadersPrefixes.join(',')}`,
    `--oidc-issuer-url=${o.issuerUrl}`,
    `--oidc-client-id=${o.clientId}`,
    `--oidc-ca-file=${o.ca}`,
    `--oidc-username-claim=${o.usernameClaim}`,
    `--oidc-groups-claim=${o.groupsClaim}`,
    `--oidc-groups-prefix=${o.groupsPrefix}`,
    ...Object.entries(o.requiredClaims).map(([k, v]) => `--oidc-required-claim=${k}=${v}`),
    `--authentication-token-webhook-config-file=${f.webhook.kubeconfig}`,
    `--authentication-token-webhook-version=${f.webhook.version}`,
  ];
}
