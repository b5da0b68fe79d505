// The API Pix tests' support, in one place: the running server they share per file with its tokens and a
// second account (pixApiHarness), the token request over HTTP Basic, one /v2 call, txids, charges created
// as a client creates them, and the ledger audit after money moved.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { addDays, localDay } from '../../server/domain/local-time';
import type { Services } from '../../server/services';
import { peek } from './peek';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from './server';
import { makeAccount, serverServices } from './services';
import { startReceiver, type Receiver } from './webhook-receiver';

// ---------------------------------------------------------------------------------------------------
// Tokens and calls

/** The `Authorization` of POST /oauth/token: HTTP Basic with the client id and secret, form-encoded as RFC 6749 2.3.1 says. */
export const basicAuth = (clientId: string, clientSecret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

/**
 * POST /oauth/token (client credentials, `scope` or every scope of the client): its status and body, whatever
 * they are. On a connection of its own, closed after: a token taken in a file's `beforeAll` leaves no idle
 * kept-alive socket in fetch's pool for the file's first request to find closed by the server's idle timeout.
 */
export async function tokenRequest(url: string, clientId: string, clientSecret: string, scope?: string) {
  const body = `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`;
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(`${url}/oauth/token`, {
      method: 'POST', agent: false,
      headers: { authorization: basicAuth(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  return { status, json: JSON.parse(text) as { access_token: string; token_type: string; expires_in: number; scope: string; error?: string } };
}

/** A token of the API Pix from POST /oauth/token, with `scope` or every scope of the client; anything but 200 throws. */
export async function pixApiToken(url: string, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const res = await tokenRequest(url, clientId, clientSecret, scope);
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.access_token;
}

/**
 * One /v2 call with a token: status, headers and parsed body. A GET is sent again once when the server
 * closed the kept-alive socket as it was reused (its idle timeout passing while a busy test compiled a
 * validator): a read is safe to repeat; anything else is not retried.
 */
export async function v2(url: string, token: string, method: string, path: string, body?: unknown) {
  try {
    return await api(url, `/v2${path}`, { method, token, body });
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (method !== 'GET' || code !== 'UND_ERR_SOCKET') throw err;
    return api(url, `/v2${path}`, { method, token, body });
  }
}

/** A txid of the caller's own (26 to 35 of [a-zA-Z0-9]): `prefix` (letters and digits, to tell them apart in a failure) and random ones. */
export function aTxid(prefix = 'tx'): string {
  return `${prefix}${randomBytes(16).toString('hex')}`.slice(0, 35);
}

// ---------------------------------------------------------------------------------------------------
// Charges created over HTTP (PUT /v2/cob/{txid}, PUT /v2/cobv/{txid}), for tests of paying them and of what follows

export interface CreatedCharge { txid: string; body: Record<string, unknown> }

type Devedor = { cpf?: string; cnpj?: string; nome: string; email?: string };

async function put(url: string, token: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await api(url, path, { token, method: 'PUT', body });
  if (res.status !== 201) throw new Error(`PUT ${path}: ${res.status} ${res.text}`);
  return res.json;
}

/** An ATIVA cob of `original` ("123.45") expiring `expiracao` seconds from now, created with PUT /v2/cob/{txid}. */
export async function putCob(url: string, token: string, o: { chave: string; original: string; expiracao?: number; devedor?: Devedor }): Promise<CreatedCharge> {
  const txid = aTxid();
  const body = await put(url, token, `/v2/cob/${txid}`, {
    calendario: { expiracao: o.expiracao ?? 3600 }, ...(o.devedor ? { devedor: o.devedor } : {}), valor: { original: o.original }, chave: o.chave,
  });
  return { txid, body };
}

/** An ATIVA cobv with `valor` as the wire shape, created with PUT /v2/cobv/{txid}. */
export async function putCobv(url: string, token: string, o: {
  chave: string; valor: Record<string, unknown> & { original: string }; dataDeVencimento: string; validadeAposVencimento?: number; devedor: Devedor;
}): Promise<CreatedCharge> {
  const txid = aTxid();
  const body = await put(url, token, `/v2/cobv/${txid}`, {
    calendario: { dataDeVencimento: o.dataDeVencimento, validadeAposVencimento: o.validadeAposVencimento ?? 30 },
    devedor: o.devedor, valor: o.valor, chave: o.chave,
  });
  return { txid, body };
}

/** Today in São Paulo, and `n` days from it. */
export const today = () => localDay(new Date());
export const daysFromToday = (n: number) => addDays(today(), n);

/** The ledger audit: every line sums to zero and every book's balance is the sum of its lines. */
export const ledgerAudit = (databasePath: string) => peek(databasePath, async (db) => ({
  total: Number((await db.get<{ s: number }>('SELECT coalesce(sum(amount), 0) AS s FROM ledger_lines'))!.s),
  mismatched: Number((await db.get<{ n: number }>('SELECT count(*) AS n FROM ledger_books b WHERE b.balance <> coalesce((SELECT sum(amount) FROM ledger_lines l WHERE l.book_id = b.id), 0)'))!.n),
}));

// ---------------------------------------------------------------------------------------------------
// The harness

/** A second account, for "another account's … is 404 like an unknown one". */
export interface OtherAccount { accountId: string; pixKey: string; clientId: string; clientSecret: string; token: string }

export interface PixApiHarness {
  /** The running server (the demo account's credentials in `srv.demo`). */
  srv: RunningServer;
  /** Services over the server's database, from this process (direct reads, accounts, jobs queued by hand). */
  side: Services;
  /** An API Pix token of the demo account with every scope. */
  token: string;
  /** The demo account's gateway API token (GET /balance), when asked for. */
  gateway: string;
  /** A second account with its own token, when asked for. */
  other: OtherAccount;
  /** A webhook receiver on 127.0.0.1, when asked for. */
  receiver: Receiver;
}

/** A port free right now, so the server can be told its own public base (the BR Code's location) before it starts. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const p = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return p;
}

/** Starts the server; with `ownPublicBase`, on a port chosen first and named as PIX_PUBLIC_BASE (another process may take it meanwhile: then another). */
async function start(env: Record<string, string>, ownPublicBase: boolean): Promise<RunningServer> {
  if (!ownPublicBase) return startServer({ env });
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startServer({ env: { ...env, PORT: String(port), PIX_PUBLIC_BASE: `127.0.0.1:${port}` } });
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(err))) throw err;
    }
  }
}

/**
 * The running server an API Pix test file shares, set up in the file's `beforeAll` and torn down in its
 * `afterAll` (registered here: call it at the top of the file). Its fields are there once `beforeAll` ran;
 * `gateway`, `other` and `receiver` only when asked for.
 */
export function pixApiHarness(o: { env?: Record<string, string>; ownPublicBase?: boolean; gateway?: boolean; other?: boolean; receiver?: boolean } = {}): PixApiHarness {
  const h = {} as PixApiHarness;
  beforeAll(async () => {
    h.srv = await start(o.env ?? {}, o.ownPublicBase ?? false);
    h.side = serverServices(h.srv.databasePath);
    h.token = await pixApiToken(h.srv.url, h.srv.demo.pixClientId, h.srv.demo.pixClientSecret);
    if (o.gateway) h.gateway = await accessToken(h.srv.url, h.srv.demo.code, h.srv.demo.token);
    if (o.other) {
      const acc = await makeAccount(h.side, { name: 'Outra Loja' });
      h.other = {
        accountId: acc.account_id, pixKey: acc.pix_key, clientId: acc.pix_client_id, clientSecret: acc.pix_client_secret,
        token: await pixApiToken(h.srv.url, acc.pix_client_id, acc.pix_client_secret),
      };
    }
    if (o.receiver) h.receiver = await startReceiver();
  }, SERVER_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await h.receiver?.close();
    await h.side?.db.close();
    await h.srv?.stop();
    if (h.srv) removeDir(h.srv.dir);
  });
  return h;
}
