import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, removeDir, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';

let srv: RunningServer;
let token: string;

beforeAll(async () => {
  srv = await startServer();
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
});
afterAll(async () => {
  await srv?.stop();
  removeDir(srv.dir);
});

/** Sends raw bytes on a fresh connection and returns everything the server wrote back until it closed. */
function raw(bytes: string, o: { endAfterMs?: number } = {}): Promise<string> {
  const { port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    let out = '';
    const sock = connect(Number(port), '127.0.0.1', () => sock.write(bytes));
    sock.on('data', (c) => {
      out += c.toString('latin1');
      // one answer is all we ask for: close once its head (and any declared body) is in
      const m = /\r\n\r\n/.exec(out);
      if (m) {
        const len = /content-length:\s*(\d+)/i.exec(out.slice(0, m.index));
        if (!len || out.length - (m.index + 4) >= Number(len[1])) sock.end();
      }
    });
    sock.on('end', () => resolve(out));
    sock.on('close', () => resolve(out));
    sock.on('error', reject);
    if (o.endAfterMs) setTimeout(() => sock.end(), o.endAfterMs);
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);

describe('logs', () => {
  it('a client that disconnects mid-body is logged as a client abort at info level, not as an internal error', async () => {
    const { port } = new URL(srv.url);
    const before = srv.output().length;
    await new Promise<void>((resolve, reject) => {
      const sock = connect(Number(port), '127.0.0.1', () => {
        sock.write(`POST /withdraw/pix HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"amount":`,
          () => setTimeout(() => sock.destroy(), 50));
      });
      sock.on('close', () => resolve());
      sock.on('error', reject);
    });
    await waitFor(() => /client abort|internal error/.test(srv.output().slice(before)), { what: 'a log line about the aborted request' });
    const logged = srv.output().slice(before);
    expect(logged).toMatch(/\[api\] client abort: POST \/withdraw\/pix/);
    expect(logged).not.toMatch(/internal error|ECONNRESET/i);
    // and the server still answers
    expect(statusOf(await raw('GET /balance HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'))).toBe(401);
  });
});
