// `orch-conformance fixtures --out DIR`: writes the credentials a target must trust for the
// authentication and authorization suites (harness/src/auth/fixtures.ts) and prints the
// server flags to start it with, and how to declare it to a run.
import { parseArgs } from 'node:util';
import { makeAuthFixtures, serverFlags } from '../harness/src/auth/fixtures.ts';
import { DECLARE_ENV } from '../harness/src/targets.ts';

export const FIXTURES_HELP = `Usage: orch-conformance fixtures --out DIR [options]

Writes a client CA, a token file, a service-account key pair, an authenticating proxy's CA
and certificate, an OpenID Connect issuer's keys and a token webhook's connection file into
DIR, and prints the server flags that make a target trust them. Start the target with those
flags, then run the suites with ${DECLARE_ENV.authFixtures}=DIR (or --auth-fixtures DIR): during the
run the harness serves the issuer and the webhook on the ports written into DIR.

  --out DIR             where to write (created; existing files are replaced)
  --callback-host HOST  address the target reaches the harness on (default 127.0.0.1)
  --oidc-port N         port of the issuer the harness serves (default: a free one now)
  --webhook-port N      port of the token webhook the harness serves (default: a free one now)
  -h, --help            this text
`;

function port(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 65535) throw new Error(`--${name}: "${v}" is not a port number`);
  return n;
}

export async function fixtures(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        'callback-host': { type: 'string' },
        'oidc-port': { type: 'string' },
        'webhook-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help) {
      process.stdout.write(FIXTURES_HELP);
      return 0;
    }
    if (!values.out) throw new Error('--out DIR is required');
    const f = await makeAuthFixtures(String(values.out), {
      callbackHost: values['callback-host'] as string | undefined,
      oidcPort: port('oidc-port', values['oidc-port'] as string | undefined),
      webhookPort: port('webhook-port', values['webhook-port'] as string | undefined),
    });
    process.stdout.write(
      `wrote the authentication fixtures to ${f.dir}\n\nstart the target with:\n  ${serverFlags(f).join(' \\\n  ')}\n\nthen run the suites with:\n  ${DECLARE_ENV.authFixtures}=${f.dir} orch-conformance run --endpoint URL ...\n\n` +
        `the cases of an OIDC username from a claim other than email (the oidc-sub method) need a target of their own, started with the same flags but --oidc-username-claim=sub, run with:\n  ${DECLARE_ENV.authFixtures}=${f.dir} ${DECLARE_ENV.authMethods}=oidc-sub orch-conformance run --endpoint URL ...\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`orch-conformance fixtures: ${(e as Error).message}\n\n${FIXTURES_HELP}`);
    return 2;
  }
}
