import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../errors';
import { cobPayloadJws, cobvPayloadJws, payloadJwks, type CobVPayloadQuery } from '../domain/pix-api/payloads';
import { noteRoute, requestRecordOf } from '../observability/request-context';
import type { Services } from '../services';
import { presentRestError, type RestAnswer } from './presenter';

/**
 * The payload locations of dynamic QR codes and the keys that check them: plain GETs a payer's bank makes
 * without any credential, answering a compact JWS (`application/jose`) or a JWKS, not a procedure's JSON.
 * Their failures are the yaml's problems (CobPayloadNaoEncontrado, CobPayloadOperacaoInvalida).
 */
export const PIX_PAYLOAD_PREFIX = '/qr/v2/';
export const PIX_JWKS_PATH = '/qr/v2/jwks';

const ROUTE_COB = '/qr/v2/{pixUrlAccessToken}';
const ROUTE_COBV = '/qr/v2/cobv/{pixUrlAccessToken}';

export function ownsPixPayloadPath(pathname: string): boolean {
  return pathname.startsWith(PIX_PAYLOAD_PREFIX);
}

/** One request to /qr/v2/…, from method and URL to the answer; transport-neutral. */
export async function answerPixPayloadRequest(s: Services, req: { method: string; url: URL; requestId?: string }): Promise<RestAnswer & { route: string }> {
  const path = req.url.pathname;
  const rest = path.slice(PIX_PAYLOAD_PREFIX.length);
  const route = path === PIX_JWKS_PATH ? PIX_JWKS_PATH : rest.startsWith('cobv/') ? ROUTE_COBV : ROUTE_COB;
  const ctx = { pixApi: { invalid: 'CobPayloadOperacaoInvalida' as const }, requestId: req.requestId };
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const refused = presentRestError(new DomainError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`), 'pix-api', s.clock.now(), ctx);
      return { ...refused, headers: { ...refused.headers, allow: 'GET, HEAD' }, route };
    }
    if (route === PIX_JWKS_PATH) {
      // the key changes only when the operator replaces it: banks may keep it a while
      const body = JSON.stringify(await payloadJwks(s));
      return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, body, route };
    }
    let jws: string;
    if (route === ROUTE_COBV) {
      const token = rest.slice('cobv/'.length);
      const q = req.url.searchParams;
      const query: CobVPayloadQuery = {};
      const dpp = q.get('DPP');
      const codMun = q.get('codMun');
      if (dpp !== null) query.DPP = dpp;
      if (codMun !== null) query.codMun = codMun;
      jws = await cobvPayloadJws(s, token, query);
    } else {
      jws = await cobPayloadJws(s, rest);
    }
    // presented now (calendario.apresentacao) and with the charge's current state: never cached
    return { status: 200, headers: { 'content-type': 'application/jose', 'cache-control': 'no-store' }, body: jws, route };
  } catch (err) {
    return { ...presentRestError(err, 'pix-api', s.clock.now(), ctx), route };
  }
}

/** GET /qr/v2/… over node:http. */
export async function servePixPayloadRequest(s: Services, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const record = requestRecordOf(req);
  const method = (req.method ?? 'GET').toUpperCase();
  const out = await answerPixPayloadRequest(s, { method, url: new URL(req.url ?? '/', 'http://localhost'), requestId: record?.id });
  noteRoute(record, out.route);
  const body = out.body ?? '';
  res.writeHead(out.status, { ...out.headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(method === 'HEAD' ? undefined : body);
  // nothing of a request body is read: drain whatever was sent
  req.resume();
}
