/**
 * tsx bench/accounts.ts N: creates N funded merchant accounts in the database the environment names
 * (DATABASE_URL, or DATABASE_PATH; the master key beside DATABASE_PATH, as the server reads it) and prints
 * each one's client pair as a JSON line. For the bench's load spread over many accounts.
 */
import { openDatabase } from '../db';
import { engineAtStartOrExit } from '../db/engine';
import { systemClock } from '../server/clock';
import { loadConfig } from '../server/config';
import { createAccount } from '../server/domain/accounts';
import { loadMasterKey } from '../server/domain/master-key';

async function main() {
  const n = Number(process.argv[2] ?? 20);
  await engineAtStartOrExit();
  const config = loadConfig();
  const db = openDatabase(config.databasePath);
  try {
    const masterKey = loadMasterKey(config.databasePath, config.secretsKeyPath);
    for (let i = 0; i < n; i++) {
      const c = await createAccount({ db, masterKey, clock: systemClock }, { name: `bench ${i + 1}`, balance: 90_000_000_000 });
      process.stdout.write(JSON.stringify({ account_id: c.account_id, code: c.code, token: c.token }) + '\n');
    }
  } finally {
    await db.close();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
