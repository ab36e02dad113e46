// A PEM bundle of CA certificates (`--client-ca-file`, `--requestheader-client-ca-file`):
// every CERTIFICATE block, parsed; a file that is unreadable, holds none or holds one that
// does not parse stops the server with the flag and the file named.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../errors/config-error.ts';

export interface CaBundle {
  /** The PEM text as read (what the TLS listener names to clients). */
  pem: string;
  certificates: X509Certificate[];
}

const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export function loadCaBundle(flag: string, path: string): CaBundle {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigurationError(`--${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
  const blocks = pem.match(BLOCK) ?? [];
  if (blocks.length === 0) throw new ConfigurationError(`--${flag}: ${path} holds no PEM CERTIFICATE block`);
  const certificates = blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (e) {
      throw new ConfigurationError(
        `--${flag}: ${path}: certificate ${i + 1} does not parse: ${(e as Error).message}`,
      );
    }
  });
  return { pem, certificates };
}
