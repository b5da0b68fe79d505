import { api } from './server';

/** A token of the API Pix from POST /oauth/token (client credentials, HTTP Basic), with `scope` or every scope of the client. */
export async function pixApiToken(url: string, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
  const body = `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`;
  const res = await fetch(`${url}/oauth/token`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
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

/** A txid of the caller's own (26 to 35 of [a-zA-Z0-9]), unique per call. */
let n = 0;
export function aTxid(prefix = 'tx'): string {
  n += 1;
  return `${prefix}${Date.now().toString(36)}${n}`.padEnd(30, '0').replace(/[^a-zA-Z0-9]/g, '0').slice(0, 35);
}
