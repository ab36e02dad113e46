// The keys of service-account tokens: the private key that signs (`--service-account-signing-key-file`,
// else one generated and kept in the data directory, or one per process for in-memory servers) and
// the public keys that verify (`--service-account-key-file`, repeatable: PEM public keys, private
// keys or certificates; without it, the TLS key). The signing key's own public key always verifies.
// An in-memory server's key is generated when first needed (an RSA key takes a good part of a
// second to make), so servers that never mint a token never pay for one.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  X509Certificate,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface VerifyKey {
  key: KeyObject;
  /** The key id tokens carry: base64url of the SHA-256 of the key's DER (PKIX) form, as Kubernetes computes it. */
  kid: string;
}

export interface SigningKey extends VerifyKey {
  privateKey: KeyObject;
  /** RS256 for RSA keys, ES256/ES384/ES512 for EC keys by curve. */
  alg: string;
}

export function keyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** The JWS algorithm of a key: only RSA and the three NIST EC curves sign service-account tokens. */
export function algorithmOf(k: KeyObject): string {
  if (k.asymmetricKeyType === 'rsa') return 'RS256';
  if (k.asymmetricKeyType === 'ec') {
    const curve = k.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
  }
  throw new Error(
    `unsupported key type ${k.asymmetricKeyType ?? 'unknown'} (want an RSA or an EC P-256/P-384/P-521 key)`,
  );
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Every public key of a PEM text (public keys, private keys and certificates); an error when it holds none. */
export function parsePublicKeys(pem: string, source: string): KeyObject[] {
  const out: KeyObject[] = [];
  for (const m of pem.matchAll(BLOCK)) {
    const type = m[1]!;
    const block = m[0];
    try {
      if (type === 'CERTIFICATE') out.push(new X509Certificate(block).publicKey);
      else if (type.endsWith('PRIVATE KEY')) out.push(createPublicKey(createPrivateKey(block)));
      else if (type.endsWith('PUBLIC KEY')) out.push(createPublicKey(block));
    } catch (e) {
      throw new Error(`${source}: cannot parse the ${type} block: ${(e as Error).message}`);
    }
  }
  if (!out.length) throw new Error(`${source}: no PEM public key, private key or certificate found`);
  for (const k of out) algorithmOf(k);
  return out;
}

export function signingKeyFromPem(pem: string, source: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (e) {
    throw new Error(`${source}: not a PEM private key: ${(e as Error).message}`);
  }
  const key = createPublicKey(privateKey);
  return { privateKey, key, kid: keyId(key), alg: algorithmOf(key) };
}

let perProcess: SigningKey | undefined;

function generatePem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** The signing key, obtained when first needed (get) or only when already there (peek). */
export interface SigningKeySource {
  get(): SigningKey;
  peek(): SigningKey | undefined;
}

/**
 * The configured signing key (read now), else the one kept in `<dataDir>/pki/service-account.key`
 * (read now; made and kept at the first mint), else one per process, generated on first use.
 */
export function signingKeySource(o: { file?: string; dataDir: string; inMemory: boolean }): SigningKeySource {
  if (o.file) return fixed(signingKeyFromPem(readFileSync(o.file, 'utf8'), o.file));
  if (!o.inMemory) {
    const file = join(o.dataDir, 'pki', 'service-account.key');
    if (existsSync(file)) return fixed(signingKeyFromPem(readFileSync(file, 'utf8'), file));
    // no key yet, so no token was ever signed: the key (0.2 s of CPU) is made at the first mint
    let made: SigningKey | undefined;
    return {
      get: () => {
        if (!made) {
          mkdirSync(join(o.dataDir, 'pki'), { recursive: true });
          writeFileSync(file, generatePem(), { mode: 0o600 });
          made = signingKeyFromPem(readFileSync(file, 'utf8'), file);
        }
        return made;
      },
      peek: () => made,
    };
  }
  return {
    get: () => {
      perProcess ??= signingKeyFromPem(generatePem(), 'generated key');
      return perProcess;
    },
    peek: () => perProcess,
  };
}

function fixed(k: SigningKey): SigningKeySource {
  return { get: () => k, peek: () => k };
}

/**
 * The verifying keys: those of the key files (else of the TLS key), read now, plus the signing
 * key's once it exists.
 */
export function verifyKeySet(
  signing: SigningKeySource,
  files: readonly string[],
  tlsKeyPem?: string,
): () => readonly VerifyKey[] {
  const keys: KeyObject[] = [];
  if (files.length) for (const f of files) keys.push(...parsePublicKeys(readFileSync(f, 'utf8'), f));
  else if (tlsKeyPem) keys.push(...parsePublicKeys(tlsKeyPem, 'TLS key'));
  const configured: VerifyKey[] = [];
  for (const key of keys) {
    const kid = keyId(key);
    if (!configured.some((k) => k.kid === kid)) configured.push({ key, kid });
  }
  let all: VerifyKey[] | undefined;
  return () => {
    if (all) return all;
    const own = signing.peek();
    if (!own) return configured;
    all = [{ key: own.key, kid: own.kid }, ...configured.filter((k) => k.kid !== own.kid)];
    return all;
  };
}
