/**
 * The baseline: a bare node:http server doing one durable insert per request with better-sqlite3 —
 * what the hardware gives with nothing of ours in the way. Usage: tsx bench/bare-server.ts FULL|NORMAL <dbPath>
 */
import Database from 'better-sqlite3';
import { createServer } from 'node:http';

const [mode = 'FULL', path = '/tmp/bare.db'] = process.argv.slice(2);
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${mode === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
db.exec('CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL) STRICT');
const insert = db.prepare('INSERT INTO items (body, created_at) VALUES (?, ?)');

const server = createServer((req, res) => {
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
