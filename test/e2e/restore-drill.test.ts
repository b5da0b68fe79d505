// @engines sqlite: backup and restore copy SQLite's file (refused on PostgreSQL, tested in engine-at-start)
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { accessToken, api, removeDir, runTsx, startServer, type Finished, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';


/** Runs one of the operations commands as `npm run <name>` would (tsx), with DATABASE_PATH. */
function command(script: 'backup' | 'restore' | 'audit', args: string[], databasePath: string): Promise<Finished> {
  return runTsx(`scripts/${script}.ts`, args, { ...process.env, DATABASE_PATH: databasePath });
}

const withdrawal = (i: number) => ({
  amount: 100 + i, key: `drill${i}@example.com`, key_type: 'EMAIL', details: { name: 'Fulano', document: '529.982.247-25' }, external_ref: `drill-${i}`,
});

const cleanup: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  for (const d of cleanup) removeDir(d);
});

describe('restore drill', () => {
  it('backs up under steady write load; the restore has every acknowledged withdrawal, balanced books, and takes new work', async () => {
    const live = await startServer();
    servers.push(live);
    cleanup.push(live.dir);
    const token = await accessToken(live.url, live.demo.code, live.demo.token);
    const work = mkdtempSync(join(tmpdir(), 'pix-drill-'));
    cleanup.push(work);

    // steady load: four writers posting withdrawals back to back until told to stop
    const acknowledged: { ref: string; identifier: string }[] = [];
    let stop = false;
    let n = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const i = n++;
        const res = await api(live.url, '/withdraw/pix', { token, body: withdrawal(i) });
        if (res.status !== 201) throw new Error(`withdrawal ${i}: ${res.status} ${res.text}`);
        acknowledged.push({ ref: `drill-${i}`, identifier: res.json.data[0].identifier });
      }
    });
    await waitFor(() => acknowledged.length >= 40, { what: 'load to build up' });

    const before = [...acknowledged];
    const backupFile = join(work, 'backup.db');
    const backup = await command('backup', ['--to', backupFile], live.databasePath);
    const ackedDuringBackup = acknowledged.length - before.length;
    stop = true;
    await Promise.all(writers);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/^backup: .*backup\.db: [\d.]+ (KiB|MiB), integrity ok, books balance; last committed entry lje_\w+ \(\w+\) at \S+\n$/);
    expect(ackedDuringBackup).toBeGreaterThan(0); // the server kept writing while the copy was taken
    expect(statSync(backupFile).mode & 0o777).toBe(0o600); // as sensitive as the database itself

    // restore into a new place while the live server still runs (a different file: allowed)
    const restoredDir = join(work, 'restored');
    const restoredDb = join(restoredDir, 'payments.db');
    const restore = await command('restore', ['--from', backupFile], restoredDb);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/restored from .*backup\.db/);
    // the signing key travels separately from the database (docs/operations.md); the drill brings it along
    copyFileSync(join(live.dir, 'secrets.key'), join(restoredDir, 'secrets.key'));
    expect((await command('audit', [], restoredDb)).code).toBe(0);

    const restored = await startServer({ dir: restoredDir });
    servers.push(restored);
    expect((await api(restored.url, '/readyz')).status).toBe(200);
    // the copy holds the access token too: the same client carries on against the restored server
    for (const w of before) {
      const got = await api(restored.url, `/withdraw?external_ref=${w.ref}`, { token });
      expect(got.status, `${w.ref} after restore`).toBe(200);
    }
    const fresh = await api(restored.url, '/withdraw/pix', { token, body: withdrawal(100_000) });
    expect(fresh.status).toBe(201);

    // while the restored server runs, restoring over its database is refused and changes nothing
    const bytes = readFileSync(restoredDb);
    const refused = await command('restore', ['--from', backupFile], restoredDb);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^restore: refusing to restore: .* is in use/);
    expect(readFileSync(restoredDb).equals(bytes)).toBe(true);
    expect((await api(restored.url, `/withdraw?external_ref=drill-100000`, { token })).status).toBe(200);
    await restored.stop();
    await live.stop();
  }, 240_000);
});

describe('bad input to the commands', () => {
  it('refuses a file that is not a database, a backup that fails the audit, an unwritable target and a missing database, each in one line', async () => {
    const s = await startServer();
    servers.push(s);
    cleanup.push(s.dir);
    const work = mkdtempSync(join(tmpdir(), 'pix-drill-bad-'));
    cleanup.push(work);
    const good = join(work, 'good.db');
    expect((await command('backup', ['--to', good], s.databasePath)).code).toBe(0);
    await s.stop();
    const liveBefore = readFileSync(s.databasePath);

    const junk = join(work, 'junk.db');
    writeFileSync(junk, 'not a database at all\n'.repeat(100));
    const broken = join(work, 'broken.db');
    copyFileSync(good, broken);
    const conn = new Database(broken);
    const book = conn.prepare(`SELECT id, account_id FROM ledger_books WHERE account_id IS NOT NULL AND kind = 'available'`).get() as { id: string; account_id: string };
    conn.prepare(`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES ('lje_forged', ?, 'forged', 'x')`).run(book.account_id);
    conn.prepare(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES ('lje_forged', ?, 1, (SELECT balance FROM ledger_books WHERE id = ?) + 1, 'x')`).run(book.id, book.id);
    conn.close();

    // one after another: every command takes the live database's in-use lock, and a restore rightly
    // refuses while another command holds it
    const cases: [() => Promise<{ code: number | null; stderr: string; stdout: string }>, RegExp][] = [
      [() => command('restore', ['--from', junk], s.databasePath), /^restore: backup .*junk\.db is not an SQLite database$/],
      [() => command('restore', ['--from', broken], s.databasePath), /^restore: .*broken\.db fails the ledger audit \(entries_balanced: entry lje_forged: .*\); nothing restored$/],
      [() => command('restore', ['--from', join(work, 'nope.db')], s.databasePath), /^restore: backup .*nope\.db does not exist or cannot be read \(ENOENT\)$/],
      [() => command('backup', ['--to', join(work, 'no-such-dir', 'b.db')], s.databasePath), /^backup: cannot write .*b\.db: directory .* does not exist$/],
      [() => command('backup', ['--to', '/proc/b.db'], s.databasePath), /^backup: cannot write \/proc\/b\.db: /],
      [() => command('audit', [], join(work, 'missing.db')), /^audit: database .*missing\.db does not exist or cannot be read \(ENOENT\)$/],
      [() => command('audit', [], broken), /^audit: the books do not balance: entries_balanced: entry lje_forged/],
    ];
    for (const [run, message] of cases) {
      const r = await run();
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(message);
    }
    expect(existsSync(join(work, 'missing.db'))).toBe(false);
    expect(readFileSync(s.databasePath).equals(liveBefore)).toBe(true);
  }, 240_000);
});
