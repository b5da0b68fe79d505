/**
 * The PostgreSQL baseline of issue 25: a bare node:http server doing one durable INSERT per POST (autocommit,
 * synchronous_commit=on) and one primary-key read per GET, through postgres.js with the product's pool size
 * (db/pg/open.ts's default) — what the database gives on this machine with nothing of ours in the way. The
 * twin of bench/bare-server.ts (SQLite). Usage: tsx bench/pg-bare-server.ts <postgres url>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import postgres from 'postgres';

/** The product's pool size, read from db/pg/open.ts so the baseline cannot drift from it. */
function productPoolSize(): number {
  const source = readFileSync(new URL('../db/pg/open.ts', import.meta.url), 'utf8');
  const m = /max:\s*o\.max\s*\?\?\s*(\d+)/.exec(source);
  if (!m) throw new Error("db/pg/open.ts no longer says `max: o.max ?? N`: tell bench/pg-bare-server.ts the product's pool size");
  return Number(m[1]);
}

async function main() {
  const url = process.argv[2];
  if (!url) throw new Error('usage: tsx bench/pg-bare-server.ts <postgres url>');
  const sql = postgres(url, { max: productPoolSize(), onnotice: () => {}, connection: { synchronous_commit: 'on' } });
  await sql`CREATE TABLE IF NOT EXISTS items (id bigserial PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL)`;
  const SEEDED = 10_000;
  const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM items`;
  if (n < SEEDED) {
    const row = JSON.stringify({ amount: 1000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '52998224725' } });
    await sql`INSERT INTO items (body, created_at) SELECT ${row}, now() FROM generate_series(1, ${SEEDED - n})`;
  }
  let nextRead = 0;
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      const out = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    };
    const failed = (err: Error) => answer(500, { error: err.message });
    if (req.method === 'GET') {
      nextRead = (nextRead % SEEDED) + 1;
      sql`SELECT id, body, created_at FROM items WHERE id = ${nextRead}`.then((rows) => answer(200, rows[0]), failed);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8') || '{}';
      sql`INSERT INTO items (body, created_at) VALUES (${body}, ${new Date()}) RETURNING id`.then((rows) => answer(201, { id: Number(rows[0].id) }), failed);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    console.log(`listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0} (pool ${productPoolSize()})`);
  });
  process.on('SIGTERM', () => { server.close(); void sql.end({ timeout: 2 }).then(() => process.exit(0)); });
}

main().catch((err) => { console.error(err); process.exit(1); });
