import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/*
 * The cap of 50 webhooks per account under concurrency, over HTTP, on both engines (on PostgreSQL the
 * creates really run at once). The URLs point at a closed port on 127.0.0.1: nothing is delivered.
 */
let srv: RunningServer;
let headers: Record<string, string>;

beforeAll(async () => {
  srv = await startServer();
  const token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  headers = { 'x-api-key': srv.demo.apiKey, 'x-token': token };
});
afterAll(async () => {
  await srv?.stop();
  removeDir(srv.dir);
});

describe('webhook cap', () => {
  it('70 creates at once: exactly 50 are stored, the rest answer 422 with the reason', async () => {
    const answers = await Promise.all(Array.from({ length: 70 }, (_, i) => api(srv.url, '/api/webhooks', {
      body: { url: `http://127.0.0.1:9/cap-${i}`, events: ['withdraw'] }, headers: { ...headers, 'idempotency-key': `cap-${i}` },
    })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(50);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => a.status)).toEqual(Array(20).fill(422));
    expect(refused[0].text).toContain('at most 50 webhooks');
    const listed = await api(srv.url, '/api/webhooks', { headers });
    expect(listed.status).toBe(200);
    expect(listed.json.content).toHaveLength(50);
  });
});
