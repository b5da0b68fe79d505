import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { recordEvent } from '@/server/domain/events';
import { serverServices, waitFor } from '../support/services';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, serverEnv, startServer, type RunningServer } from '../support/server';
import { startReceiver } from '../support/webhook-receiver';

const ROOT = new URL('../..', import.meta.url).pathname;
let srv: RunningServer | undefined;
const receiverP = startReceiver();

afterAll(async () => {
  await srv?.stop();
  await (await receiverP).close();
  if (srv) removeDir(srv.dir);
});

describe('npm run worker', () => {
  it('delivers on its own while the server runs with RUN_DISPATCHER=false, and exits cleanly on SIGTERM', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const receiver = await receiverP;
    srv = await startServer({ env: { RUN_DISPATCHER: 'false' } });
    const headers = { 'x-api-key': srv.demo.apiKey, 'x-token': await accessToken(srv.url, srv.demo.code, srv.demo.token), 'idempotency-key': 'w-1' };
    const secret: string = (await api(srv.url, '/api/webhooks', { body: { url: `${receiver.url}/w`, events: ['withdraw'] }, headers })).json.content.secret;

    const side = serverServices(srv.databasePath);
    const e = await side.db.write((tx) => recordEvent(tx, { accountId: srv!.demo.accountId, type: 'withdraw.paid', resourceId: 'wd_w', payload: { id: 'wd_w' }, at: new Date() }));
    await side.db.close();

    const worker = spawn(process.execPath, ['--import', 'tsx', 'server/worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...serverEnv(srv.databasePath), WEBHOOK_ALLOW_PRIVATE_URLS: 'true', JOB_POLL_MS: '25' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout!.on('data', (c) => { out += c; });
    worker.stderr!.on('data', (c) => { out += c; });
    const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => receiver.byId(e.id).length === 1, { what: `delivery by the worker\n${out}` });
      expect(new Webhook(secret).verify(receiver.byId(e.id)[0].body, receiver.byId(e.id)[0].headers)).toMatchObject({ id: e.id });
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('stopped cleanly');
  });
});
