// The REST requests the suites send to refuse (and a few they expect to pass), as plain data, so the
// same set can be replayed through any edge: the old-vs-new diff (scripts/edge-diff.ts, until the
// old edge went) and the in-process REST test against the answers frozen from the old edge.
import type { Services } from '../../server/services';
import { createAccount } from '../../server/domain/accounts';
import { card, txBody } from './transactions';

/** Who sends the request: the first account's bearer, the webhook API headers, another account, nobody. */
export type Sender = 'bearer' | 'webhook' | 'other-bearer' | 'other-webhook' | 'none';

export interface HostileRequest {
  name: string;
  method: string;
  /** May hold {wd}, {batch}, {txn}, {wh}, {dlv}: ids made by the setup requests. */
  path: string;
  as: Sender;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent byte for byte (with content-type application/json unless headers say otherwise). */
  raw?: string;
}

const wdBody = (o: Record<string, unknown> = {}) => ({
  amount: 250_000, key: 'fulano@example.com', key_type: 'EMAIL', description: 'Saque',
  details: { name: 'Fulano de Tal', document: '529.982.247-25' }, ...o,
});

const hook = (o: Record<string, unknown> = {}) => ({ url: 'http://127.0.0.1:9/hook', events: ['withdraw'], ...o });
const JSON_CT = { 'content-type': 'application/json' };

/** Requests that create what the hostile ones refer to; their answers are compared too. */
export const SETUP: (HostileRequest & { capture?: Record<string, string> })[] = [
  { name: 'setup withdrawal', method: 'POST', path: '/withdraw/pix', as: 'bearer', body: wdBody({ amount: 500, external_ref: 'shared-ref' }), headers: { 'idempotency-key': 'setup-wd' }, capture: { wd: 'data.0.identifier' } },
  { name: 'setup withdrawal 2', method: 'POST', path: '/withdraw/pix', as: 'bearer', body: wdBody({ amount: 600, external_ref: 'other-ref' }), capture: { batch: 'data.0.identifier' } },
  { name: 'setup transaction', method: 'POST', path: '/transaction', as: 'bearer', body: txBody('PIX', { externalRef: 'tx-ref' }), headers: { 'idempotency-key': 'setup-tx' }, capture: { txn: 'id' } },
  { name: 'setup webhook', method: 'POST', path: '/api/webhooks', as: 'webhook', body: hook(), headers: { 'idempotency-key': 'setup-wh' }, capture: { wh: 'content.magic_id' } },
];

const topup = (name: string, body: unknown): HostileRequest => ({ name: `topup ${name}`, method: 'POST', path: '/sandbox/topup', as: 'bearer', body });
const withdraw = (name: string, body: unknown, headers: Record<string, string> = {}): HostileRequest => ({ name: `withdraw ${name}`, method: 'POST', path: '/withdraw/pix', as: 'bearer', body, headers });
const charge = (name: string, body: unknown, headers: Record<string, string> = {}): HostileRequest => ({ name: `transaction ${name}`, method: 'POST', path: '/transaction', as: 'bearer', body, headers });
const webhook = (name: string, body: unknown, headers: Record<string, string> = { 'idempotency-key': `k-${name.replace(/ /g, '-')}` }): HostileRequest => ({ name: `webhook ${name}`, method: 'POST', path: '/api/webhooks', as: 'webhook', body, headers });

export const HOSTILE: HostileRequest[] = [
  // credentials
  { name: 'balance without token', method: 'GET', path: '/balance', as: 'none' },
  { name: 'balance bad bearer', method: 'GET', path: '/balance', as: 'none', headers: { authorization: 'Bearer at_nope' } },
  { name: 'balance Token scheme', method: 'GET', path: '/balance', as: 'none', headers: { authorization: 'Token x' } },
  { name: 'auth/token wrong', method: 'POST', path: '/auth/token', as: 'none', body: { code: 'cli_nope', token: 'sk_wrong' } },
  { name: 'auth/token missing fields', method: 'POST', path: '/auth/token', as: 'none', body: {} },
  { name: 'webhooks list no headers', method: 'GET', path: '/api/webhooks', as: 'none' },
  { name: 'webhooks list only api key', method: 'GET', path: '/api/webhooks', as: 'none', headers: { 'x-api-key': 'pk_nope' } },
  { name: 'webhooks list wrong pair', method: 'GET', path: '/api/webhooks', as: 'none', headers: { 'x-api-key': 'pk_nope', 'x-token': 'at_nope' } },
  { name: 'webhooks create no headers', method: 'POST', path: '/api/webhooks', as: 'none', body: hook(), headers: { 'idempotency-key': 'k401' } },
  { name: 'webhooks delete no headers', method: 'DELETE', path: '/api/webhooks/wh_x', as: 'none' },
  { name: 'webhooks with bearer only', method: 'GET', path: '/api/webhooks', as: 'bearer' },
  // bodies
  topup('string amount', { amount: '250' }),
  topup('boolean amount', { amount: true }),
  topup('fraction', { amount: 12.5 }),
  topup('1e20', { amount: 1e20 }),
  topup('zero', { amount: 0 }),
  topup('negative', { amount: -5 }),
  topup('missing', {}),
  topup('unknown field', { amount: 100, extra: 1 }),
  { name: 'topup malformed', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: '{"amount": 1', headers: JSON_CT },
  { name: 'topup array', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: '[1,2]', headers: JSON_CT },
  { name: 'topup string', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: '"x"', headers: JSON_CT },
  { name: 'topup deep', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: JSON.stringify({ amount: 1, n: JSON.parse('['.repeat(40) + ']'.repeat(40)) }), headers: JSON_CT },
  { name: 'topup form', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: 'amount=100', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  { name: 'topup 64KiB', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: JSON.stringify({ amount: 100, pad: 'x'.repeat(64 * 1024) }), headers: JSON_CT },
  { name: 'topup no content-type', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: '{"amount":1}', headers: { 'content-type': '' } },
  { name: 'topup vnd+json', method: 'POST', path: '/sandbox/topup', as: 'bearer', raw: '{"amount":"1"}', headers: { 'content-type': 'application/vnd.api+json' } },
  // routing
  { name: 'unknown /api path', method: 'GET', path: '/api/nothing-here', as: 'bearer' },
  { name: 'unknown webhooks subpath', method: 'GET', path: '/api/webhooks/x/y/z', as: 'webhook' },
  { name: 'DELETE /balance', method: 'DELETE', path: '/balance', as: 'bearer' },
  { name: 'PUT /withdraw/pix', method: 'PUT', path: '/withdraw/pix', as: 'bearer', body: wdBody() },
  { name: 'HEAD /balance', method: 'HEAD', path: '/balance', as: 'bearer' },
  { name: 'GET /withdraw/pix', method: 'GET', path: '/withdraw/pix', as: 'bearer' },
  { name: 'trailing slash balance', method: 'GET', path: '/balance/', as: 'bearer' },
  { name: 'upper-case path', method: 'GET', path: '/BALANCE', as: 'bearer' },
  { name: 'PATCH webhooks', method: 'PATCH', path: '/api/webhooks', as: 'webhook', body: hook() },
  { name: 'balance with query junk', method: 'GET', path: '/balance?x=1', as: 'bearer' },
  { name: 'oversized body on unknown path', method: 'POST', path: '/api/nothing', as: 'bearer', raw: 'x'.repeat(70 * 1024), headers: JSON_CT },
  { name: 'form body on webhooks', method: 'POST', path: '/api/webhooks', as: 'webhook', raw: 'url=x', headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'kf' } },
  // withdrawals
  withdraw('zero', wdBody({ amount: 0 })),
  withdraw('negative', wdBody({ amount: -100 })),
  withdraw('fraction', wdBody({ amount: 12.5 })),
  withdraw('string amount', wdBody({ amount: '250' })),
  withdraw('boolean amount', wdBody({ amount: true })),
  withdraw('null amount', wdBody({ amount: null })),
  withdraw('missing amount', { ...wdBody(), amount: undefined }),
  { name: 'withdraw 1e20', method: 'POST', path: '/withdraw/pix', as: 'bearer', raw: JSON.stringify(wdBody()).replace('250000', '1e20'), headers: JSON_CT },
  withdraw('over limit', wdBody({ amount: 100_000_000_001 })),
  withdraw('over batch cap', wdBody({ amount: 100_000 * 1000 + 1 })),
  withdraw('unknown key_type', wdBody({ key_type: 'PIX' })),
  withdraw('lower key_type', wdBody({ key_type: 'email' })),
  withdraw('bad CPF key', wdBody({ key: '123.456.789-00', key_type: 'CPF' })),
  withdraw('repeated CPF key', wdBody({ key: '111.111.111-11', key_type: 'CPF' })),
  withdraw('CNPJ key that is CPF', wdBody({ key: '52998224725', key_type: 'CNPJ' })),
  withdraw('bad email key', wdBody({ key: 'fulano@', key_type: 'EMAIL' })),
  withdraw('long email key', wdBody({ key: `${'a'.repeat(71)}@ex.com` })),
  withdraw('phone without +55', wdBody({ key: '(11) 98765-4321', key_type: 'PHONE' })),
  withdraw('EVP not uuid', wdBody({ key: '1234', key_type: 'EVP' })),
  withdraw('empty key', wdBody({ key: '' })),
  withdraw('missing details', { ...wdBody(), details: undefined }),
  withdraw('details string', wdBody({ details: 'Fulano' })),
  withdraw('details no name', wdBody({ details: { document: '52998224725' } })),
  withdraw('bad document', wdBody({ details: { name: 'F', document: '529.982.247-26' } })),
  withdraw('unknown in details', wdBody({ details: { name: 'F', document: '52998224725', bank: '001' } })),
  withdraw('long description', wdBody({ description: 'd'.repeat(141) })),
  withdraw('long name', wdBody({ details: { name: 'n'.repeat(141), document: '52998224725' } })),
  withdraw('long external_ref', wdBody({ external_ref: 'r'.repeat(256) })),
  withdraw('javascript postback', wdBody({ postback: 'javascript:alert(1)' })),
  withdraw('long postback', wdBody({ postback: `https://example.com/${'p'.repeat(2040)}` })),
  withdraw('unknown field', wdBody({ callback: 'x' })),
  withdraw('missing key', { ...wdBody(), key: undefined }),
  withdraw('missing key_type', { ...wdBody(), key_type: undefined }),
  withdraw('long key', wdBody({ key: 'k'.repeat(256), key_type: 'EVP' })),
  withdraw('numeric key', wdBody({ key: 52998224725, key_type: 'CPF' })),
  withdraw('null details', wdBody({ details: null })),
  withdraw('no document', wdBody({ details: { name: 'F' } })),
  withdraw('long document', wdBody({ details: { name: 'F', document: '5'.repeat(33) } })),
  withdraw('numeric description', wdBody({ description: 5 })),
  withdraw('empty external_ref', wdBody({ external_ref: '' })),
  withdraw('object amount', wdBody({ amount: { value: 250 } })),
  { name: 'withdraw JSON null', method: 'POST', path: '/withdraw/pix', as: 'bearer', raw: 'null', headers: JSON_CT },
  { name: 'withdraw empty body', method: 'POST', path: '/withdraw/pix', as: 'bearer', raw: '', headers: JSON_CT },
  { name: 'withdraw text/plain', method: 'POST', path: '/withdraw/pix', as: 'bearer', raw: JSON.stringify(wdBody()), headers: { 'content-type': 'text/plain' } },
  withdraw('insufficient funds', wdBody({ amount: 90_000_000 })),
  withdraw('long idempotency key', wdBody(), { 'idempotency-key': 'x'.repeat(256) }),
  withdraw('idempotency key with a space', wdBody(), { 'idempotency-key': 'chave x' }),
  withdraw('idempotent replay', wdBody({ amount: 500, external_ref: 'shared-ref' }), { 'idempotency-key': 'setup-wd' }),
  withdraw('idempotency key reuse', wdBody({ amount: 501, external_ref: 'shared-ref' }), { 'idempotency-key': 'setup-wd' }),
  withdraw('duplicate external_ref', wdBody({ amount: 500, external_ref: 'shared-ref' })),
  // withdrawal query
  { name: 'get withdraw none', method: 'GET', path: '/withdraw', as: 'bearer' },
  { name: 'get withdraw unknown id', method: 'GET', path: '/withdraw?identifier=wd_unknown', as: 'bearer' },
  { name: 'get withdraw unknown batch', method: 'GET', path: '/withdraw?identifier=wdb_unknown', as: 'bearer' },
  { name: 'get withdraw unknown ref', method: 'GET', path: '/withdraw?external_ref=nope', as: 'bearer' },
  { name: 'get withdraw disagreeing', method: 'GET', path: '/withdraw?identifier={batch}&external_ref=shared-ref', as: 'bearer' },
  { name: 'get withdraw other account', method: 'GET', path: '/withdraw?identifier={wd}', as: 'other-bearer' },
  { name: 'get withdraw no auth', method: 'GET', path: '/withdraw?identifier={wd}', as: 'none' },
  { name: 'get withdraw extra param', method: 'GET', path: '/withdraw?identifier={wd}&extra=1', as: 'bearer' },
  { name: 'get withdraw repeated param', method: 'GET', path: '/withdraw?identifier={wd}&identifier={batch}', as: 'bearer' },
  { name: 'get withdraw empty param', method: 'GET', path: '/withdraw?identifier=', as: 'bearer' },
  { name: 'get withdraw ok', method: 'GET', path: '/withdraw?identifier={wd}', as: 'bearer' },
  // transactions
  charge('string amount', txBody('PIX', { amount: '2500' })),
  charge('amount != items', txBody('PIX', { amount: 2600 })),
  charge('no items', txBody('PIX', { items: [] })),
  charge('string unitPrice', txBody('PIX', { items: [{ title: 'x', unitPrice: '2500', quantity: 1 }] })),
  charge('string quantity', txBody('PIX', { items: [{ title: 'x', unitPrice: 2500, quantity: '1' }] })),
  charge('string tangible', txBody('PIX', { items: [{ title: 'x', unitPrice: 2500, quantity: 1, tangible: 'true' }] })),
  charge('bad document', txBody('PIX', { customer: { ...txBody().customer, document: '111.111.111-11' } })),
  charge('expired card', txBody('CARD', { card: card({ expiration_month: '01', expiration_year: '2020' }) })),
  charge('card missing', txBody('CARD', { card: undefined })),
  charge('24 installments', txBody('CARD', { installments: 24 })),
  charge('string installments', txBody('CARD', { installments: '2' })),
  charge('card on PIX', txBody('PIX', { card: card() })),
  charge('unknown field', txBody('PIX', { coupon: 'X' })),
  charge('fraction', txBody('PIX', { amount: 2500.5 })),
  charge('bad CNPJ', txBody('PIX', { customer: { ...txBody().customer, document: '11.222.333/0001-80' } })),
  charge('no email', txBody('PIX', { customer: { ...txBody().customer, email: undefined } })),
  charge('Luhn', txBody('CARD', { card: card({ number: '4111111111111112' }) })),
  charge('amex cvv', txBody('CARD', { card: card({ number: '378282246310005', cvv: '123' }) })),
  charge('0 installments', txBody('CARD', { installments: 0 })),
  charge('card on INVOICE', txBody('INVOICE', { card: card() })),
  charge('installments on PIX', txBody('PIX', { installments: 2 })),
  charge('unknown customer field', txBody('PIX', { customer: { ...txBody().customer, age: 30 } })),
  charge('unknown card field', txBody('CARD', { card: { ...card(), pin: '1234' } })),
  charge('replay', txBody('PIX', { externalRef: 'tx-ref' }), { 'idempotency-key': 'setup-tx' }),
  charge('key reuse', txBody('PIX', { externalRef: 'tx-ref-2' }), { 'idempotency-key': 'setup-tx' }),
  charge('duplicate externalRef', txBody('PIX', { externalRef: 'tx-ref' })),
  { name: 'get transaction none', method: 'GET', path: '/transaction', as: 'bearer' },
  { name: 'get transaction unknown', method: 'GET', path: '/transaction?id=txn_nope', as: 'bearer' },
  { name: 'get transaction other account', method: 'GET', path: '/transaction?id={txn}', as: 'other-bearer' },
  { name: 'get transaction ok', method: 'GET', path: '/transaction?id={txn}', as: 'bearer' },
  { name: 'POST form of the query', method: 'POST', path: '/transaction?id={txn}', as: 'bearer' },
  { name: 'POST form of the query with {}', method: 'POST', path: '/transaction?external_ref=tx-ref', as: 'bearer', body: {} },
  { name: 'POST form unknown', method: 'POST', path: '/transaction?id=txn_nope', as: 'bearer', raw: '', headers: JSON_CT },
  { name: 'POST /transaction empty body no query', method: 'POST', path: '/transaction', as: 'bearer', body: {} },
  { name: 'sandbox pay unknown', method: 'POST', path: '/sandbox/transactions/txn_nope/pay', as: 'bearer', body: {} },
  { name: 'sandbox pay other account', method: 'POST', path: '/sandbox/transactions/{txn}/pay', as: 'other-bearer', body: {} },
  { name: 'sandbox pay unknown field', method: 'POST', path: '/sandbox/transactions/{txn}/pay', as: 'bearer', body: { x: 1 } },
  { name: 'dispute on PIX', method: 'POST', path: '/sandbox/transactions/{txn}/dispute', as: 'bearer', body: {} },
  { name: 'resolve bad outcome', method: 'POST', path: '/sandbox/disputes/dsp_x/maybe', as: 'bearer', body: {} },
  { name: 'resolve unknown dispute', method: 'POST', path: '/sandbox/disputes/dsp_x/won', as: 'bearer', body: {} },
  // webhook API
  webhook('no idempotency key', hook(), {}),
  webhook('empty events', hook({ events: [] })),
  webhook('repeated events', hook({ events: ['withdraw', 'withdraw'] })),
  webhook('unknown event', hook({ events: ['payout'] })),
  webhook('events string', hook({ events: 'withdraw' })),
  webhook('javascript url', hook({ url: 'javascript:alert(1)' })),
  webhook('ftp url', hook({ url: 'ftp://example.com/' })),
  webhook('numeric url', hook({ url: 42 })),
  webhook('unknown field', hook({ active: false })),
  webhook('replay', hook(), { 'idempotency-key': 'setup-wh' }),
  webhook('key reuse', hook({ events: ['dispute'] }), { 'idempotency-key': 'setup-wh' }),
  { name: 'webhook malformed', method: 'POST', path: '/api/webhooks', as: 'webhook', raw: '{"url":', headers: { ...JSON_CT, 'idempotency-key': 'km' } },
  { name: 'webhook 64KiB', method: 'POST', path: '/api/webhooks', as: 'webhook', raw: JSON.stringify(hook({ pad: 'x'.repeat(70 * 1024) })), headers: { ...JSON_CT, 'idempotency-key': 'kb' } },
  { name: 'webhook delete other account', method: 'DELETE', path: '/api/webhooks/{wh}', as: 'other-webhook' },
  { name: 'webhook delete unknown', method: 'DELETE', path: '/api/webhooks/wh_nope', as: 'webhook' },
  { name: 'webhook delete too long id', method: 'DELETE', path: `/api/webhooks/${'w'.repeat(65)}`, as: 'webhook' },
  { name: 'webhook list extra query', method: 'GET', path: '/api/webhooks?x=1', as: 'webhook' },
  { name: 'resend unknown', method: 'POST', path: '/api/webhooks/deliveries/dlv_nope/resend', as: 'webhook', body: {} },
  { name: 'resend with body field', method: 'POST', path: '/api/webhooks/deliveries/dlv_nope/resend', as: 'webhook', body: { now: true } },
  { name: 'webhook list ok', method: 'GET', path: '/api/webhooks', as: 'webhook' },
  { name: 'revoke by webhook creds', method: 'POST', path: '/auth/revoke', as: 'none', body: {} },
];

/** Fills {wd}-style placeholders. */
export function fillPath(path: string, ids: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, k) => ids[k] ?? `missing-${k}`);
}

/** Replaces what differs between two runs (times, generated ids, secrets) so answers compare. */
export function normalizeAnswer(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
    .replace(/\b(acc|tok|evt|wd|wdb|txn|inv|cus|dsp|wh|dlv|lje)_[0-9a-z]{8,}\b/g, '$1_<id>')
    .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_<secret>')
    .replace(/"qrcode":"[^"]*"/g, '"qrcode":"<brcode>"')
    .replace(/"identifier":"[^"]*"/g, '"identifier":"<id>"');
}

/** What a client reads of an answer. `connection` only when the server closes it. */
export interface Observed { name: string; status: number; headers: Record<string, string>; body: string }

export type Send = (method: string, path: string, headers: Record<string, string>, body: string | undefined) =>
  Promise<{ status: number; headers: Headers; text: string }>;

const COMPARED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'idempotent-replayed', 'connection'];

/** Two accounts, then SETUP and HOSTILE in order through `send`; the answers normalised. */
export async function runHostileCorpus(services: Services, send: Send): Promise<Observed[]> {
  const deps = services;
  const [a, b] = [await createAccount(deps, { name: 'A', balance: 10_000_000 }), await createAccount(deps, { name: 'B', balance: 10_000 })];
  const token = async (c: { code: string; token: string }) =>
    (JSON.parse((await send('POST', '/auth/token', { 'content-type': 'application/json' }, JSON.stringify({ code: c.code, token: c.token }))).text) as { access_token: string }).access_token;
  const [ta, tb] = [await token(a), await token(b)];
  const who: Record<Sender, Record<string, string>> = {
    bearer: { authorization: `Bearer ${ta}` },
    'other-bearer': { authorization: `Bearer ${tb}` },
    webhook: { 'x-api-key': a.api_key, 'x-token': ta },
    'other-webhook': { 'x-api-key': b.api_key, 'x-token': tb },
    none: {},
  };
  const ids: Record<string, string> = {};
  const out: Observed[] = [];
  const one = async (r: HostileRequest) => {
    const headers: Record<string, string> = { ...who[r.as] };
    let body: string | undefined = r.raw;
    if (r.body !== undefined) { body = JSON.stringify(r.body); headers['content-type'] = 'application/json'; }
    Object.assign(headers, r.headers ?? {});
    if (headers['content-type'] === '') delete headers['content-type'];
    const res = await send(r.method, fillPath(r.path, ids), headers, body);
    const seen: Record<string, string> = {};
    for (const h of COMPARED_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null && !(h === 'connection' && v !== 'close')) seen[h] = v;
    }
    out.push({ name: r.name, status: res.status, headers: seen, body: normalizeAnswer(res.text) });
    return res.text;
  };
  for (const r of SETUP) {
    const json = JSON.parse(await one(r));
    for (const [k, path] of Object.entries(r.capture ?? {})) ids[k] = path.split('.').reduce((o, p) => o?.[p], json);
  }
  for (const r of HOSTILE) await one(r);
  return out;
}
