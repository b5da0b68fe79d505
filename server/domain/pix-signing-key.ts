import { X509Certificate, createPrivateKey, createPublicKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';

/**
 * The RSA key that signs the API Pix payloads a payer's bank fetches from a dynamic QR code's location
 * (a JWS, server/domain/pix-api/jws.ts), its public half published as a JWKS. Like the secrets key
 * (master-key.ts): from configuration when given, PIX_SIGNING_KEY (the PEM itself) or
 * PIX_SIGNING_KEY_PATH (a PEM file, created there if absent); otherwise a file `pix-signing-key.pem`
 * beside the secrets key, created once with mode 0600 and reused on every later start, so payloads
 * signed before a restart still verify against the keys published after it.
 */
export interface PixSigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Where it came from: the environment's PEM, or a file (and whether this call created it). */
  origin: { kind: 'env' } | { kind: 'file'; path: string; created: boolean };
  /**
   * The key's certificate and the chain above it (leaf first), when configured (PIX_SIGNING_CERT_PATH):
   * what a PSP in production publishes, so payers' banks can check the key belongs to the PSP's
   * domain (x5c in the JWKS, x5t in the JWS header). Without one, the key stands alone (sandbox).
   */
  certificateChain?: X509Certificate[];
}

export const PIX_SIGNING_KEY_FILE = 'pix-signing-key.pem';
/** The BCB's security manual asks for RSA keys of at least 2048 bits; a new key has exactly that. */
export const MIN_RSA_BITS = 2048;

/** The default key file: beside the secrets key (which is itself beside the database unless configured). */
export function pixSigningKeyPath(databasePath: string, secretsKeyPath?: string | null): string {
  return join(dirname(secretsKeyPath ?? join(dirname(databasePath), 'secrets.key')), PIX_SIGNING_KEY_FILE);
}

function fromPem(pem: string, where: string): { privateKey: KeyObject; publicKey: KeyObject } {
  let privateKey: KeyObject;
  try {
    // an environment variable often carries a PEM on one line with literal "\n"
    privateKey = createPrivateKey(pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem);
  } catch (err) {
    throw new Error(`${where} does not hold an unencrypted PEM private key (${(err as Error).message})`);
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (privateKey.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS) {
    const got = privateKey.asymmetricKeyType === 'rsa' ? `rsa ${bits}` : String(privateKey.asymmetricKeyType);
    throw new Error(`${where} must hold an RSA private key of at least ${MIN_RSA_BITS} bits (got ${got})`);
  }
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

function readKeyFile(path: string): PixSigningKey {
  // a key file left readable by others (copied in by hand, an old umask) is tightened, as the database is
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return { ...fromPem(readFileSync(path, 'utf8'), path), origin: { kind: 'file', path, created: false } };
}

const generateRsa = promisify(generateKeyPair);

/** The PEM certificates of a file, leaf first; the leaf must be the certificate of `privateKey`'s public half. */
export function readCertificateChain(path: string, privateKey: KeyObject): X509Certificate[] {
  const blocks = readFileSync(path, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${path} holds no PEM certificate`);
  const chain = blocks.map((pem) => new X509Certificate(pem));
  if (!chain[0].checkPrivateKey(privateKey)) throw new Error(`${path}: the first certificate is not the signing key's (a chain is written leaf first)`);
  return chain;
}

/**
 * Loads the signing key, creating the key file the first time. Generation runs off the event loop
 * (node's thread pool: about half a second for 2048 bits on a loaded 2-core machine). The file is written
 * whole under a temporary name and then linked into place, which fails if the name exists: two
 * processes starting together (a cluster's instances) each create one, one link wins, and both use the
 * winner's key; a reader never sees a half-written file.
 */
export async function loadPixSigningKey(o: {
  databasePath: string;
  /** PIX_SIGNING_KEY_PATH (config.pixSigningKeyPath). */
  keyPath?: string | null;
  /** SECRETS_KEY_PATH (config.secretsKeyPath): the default key file sits beside it. */
  secretsKeyPath?: string | null;
  /** The PEM itself; PIX_SIGNING_KEY by default. */
  pem?: string | null;
  /** PIX_SIGNING_CERT_PATH (config.pixSigningCertPath): the key's certificate chain, PEM, leaf first. */
  certPath?: string | null;
}): Promise<PixSigningKey> {
  const key = await loadKey(o);
  return o.certPath ? { ...key, certificateChain: readCertificateChain(o.certPath, key.privateKey) } : key;
}

async function loadKey(o: { databasePath: string; keyPath?: string | null; secretsKeyPath?: string | null; pem?: string | null }): Promise<PixSigningKey> {
  const pem = o.pem === undefined ? process.env.PIX_SIGNING_KEY : o.pem;
  if (pem) return { ...fromPem(pem, 'PIX_SIGNING_KEY'), origin: { kind: 'env' } };
  const path = o.keyPath ?? pixSigningKeyPath(o.databasePath, o.secretsKeyPath);
  if (existsSync(path)) return readKeyFile(path);

  const { privateKey, publicKey } = await generateRsa('rsa', { modulusLength: MIN_RSA_BITS });
  const text = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
  } catch (err) {
    // another process linked its key first: use theirs, so every instance signs with the published key
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(path);
    throw err;
  } finally {
    unlinkSync(temporary);
  }
  return { privateKey, publicKey, origin: { kind: 'file', path, created: true } };
}
