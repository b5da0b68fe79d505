import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../server/services';
import { expectBcbResponse } from '../support/bcb-contract';
import { peek } from '../support/peek';
import { aTxid, pixApiToken, v2 } from '../support/pix-api-harness';
import { seedPixCharge } from '../support/pix-charge-seed';
import { accessToken, api, removeDir, runTsx, SERVER_TEST_TIMEOUT_MS, serverEnv, startServer, type RunningServer } from '../support/server';
import { makeAccount, serverServices } from '../support/services';

/**
 * The account's receiver data (the recebedor of its cobv) over HTTP against the running server: a cobv of an
 * account without it is refused (PUT and PATCH, 400 CobVOperacaoInvalida, nothing stored); registered through
 * account.setReceiver (a signed-in person, checked, audited), a cobv carries it as the yaml wants; the demo
 * account and account:create --document … have it from the start.
 */
let srv: RunningServer;
let beside: Services;
const PASSWORD = 'receiver-test-password-1';
let shop: { accountId: string; email: string; pixKey: string; token: string };

beforeAll(async () => {
  srv = await startServer();
  beside = serverServices(srv.databasePath);
  const acc = await makeAccount(beside, { name: 'Loja Sem Recebedor', email: 'loja@example.com', password: PASSWORD });
  shop = { accountId: acc.account_id, email: 'loja@example.com', pixKey: acc.pix_key, token: await pixApiToken(srv.url, acc.pix_client_id, acc.pix_client_secret) };
}, SERVER_TEST_TIMEOUT_MS);
afterAll(async () => {
  await beside?.db.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

async function signIn(email: string, password: string) {
  const res = await fetch(`${srv.url}/api/trpc/session.signIn`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.40' }, body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  const jar = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(';')[0].split('=') as [string, string]));
  return { cookie: `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`, 'x-csrf-token': jar.pp_csrf, 'x-forwarded-for': '192.0.2.40' };
}

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const cobvBody = (chave: string) => ({
  calendario: { dataDeVencimento: future(30), validadeAposVencimento: 30 },
  devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
  valor: { original: '150.00' },
  chave,
});

const counts = (accountId: string) => peek(srv.databasePath, async (db) => ({
  charges: (await db.all('SELECT id FROM pix_charges WHERE account_id = ?', accountId)).length,
  locations: (await db.all('SELECT id FROM pix_locations WHERE account_id = ?', accountId)).length,
  receivers: (await db.all('SELECT account_id FROM account_receivers WHERE account_id = ?', accountId)).length,
}));

describe('an account without receiver data', () => {
  it('PUT /v2/cobv is 400 CobVOperacaoInvalida saying to register the recebedor in the dashboard; nothing stored', async () => {
    const before = await counts(shop.accountId);
    expect(before.receivers).toBe(0);
    const txid = aTxid('norec');
    const r = await v2(srv.url, shop.token, 'PUT', `/cobv/${txid}`, cobvBody(shop.pixKey));
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/cobv/{txid}', 400, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida');
    expect(r.json.detail).toMatch(/recebedor.*CPF\/CNPJ.*endereço.*Configurações/);
    expect(await counts(shop.accountId)).toEqual(before);
    // a cob needs no recebedor
    expect((await v2(srv.url, shop.token, 'PUT', `/cob/${aTxid('cob')}`, { calendario: { expiracao: 3600 }, valor: { original: '1.00' }, chave: shop.pixKey })).status).toBe(201);
  });

  it('PATCH of a cobv it has (made before receiver data existed) is refused; its removal is not', async () => {
    const seeded = await seedPixCharge(beside, {
      accountId: shop.accountId, kind: 'cobv', chave: shop.pixKey, amount: 15000, dueDate: future(30),
      body: {
        calendario: { criacao: new Date().toISOString(), dataDeVencimento: future(30), validadeAposVencimento: 30 },
        devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
        recebedor: { nome: 'Loja Sem Recebedor', logradouro: '', cidade: 'SAO PAULO', uf: '', cep: '' },
        valor: { original: '150.00' },
      },
    });
    const r = await v2(srv.url, shop.token, 'PATCH', `/cobv/${seeded.txid}`, { valor: { original: '160.00' } });
    expect(r.status).toBe(400);
    expectBcbResponse('PATCH', '/cobv/{txid}', 400, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida');
    expect(r.json.detail).toContain('Configurações');
    const revisions = await peek(srv.databasePath, (db) => db.all('SELECT revisao FROM pix_charge_revisions WHERE charge_id = ?', seeded.chargeId));
    expect(revisions).toHaveLength(0);
    const removed = await v2(srv.url, shop.token, 'PATCH', `/cobv/${seeded.txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 1 });
  });
});

describe('account.receiver and account.setReceiver', () => {
  it('bad input: 400 naming each wrong field, nothing stored', async () => {
    const session = await signIn(shop.email, PASSWORD);
    const r = await api(srv.url, '/api/trpc/account.setReceiver', {
      headers: session, body: { document: '529.982.247-24', name: 'Loja', street: 'Rua A, 1', city: 'Recife', uf: 'XX', cep: '5000' },
    });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/document/);
    expect(r.text).toMatch(/uf/);
    expect(r.text).toMatch(/cep/);
    expect((await counts(shop.accountId)).receivers).toBe(0);
    const got = await api(srv.url, '/api/trpc/account.receiver', { headers: session });
    expect(got.json.result.data).toBeNull();
  });

  it('a bearer token of the merchant API cannot set it (a signed-in person only)', async () => {
    const r = await api(srv.url, '/api/trpc/account.setReceiver', {
      token: await accessToken(srv.url, srv.demo.code, srv.demo.token), body: { document: '52998224725', name: 'X', street: 'Rua A, 1', city: 'Recife', uf: 'PE', cep: '50000000' },
    });
    expect([401, 403]).toContain(r.status);
    expect((await counts(srv.demo.accountId)).receivers).toBe(1);
  });

  it('registered (a CPF, punctuated): normalised, audited; then a cobv carries it, as the yaml wants, and a revision too', async () => {
    const session = await signIn(shop.email, PASSWORD);
    const set = await api(srv.url, '/api/trpc/account.setReceiver', {
      headers: session, body: { document: '529.982.247-25', name: 'Maria da Loja', street: 'Rua da Aurora, 100', city: 'Recife', uf: 'pe', cep: '50050-000' },
    });
    expect(set.status).toBe(200);
    expect(set.json.result.data).toMatchObject({ document: '52998224725', name: 'Maria da Loja', trade_name: null, street: 'Rua da Aurora, 100', city: 'Recife', uf: 'PE', cep: '50050000' });
    expect((await api(srv.url, '/api/trpc/account.receiver', { headers: session })).json.result.data).toEqual(set.json.result.data);
    const trail = await api(srv.url, `/api/trpc/dashboard.auditTrail?input=${encodeURIComponent(JSON.stringify({}))}`, { headers: session });
    expect(trail.json.result.data.data[0]).toMatchObject({ action: 'receiver.update', actor_email: shop.email });

    const txid = aTxid('withrec');
    const r = await v2(srv.url, shop.token, 'PUT', `/cobv/${txid}`, cobvBody(shop.pixKey));
    expect(r.status).toBe(201);
    expectBcbResponse('PUT', '/cobv/{txid}', 201, r.json);
    expect(r.json.recebedor).toEqual({ cpf: '52998224725', nome: 'Maria da Loja', logradouro: 'Rua da Aurora, 100', cidade: 'Recife', uf: 'PE', cep: '50050000' });

    // a change of the receiver data reaches the next revision, not the charge as it was
    const changed = await api(srv.url, '/api/trpc/account.setReceiver', {
      headers: session, body: { document: '11.222.333/0001-81', name: 'Loja da Maria Ltda', trade_name: 'Loja da Maria', street: 'Rua do Sol, 5', city: 'Olinda', uf: 'PE', cep: '53020000' },
    });
    expect(changed.status).toBe(200);
    expect((await v2(srv.url, shop.token, 'GET', `/cobv/${txid}`)).json.recebedor).toEqual(r.json.recebedor);
    const revised = await v2(srv.url, shop.token, 'PATCH', `/cobv/${txid}`, { valor: { original: '151.00' } });
    expect(revised.status).toBe(200);
    expectBcbResponse('PATCH', '/cobv/{txid}', 200, revised.json);
    expect(revised.json.recebedor).toEqual({ cnpj: '11222333000181', nome: 'Loja da Maria Ltda', nomeFantasia: 'Loja da Maria', logradouro: 'Rua do Sol, 5', cidade: 'Olinda', uf: 'PE', cep: '53020000' });
  });
});

describe('receiver data from the start', () => {
  it('the demo account has a test CNPJ and an address', async () => {
    const session = await signIn(srv.demo.email, srv.demo.password);
    expect((await api(srv.url, '/api/trpc/account.receiver', { headers: session })).json.result.data).toMatchObject({ document: '11222333000181', uf: 'SP', cep: '01310100' });
  });

  it('account:create --json with --document --legal-name --street --city --uf --cep', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const env = { ...process.env, ...serverEnv(srv.databasePath) };
    const r = await runTsx('scripts/account-create.ts', [
      '--name', 'Loja CLI', '--json', '--document', '11.222.333/0001-81', '--legal-name', 'Loja CLI Ltda', '--trade-name', 'Loja CLI',
      '--street', 'Rua B, 2', '--city', 'Curitiba', '--uf', 'PR', '--cep', '80010-000',
    ], env);
    expect(r.code, r.stderr).toBe(0);
    const creds = JSON.parse(r.stdout.trim());
    const row = await peek(srv.databasePath, (db) => db.all('SELECT document, name, trade_name, street, city, uf, cep FROM account_receivers WHERE account_id = ?', creds.account_id));
    expect(row).toEqual([{ document: '11222333000181', name: 'Loja CLI Ltda', trade_name: 'Loja CLI', street: 'Rua B, 2', city: 'Curitiba', uf: 'PR', cep: '80010000' }]);
    const token = await pixApiToken(srv.url, creds.pix_client_id, creds.pix_client_secret);
    const cobv = await v2(srv.url, token, 'PUT', `/cobv/${aTxid('cli')}`, cobvBody(creds.pix_key));
    expect(cobv.status).toBe(201);
    expect(cobv.json.recebedor).toMatchObject({ cnpj: '11222333000181', nomeFantasia: 'Loja CLI', cidade: 'Curitiba' });

    // a bad UF: exit 2 naming it, no account made; options that go together
    const bad = await runTsx('scripts/account-create.ts', ['--name', 'Loja Ruim', '--json', '--document', '11222333000181', '--legal-name', 'X', '--street', 'R', '--city', 'C', '--uf', 'ZZ', '--cep', '80010000'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/uf/);
    const partial = await runTsx('scripts/account-create.ts', ['--name', 'Loja Meia', '--document', '11222333000181'], env);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toMatch(/go together/);
    const made = await peek(srv.databasePath, (db) => db.all("SELECT id FROM accounts WHERE name IN ('Loja Ruim', 'Loja Meia')"));
    expect(made).toEqual([]);
  });
});
