// The CA that signs approved client certificate requests (`--cluster-signing-cert-file`,
// `--cluster-signing-key-file`): a PEM certificate and its private key (PKCS #8, SEC 1 or
// PKCS #1; ECDSA or RSA), checked to belong together when the server starts.
import { createPrivateKey, webcrypto, X509Certificate as NodeCertificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { ConfigurationError } from '../../errors/config-error.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface SigningCa {
  cert: x509.X509Certificate;
  key: CryptoKey;
  signingAlgorithm: Algorithm | EcdsaParams;
  notBefore: number;
  notAfter: number;
}

const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

function read(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigurationError(`--${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
}

export async function loadSigningCa(certFile: string, keyFile: string): Promise<SigningCa> {
  const certPem = read('cluster-signing-cert-file', certFile);
  const keyPem = read('cluster-signing-key-file', keyFile);
  let nodeCert: NodeCertificate;
  try {
    nodeCert = new NodeCertificate(certPem);
  } catch (e) {
    throw new ConfigurationError(
      `--cluster-signing-cert-file: ${certFile}: not a PEM certificate: ${(e as Error).message}`,
    );
  }
  let keyObject: ReturnType<typeof createPrivateKey>;
  try {
    keyObject = createPrivateKey(keyPem);
  } catch (e) {
    throw new ConfigurationError(
      `--cluster-signing-key-file: ${keyFile}: not a PEM private key: ${(e as Error).message}`,
    );
  }
  if (!nodeCert.checkPrivateKey(keyObject))
    throw new ConfigurationError(
      `--cluster-signing-key-file: ${keyFile}: the key does not belong to the certificate in ${certFile}`,
    );
  if (!nodeCert.ca)
    throw new ConfigurationError(`--cluster-signing-cert-file: ${certFile}: the certificate is not a CA`);
  const pkcs8 = keyObject.export({ type: 'pkcs8', format: 'der' });
  let importAlg: EcKeyImportParams | RsaHashedImportParams;
  let signingAlgorithm: Algorithm | EcdsaParams;
  if (keyObject.asymmetricKeyType === 'ec') {
    const curve = CURVES[keyObject.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new ConfigurationError(`--cluster-signing-key-file: ${keyFile}: unsupported curve`);
    importAlg = { name: 'ECDSA', namedCurve: curve };
    signingAlgorithm = { name: 'ECDSA', hash: curve === 'P-256' ? 'SHA-256' : 'SHA-384' } as EcdsaParams;
  } else if (keyObject.asymmetricKeyType === 'rsa') {
    importAlg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    signingAlgorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as Algorithm;
  } else {
    throw new ConfigurationError(
      `--cluster-signing-key-file: ${keyFile}: only ECDSA and RSA keys are supported`,
    );
  }
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, importAlg, false, ['sign']);
  return {
    cert: new x509.X509Certificate(certPem),
    key: key as unknown as CryptoKey,
    signingAlgorithm,
    notBefore: Date.parse(nodeCert.validFrom),
    notAfter: Date.parse(nodeCert.validTo),
  };
}
