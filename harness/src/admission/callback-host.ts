// Where the harness's admission webhook servers listen and what certificate authority signs
// them. Against a target on this machine (the embedded reference servers) that is 127.0.0.1
// and a fresh authority per test process; a target elsewhere must reach the machine running
// the suites, so the run says how:
//
//   ORCH_CALLBACK_HOST     the host name or IP address the target calls back (in the
//                          webhooks' clientConfig.url and the serving certificate);
//                          default 127.0.0.1
//   ORCH_CALLBACK_BIND     the address the servers listen on (default: ORCH_CALLBACK_HOST
//                          when it is an IP address, else 0.0.0.0)
//   ORCH_CALLBACK_PORTS    a port range `FROM-TO` the servers take their ports from (for a
//                          firewall that opens only those); default any free port
//   ORCH_CALLBACK_CA_CERT  PEM files of a certificate authority that issues the servers'
//   ORCH_CALLBACK_CA_KEY   certificates (both or neither; default a fresh one per process).
//                          The webhooks name it in clientConfig.caBundle either way.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { type KeyPairPem, makeCa } from '../auth/pki.ts';
import { runEnv } from '../run-env.ts';

export const CALLBACK_ENV = {
  host: 'ORCH_CALLBACK_HOST',
  bind: 'ORCH_CALLBACK_BIND',
  ports: 'ORCH_CALLBACK_PORTS',
  caCert: 'ORCH_CALLBACK_CA_CERT',
  caKey: 'ORCH_CALLBACK_CA_KEY',
} as const;

export interface CallbackHost {
  /** The host the target calls (URL and certificate name). */
  host: string;
  /** The address to listen on. */
  bind: string;
  /** A range of ports to take from, or undefined for any free port. */
  ports?: { from: number; to: number };
}

/** Where the callback servers listen, from the run's environment. */
export function callbackHost(env: NodeJS.ProcessEnv = runEnv()): CallbackHost {
  const host = env[CALLBACK_ENV.host] || '127.0.0.1';
  const bind = env[CALLBACK_ENV.bind] || (isIP(host) ? host : '0.0.0.0');
  const p = env[CALLBACK_ENV.ports];
  let ports: CallbackHost['ports'];
  if (p) {
    const m = /^(\d+)-(\d+)$/.exec(p.trim());
    const from = Number(m?.[1]);
    const to = Number(m?.[2]);
    if (!m || from < 1 || to > 65535 || from > to)
      throw new Error(`${CALLBACK_ENV.ports}="${p}" is not a port range FROM-TO`);
    ports = { from, to };
  }
  return { host, bind, ports };
}

let ca: Promise<KeyPairPem> | undefined;

/** The authority that issues the callback servers' certificates (one per process). */
export function callbackCa(env: NodeJS.ProcessEnv = runEnv()): Promise<KeyPairPem> {
  if (ca) return ca;
  const certFile = env[CALLBACK_ENV.caCert];
  const keyFile = env[CALLBACK_ENV.caKey];
  if (!!certFile !== !!keyFile)
    throw new Error(
      `${CALLBACK_ENV.caCert} and ${CALLBACK_ENV.caKey} go together: give both PEM files or neither`,
    );
  ca =
    certFile && keyFile
      ? Promise.resolve({ cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') })
      : makeCa('orch-conformance admission webhooks');
  return ca;
}
