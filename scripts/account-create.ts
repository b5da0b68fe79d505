/**
 * npm run account:create -- --name "Acme" [--balance 100000] [--email a@b.c --password …] [--json]
 * Creates an account against DATABASE_PATH (safe while the server runs: the write waits on SQLite's
 * busy timeout) and prints its credentials once.
 */
import { parseArgs } from 'node:util';
import { openDatabase } from '../db';
import { loadConfig } from '../server/config';
import { createAccount } from '../server/domain/accounts';
import { loadMasterKey } from '../server/domain/master-key';
import { DomainError } from '../server/errors';
import { engineAtStartOrExit } from '../db/engine';

async function main() {
  await engineAtStartOrExit();
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      balance: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.name) throw new DomainError('VALIDATION', '--name is required');
  let balance: number | undefined;
  if (values.balance !== undefined) {
    if (!/^\d+$/.test(values.balance)) throw new DomainError('VALIDATION', '--balance must be whole cents, e.g. 100000 for R$ 1.000,00');
    balance = Number(values.balance);
  }
  const config = loadConfig();
  // the database and key file may be created here first: its owner's only
  process.umask(0o077);
  const db = openDatabase(config.databasePath);
  try {
    const creds = await createAccount(
      { db, masterKey: loadMasterKey(config.databasePath, config.secretsKeyPath), now: () => new Date() },
      { name: values.name, balance, email: values.email, password: values.password },
    );
    if (values.json) {
      process.stdout.write(JSON.stringify(creds) + '\n');
    } else {
      console.log(`account created in ${config.databasePath} (secrets shown once):`);
      console.log(`  account_id  ${creds.account_id}`);
      console.log(`  code        ${creds.code}`);
      console.log(`  token       ${creds.token}`);
      console.log(`  api_key     ${creds.api_key}`);
      console.log(`  pix_client_id      ${creds.pix_client_id}`);
      console.log(`  pix_client_secret  ${creds.pix_client_secret}`);
      console.log(`  pix_key     ${creds.pix_key}`);
      if (values.email) console.log(`  dashboard   ${values.email.toLowerCase()}`);
    }
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  console.error(`account:create: ${err instanceof DomainError ? err.detail : err instanceof Error ? err.message : String(err)}`);
  process.exit(err instanceof DomainError ? 2 : 1);
});
