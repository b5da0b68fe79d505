import { randomBytes } from 'node:crypto';
import { countAccounts, createAccount } from './domain/accounts';
import type { Services } from './services';

/**
 * On first start with an empty database: a demo account with a sandbox balance and a dashboard user.
 * Their secrets exist only in this one printout.
 */
export async function createDemoAccountIfEmpty(s: Services, print: (line: string) => void): Promise<boolean> {
  if ((await countAccounts(s)) > 0) return false;
  const email = 'demo@example.com';
  const password = randomBytes(12).toString('base64url');
  const creds = await createAccount(s, {
    name: 'Demo Merchant', balance: 1_000_000, email, password,
    // a test CNPJ (valid check digits, test/fixtures/pix-fixtures.json) and an address, so the demo's cobv answers a whole recebedor
    receiver: { document: '11222333000181', name: 'Demo Merchant Ltda', trade_name: 'Demo Merchant', street: 'Avenida Paulista, 1000', city: 'São Paulo', uf: 'SP', cep: '01310100' },
  });
  print('');
  print('  Demo account created (shown once; store it now):');
  print(`    account_id  ${creds.account_id}`);
  print(`    code        ${creds.code}`);
  print(`    token       ${creds.token}`);
  print(`    api_key     ${creds.api_key}`);
  print(`    pix_client_id      ${creds.pix_client_id}`);
  print(`    pix_client_secret  ${creds.pix_client_secret}`);
  print(`    pix_key     ${creds.pix_key}`);
  print(`    dashboard   ${email} / ${password}`);
  print('    balance     R$ 10.000,00 (sandbox top-up)');
  print('    recebedor   CNPJ 11.222.333/0001-81, Av. Paulista, São Paulo/SP (change it in Configurações)');
  print('');
  return true;
}
