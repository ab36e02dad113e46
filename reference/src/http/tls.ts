// Serving certificate: a CA and a leaf for 127.0.0.1, ::1 and localhost, generated once
// (tls-issue.ts, loaded only then) and kept under the data directory.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerOptions } from '../config.ts';
import type { CertBundle } from './tls-issue.ts';

export type { CertBundle } from './tls-issue.ts';

/** A new CA and a leaf it signs for `hosts`. */
export async function generateCertificate(
  hosts: string[] = ['127.0.0.1', '::1', 'localhost'],
): Promise<CertBundle> {
  const { issueCertificate } = await import('./tls-issue.ts');
  return issueCertificate(hosts);
}

/** Uses the configured key and certificate, else one kept in the data directory, else a new one. */
export async function ensureCertificate(o: ServerOptions): Promise<CertBundle> {
  if (o.tlsKey && o.tlsCert) return { key: o.tlsKey, cert: o.tlsCert, ca: o.tlsCa ?? o.tlsCert };
  if (o.inMemory) return generateCertificate();
  const dir = join(o.dataDir, 'pki');
  const files = ['server.key', 'server.crt', 'ca.crt'].map((f) => join(dir, f));
  if (files.every((f) => existsSync(f))) {
    const [key, cert, ca] = files.map((f) => readFileSync(f, 'utf8')) as [string, string, string];
    return { key, cert, ca };
  }
  const b = await generateCertificate();
  mkdirSync(dir, { recursive: true });
  writeFileSync(files[0]!, b.key, { mode: 0o600 });
  writeFileSync(files[1]!, b.cert);
  writeFileSync(files[2]!, b.ca);
  return b;
}
