/**
 * npm run account:create -- --name "Acme" [--balance 100000] [--email a@b.c --password …] [--json]
 *   [--document 11222333000181 --legal-name "Acme Ltda" [--trade-name Acme] --street "Av. Paulista, 1000" --city "São Paulo" --uf SP --cep 01310100]
 * The receiver options (the account as recebedor of its cobv) go together; without them the account registers
 * them later in the dashboard (Configurações).
 * Creates an account against DATABASE_PATH (safe while the server runs: the write waits on SQLite's
 * busy timeout) and prints its credentials once.
 */
import { parseArgs } from 'node:util';
import { openDatabase } from '../db';
import { loadConfig } from '../server/config';
import { createAccount } from '../server/domain/accounts';
import type { ReceiverInput } from '../server/domain/receiver';
import { loadMasterKey } from '../server/domain/master-key';
import { DomainError } from '../server/errors';
import { engineAtStartOrExit } from '../db/engine';
import { systemClock } from '../server/clock';

async function main() {
  await engineAtStartOrExit();
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      balance: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      json: { type: 'boolean', default: false },
      document: { type: 'string' },
      'legal-name': { type: 'string' },
      'trade-name': { type: 'string' },
      street: { type: 'string' },
      city: { type: 'string' },
      uf: { type: 'string' },
      cep: { type: 'string' },
    },
    strict: true,
  });
  if (!values.name) throw new DomainError('VALIDATION', '--name is required');
  let balance: number | undefined;
  if (values.balance !== undefined) {
    if (!/^\d+$/.test(values.balance)) throw new DomainError('VALIDATION', '--balance must be whole cents, e.g. 100000 for R$ 1.000,00');
    balance = Number(values.balance);
  }
  const receiverOptions = [values.document, values['legal-name'], values.street, values.city, values.uf, values.cep];
  let receiver: ReceiverInput | undefined;
  if (receiverOptions.some((v) => v !== undefined) || values['trade-name'] !== undefined) {
    if (receiverOptions.some((v) => v === undefined)) throw new DomainError('VALIDATION', '--document, --legal-name, --street, --city, --uf and --cep go together');
    receiver = {
      document: values.document!, name: values['legal-name']!, trade_name: values['trade-name'] ?? null,
      street: values.street!, city: values.city!, uf: values.uf!, cep: values.cep!,
    };
  }
  const config = loadConfig();
  // the database and key file may be created here first: its owner's only
  process.umask(0o077);
  const db = openDatabase(config.databasePath);
  try {
    const creds = await createAccount(
      { db, masterKey: loadMasterKey(config.databasePath, config.secretsKeyPath), clock: systemClock },
      { name: values.name, balance, email: values.email, password: values.password, receiver },
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
      if (receiver) console.log(`  recebedor   ${receiver.document.replace(/[.\-/\s]/g, '').toUpperCase()}`);
    }
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  console.error(`account:create: ${err instanceof DomainError ? err.detail : err instanceof Error ? err.message : String(err)}`);
  process.exit(err instanceof DomainError ? 2 : 1);
});
