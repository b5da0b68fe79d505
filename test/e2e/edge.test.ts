import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, removeDir, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';
import { ODD_TARGETS, rawRequest, statusOf } from '../support/raw-http';

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
    expect(logged).toMatch(/"level":"info".*"method":"POST","route":"\/withdraw\/pix".*"msg":"client abort: the connection closed mid-body"/);
    expect(logged).not.toMatch(/internal error|ECONNRESET/i);
    // and the server still answers
    expect(statusOf(await raw('GET /balance HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'))).toBe(401);
  });
});

describe('odd request targets', () => {
  it('answer 4xx, never 5xx, and never redirect to another host', async () => {
    for (const line of ODD_TARGETS) {
      const answer = await rawRequest(srv.url, line);
      const status = statusOf(answer);
      expect(status, `${line} → ${answer.split('\r\n')[0]}`).toBeGreaterThanOrEqual(400);
      expect(status, line).toBeLessThan(500);
      expect(answer, line).not.toMatch(/^location:/im);
    }
    // the absolute form is refused in the documented envelope
    const absolute = await rawRequest(srv.url, 'GET http://evil.example/balance HTTP/1.1');
    expect(statusOf(absolute)).toBe(400);
    expect(JSON.parse(absolute.slice(absolute.indexOf('\r\n\r\n') + 4))).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('every API answer says nosniff, no framing and no referrer to other sites', async () => {
    const answer = await rawRequest(srv.url, 'GET /balance HTTP/1.1', `host: x\r\nauthorization: Bearer ${token}\r\nconnection: close`);
    expect(statusOf(answer)).toBe(200);
    expect(answer).toMatch(/^x-content-type-options: nosniff$/im);
    expect(answer).toMatch(/^x-frame-options: DENY$/im);
    expect(answer).toMatch(/^referrer-policy: same-origin$/im);
    expect(answer).toMatch(/^content-security-policy: .*frame-ancestors 'none'/im);
  });
});
