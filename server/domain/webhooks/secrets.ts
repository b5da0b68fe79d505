import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * HMAC key bytes of a secret: base64-decoded part after `whsec_` (a bare base64 secret is
 * accepted too, as the standardwebhooks library does). Throws on a malformed secret so a bad
 * row never silently signs with an empty or garbage key.
 */
export function secretKeyBytes(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Buffer.from(..., 'base64') skips invalid characters silently, hence the strict check.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new Error('malformed webhook secret');
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) throw new Error('malformed webhook secret');
  return key;
}

// AES-256-GCM: authenticated, so a tampered row fails to decrypt instead of yielding a wrong key.
const ALGO = 'aes-256-gcm';
const IV_BYTES = 12; // the GCM-recommended nonce size
const TAG_BYTES = 16;
const VERSION = 'v1'; // lets the format/key change later without guessing

function checkKey(masterKey: Buffer): void {
  if (masterKey.length !== 32) throw new Error('webhook secret master key must be 32 bytes');
}

/** Encrypts a secret for storage: `v1:<b64 iv>:<b64 tag>:<b64 ciphertext>`. */
export function encryptSecret(plain: string, masterKey: Buffer): string {
  checkKey(masterKey);
  const iv = randomBytes(IV_BYTES); // fresh per encryption: GCM breaks if an IV repeats under a key
  const cipher = createCipheriv(ALGO, masterKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64'), tag.toString('base64'), ciphertext.toString('base64')].join(':');
}

/** Decrypts a value from `encryptSecret`; throws if it is malformed, tampered or the key is wrong. */
export function decryptSecret(stored: string, masterKey: Buffer): string {
  checkKey(masterKey);
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('unrecognised encrypted secret format');
  const iv = Buffer.from(parts[1], 'base64');
  const tag = Buffer.from(parts[2], 'base64');
  const ciphertext = Buffer.from(parts[3], 'base64');
  // A short tag would weaken authentication (Node accepts truncated tags), so insist on 16 bytes.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('unrecognised encrypted secret format');
  try {
    const decipher = createDecipheriv(ALGO, masterKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    // Don't leak OpenSSL details; the cause is always "not authentic under this key".
    throw new Error('encrypted secret failed authentication (tampered or wrong key)');
  }
}
