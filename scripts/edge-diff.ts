/**
 * Diffs the answers of two REST edges over the whole hostile-input set (test/support/hostile-requests.ts).
 *   tsx scripts/edge-diff.ts                 runs `old` and `new` in two processes and prints the differences
 *   tsx scripts/edge-diff.ts run <edge>      one edge's normalised answers as JSON (used by the above)
 * Two processes because trpc-to-openapi's old handler mutates the shared zod schemas on first use.
 * Status, envelope, body and the headers a client reads (retry-after, idempotent-replayed, …) are compared.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../server/clock';
import { loadConfig } from '../server/config';
import { createAccount } from '../server/domain/accounts';
import { appRouter } from '../server/routers';
import { createServices } from '../server/services';
import { fillPath, HOSTILE, normalizeAnswer, SETUP, type HostileRequest } from '../test/support/hostile-requests';

const COMPARED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'idempotent-replayed', 'connection'];

export interface Observed { name: string; status: number; headers: Record<string, string>; body: string }

async function runEdge(edge: string): Promise<Observed[]> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-diff-'));
  const config = loadConfig({ databasePath: join(dir, 'edge.db'), rateLimitRps: 0, webhookAllowPrivateUrls: true, sandboxSettlementDelayMs: 60_000 });
  const services = createServices({ config, clock: new ManualClock(new Date('2026-03-02T12:00:00.000Z')) });
  const mod = edge === 'old' ? await import('../server/http/api-old' as string) : await import('../server/http/edge');
  const api = mod.createApiHandler(services, appRouter) as { handle(req: IncomingMessage, res: ServerResponse): Promise<void> };
  const server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  const deps = { db: services.db, masterKey: services.masterKey, now: () => services.clock.now() };
  const [a, b] = [await createAccount(deps, { name: 'A', balance: 10_000_000 }), await createAccount(deps, { name: 'B', balance: 10_000 })];
  const token = async (c: { code: string; token: string }) =>
    ((await (await fetch(`${base}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: c.code, token: c.token }) })).json()) as { access_token: string }).access_token;
  const [ta, tb] = [await token(a), await token(b)];
  const who: Record<string, Record<string, string>> = {
    bearer: { authorization: `Bearer ${ta}` },
    'other-bearer': { authorization: `Bearer ${tb}` },
    webhook: { 'x-api-key': a.api_key, 'x-token': ta },
    'other-webhook': { 'x-api-key': b.api_key, 'x-token': tb },
    none: {},
  };
  const ids: Record<string, string> = {};
  const out: Observed[] = [];
  const send = async (r: HostileRequest) => {
    const headers: Record<string, string> = { ...who[r.as] };
    let body: string | undefined = r.raw;
    if (r.body !== undefined) { body = JSON.stringify(r.body); headers['content-type'] = 'application/json'; }
    Object.assign(headers, r.headers ?? {});
    if (headers['content-type'] === '') delete headers['content-type'];
    const res = await fetch(base + fillPath(r.path, ids), { method: r.method, headers, body });
    const text = await res.text();
    const seen: Record<string, string> = {};
    for (const h of COMPARED_HEADERS) { const v = res.headers.get(h); if (v !== null) seen[h] = v; }
    out.push({ name: r.name, status: res.status, headers: seen, body: normalizeAnswer(text) });
    return text;
  };
  try {
    for (const r of SETUP) {
      const text = await send(r);
      const json = JSON.parse(text);
      for (const [k, path] of Object.entries(r.capture ?? {})) ids[k] = path.split('.').reduce((o, p) => o?.[p], json);
    }
    for (const r of HOSTILE) await send(r);
  } finally {
    server.close();
    await services.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

function runInChild(edge: string): Observed[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/edge-diff.ts', 'run', edge], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`edge ${edge} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.slice(r.stdout.indexOf('\n@@JSON@@\n') + 10));
}

async function main() {
  const [cmd, edge] = process.argv.slice(2);
  if (cmd === 'run') {
    const res = await runEdge(edge);
    process.stdout.write('\n@@JSON@@\n' + JSON.stringify(res));
    process.exit(0);
  }
  const [left, right] = [runInChild(edge ?? 'old'), runInChild(process.argv[4] ?? 'new')];
  let differences = 0;
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const l = left[i], r = right[i];
    if (JSON.stringify(l) === JSON.stringify(r)) continue;
    differences++;
    console.log(`--- ${l?.name ?? r?.name}`);
    console.log(`  old: ${l?.status} ${JSON.stringify(l?.headers)} ${l?.body.slice(0, 400)}`);
    console.log(`  new: ${r?.status} ${JSON.stringify(r?.headers)} ${r?.body.slice(0, 400)}`);
  }
  console.log(`${left.length} requests compared, ${differences} differ`);
  process.exit(differences ? 1 : 0);
}

void main();
