// Service-account tokens: the key that signs them, the keys that verify them, their issuers and
// audiences, and whether their account must still exist.
import { readFileSync } from 'node:fs';
import { parsePublicKeys, signingKeyFromPem } from '../authentication/service-account-keys.ts';
import {
  asUsageError,
  boolFlag,
  fileFlag,
  listFlag,
  type OptionSection,
  UsageError,
  urlFlag,
} from './flags.ts';

/** Kubernetes: an issuer that is a URL must be https; any other value must not contain a colon. */
function checkIssuer(i: string): void {
  if (!i.trim()) throw new UsageError('--service-account-issuer: must not be empty');
  if (!i.includes(':')) return;
  if (urlFlag('service-account-issuer', i).protocol !== 'https:')
    throw new UsageError(`--service-account-issuer: "${i}" must use the https scheme`);
}

/** A key file flag's absolute path, its keys read once to check them. */
function keyFile(
  name: string,
  v: string,
  cwd: string,
  check: (pem: string, file: string) => unknown,
): string {
  const file = fileFlag(name, v, cwd);
  asUsageError(`--${name}: `, () => check(readFileSync(file, 'utf8'), file));
  return file;
}

export const serviceAccountOptions: OptionSection = {
  flags: {
    'service-account-signing-key-file': { type: 'string' },
    'service-account-key-file': { type: 'string', multiple: true },
    'service-account-issuer': { type: 'string', multiple: true },
    'api-audiences': { type: 'string', multiple: true },
    'service-account-lookup': { type: 'string' },
  },
  usage: `  --service-account-signing-key-file PATH
                             PEM private key (RSA or EC) that signs service-account tokens
                             (default: generated once, kept in <data-dir>/pki/service-account.key)
  --service-account-key-file PATH
                             PEM public keys, private keys or certificates that verify
                             service-account tokens; repeatable (default: the TLS key)
  --service-account-issuer URL
                             issuer of service-account tokens; repeatable: the first signs, all are
                             accepted (default https://orch.default.svc.cluster.local)
  --api-audiences LIST       comma-separated audiences API tokens must name one of (default: the issuer)
  --service-account-lookup=BOOL
                             refuse tokens whose service account or bound object no longer
                             exists with the same uid (default true)
`,
  parse({ values, str, cwd, options }) {
    const signing = str('service-account-signing-key-file');
    if (signing !== undefined)
      options.serviceAccountSigningKeyFile = keyFile(
        'service-account-signing-key-file',
        signing,
        cwd,
        signingKeyFromPem,
      );
    const keys = values['service-account-key-file'] as string[] | undefined;
    if (keys?.length)
      options.serviceAccountKeyFiles = keys.map((k) =>
        keyFile('service-account-key-file', k, cwd, parsePublicKeys),
      );
    const issuers = values['service-account-issuer'] as string[] | undefined;
    if (issuers?.length) {
      for (const i of issuers) checkIssuer(i);
      options.serviceAccountIssuers = issuers;
    }
    const aud = listFlag('api-audiences', values['api-audiences'] as string[] | undefined);
    if (aud) options.apiAudiences = aud;
    const lookup = boolFlag('service-account-lookup', str('service-account-lookup'));
    if (lookup !== undefined) options.serviceAccountLookup = lookup;
  },
};
