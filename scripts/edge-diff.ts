/**
 * Diffs the answers of two REST edges over the whole hostile-input set (test/support/hostile-requests.ts).
 *   tsx scripts/edge-diff.ts                 runs `old` and `new` in two processes and prints the differences
 *   tsx scripts/edge-diff.ts run <edge>      one edge's normalised answers as JSON (used by the above)
 *   tsx scripts/edge-diff.ts freeze [edge]   writes test/fixtures/rest-hostile-answers.json from that edge (old)
 * Two processes because trpc-to-openapi's old handler mutates the shared zod schemas on first use.
 * Status, envelope, body and the headers a client reads (retry-after, idempotent-replayed, …) are compared.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../server/clock';
import { loadConfig } from '../server/config';
import { appRouter } from '../server/routers';
import { createServices } from '../server/services';
import { runHostileCorpus, type Observed } from '../test/support/hostile-requests';

async function runEdge(edge: string): Promise<Observed[]> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-diff-'));
  const config = loadConfig({ databasePath: join(dir, 'edge.db'), rateLimitRps: 0, webhookAllowPrivateUrls: true, sandboxSettlementDelayMs: 60_000 });
  const services = createServices({ config, clock: new ManualClock(new Date('2026-03-02T12:00:00.000Z')) });
  const mod = edge === 'old' ? await import('../server/http/api-old' as string) : await import('../server/http/edge');
  const api = mod.createApiHandler(services, appRouter) as { handle(req: IncomingMessage, res: ServerResponse): Promise<void> };
  const server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    return await runHostileCorpus(services, async (method, path, headers, body) => {
      const res = await fetch(base + path, { method, headers, body });
      return { status: res.status, headers: res.headers, text: await res.text() };
    });
  } finally {
    server.close();
    await services.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
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
  if (cmd === 'freeze') {
    // the answers the in-process REST test holds the adapter to (test/api/rest-adapter.test.ts)
    writeFileSync(new URL('../test/fixtures/rest-hostile-answers.json', import.meta.url), JSON.stringify(runInChild(edge ?? 'old'), null, 1) + '\n');
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
