// @engines sqlite: the database file's permissions
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db';
import { loadMasterKey } from '../../server/domain/master-key';

let dir: string;
let umask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'modes-'));
  // a permissive umask, as a shell or container often has
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

describe('files holding secrets', () => {
  it('the database, its WAL and shm files and the key file are created 0600 whatever the umask', async () => {
    const path = join(dir, 'data', 'payments.db');
    const db = openDatabase(path);
    await db.write((tx) => tx.handle.run(sql`CREATE TABLE t (v INTEGER) STRICT`));
    db.read.handle.all(sql`SELECT count(*) FROM t`);
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(`${path}-shm`)).toBe(0o600);
    expect(mode(join(dir, 'data')) & 0o077).toBe(0);
    loadMasterKey(path);
    expect(mode(join(dir, 'data', 'secrets.key'))).toBe(0o600);
    await db.close();
  });

  it('a database created readable by others before this rule is tightened when opened', async () => {
    const path = join(dir, 'old.db');
    writeFileSync(path, '', { mode: 0o644 });
    expect(mode(path)).toBe(0o644);
    const db = openDatabase(path);
    expect(mode(path)).toBe(0o600);
    await db.close();
  });
});
