import { connect } from 'node:net';

/** Request targets a client (or an attacker) can put on the request line; each must be a 4xx. */
export const ODD_TARGETS = [
  'OPTIONS * HTTP/1.1',
  'GET http://evil.example/balance HTTP/1.1',
  'GET https://evil.example/ HTTP/1.1',
  'GET //evil.example/ HTTP/1.1',
  'GET //evil.example/balance HTTP/1.1',
  'GET /%E0%A4%A HTTP/1.1',
  'GET /balance%00 HTTP/1.1',
  'GET evil.example:443 HTTP/1.1',
  'OPTIONS /balance HTTP/1.1',
  'TRACE / HTTP/1.1',
  'GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1',
];

export function rawRequest(url: string, line: string, headers = 'host: evil.example\r\nconnection: close'): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let out = '';
    const sock = connect(Number(port), '127.0.0.1', () => sock.write(`${line}\r\n${headers}\r\n\r\n`));
    sock.on('data', (c) => { out += c.toString('latin1'); });
    sock.on('close', () => resolve(out));
    sock.on('error', reject);
  });
}

export const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
