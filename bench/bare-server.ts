/**
 * The baselines: a bare node:http server doing, per request, one durable insert (POST) or one
 * primary-key read (GET) with better-sqlite3 — what the hardware gives with nothing of ours in the way.
 * No authentication, no validation. Usage: tsx bench/bare-server.ts FULL|NORMAL <dbPath>
 */
import Database from 'better-sqlite3';
import { createServer } from 'node:http';

const [mode = 'FULL', path = '/tmp/bare.db'] = process.argv.slice(2);
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${mode === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
db.exec('CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL) STRICT');
const insert = db.prepare('INSERT INTO items (body, created_at) VALUES (?, ?)');
const byId = db.prepare('SELECT id, body, created_at FROM items WHERE id = ?');
// rows for the reads to find, about the size of a withdrawal's stored view
const SEEDED = 10_000;
if ((db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n < SEEDED) {
  const row = JSON.stringify({ amount: 1000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '52998224725' } });
  db.transaction(() => { for (let i = 0; i < SEEDED; i++) insert.run(row, new Date().toISOString()); })();
}
let nextRead = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    nextRead = (nextRead % SEEDED) + 1;
    const out = JSON.stringify(byId.get(nextRead));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8') || '{}';
    const { lastInsertRowid } = insert.run(body, new Date().toISOString());
    const out = JSON.stringify({ id: Number(lastInsertRowid) });
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
});
process.on('SIGTERM', () => { server.close(); db.close(); process.exit(0); });
