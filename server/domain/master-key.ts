import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The key that encrypts secrets which must stay readable (webhook and postback signing secrets).
 * From SECRETS_KEY (base64, 32 bytes) when set; otherwise a key file beside the database, created once
 * with mode 0600, so a fresh clone works and the database file alone does not reveal the secrets.
 */
export function loadMasterKey(databasePath: string, keyPath?: string | null): Buffer {
  const env = process.env.SECRETS_KEY;
  if (env) {
    const key = Buffer.from(env, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, base64-encoded');
    return key;
  }
  const path = keyPath ?? join(dirname(databasePath), 'secrets.key');
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // another process (account:create beside the server) created it first: use theirs
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadMasterKey(databasePath, path);
    throw err;
  }
  return key;
}
