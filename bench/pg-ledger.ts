/**
 * tsx bench/pg-ledger.ts: PostgreSQL's own CPU per ledger entry, the ledger alone (ledger_post and the
 * triggers that judge its lines), A/B between trees in one cluster. Each database of PGLB_DBS (comma
 * separated, default `main:/work/main,this:<this tree>`; `name:/tree` migrates with that tree's
 * db/pg/migrations, `name:/tree+/file.sql` then runs that SQL file too, for trying a variant) gets one
 * merchant; each round runs, in each database in turn (the order rotating), PGLB_GROUPS groups of
 * PGLB_W (32) entries the way the writer commits them: a transaction, each entry in a subtransaction (the
 * job's SAVEPOINT), then COMMIT, with synchronous_commit off (the WAL flush is not this bench's subject).
 * Half of the groups request withdrawals (available → withdrawals_in_flight), half settle them
 * (withdrawals_in_flight → pix_out's shard), all on the one hot merchant. Reported: the backend's CPU
 * (/proc, 10 ms ticks) per entry, the median over PGLB_ROUNDS rounds, and then, from one more round with
 * track_functions on, each function's and trigger's time per entry. Each database also holds PGLB_BOOKS (5000)
 * other merchants with two books and an entry each, so that plans are those of a real table, not of four rows.
 * CPU time on a shared machine is noisy: bench/pg-ledger-ir.sh counts the backend's instructions instead.
 */
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { startThrowawayPostgres } from '../scripts/lib/throwaway-postgres';

const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const specs = (process.env.PGLB_DBS ?? `main:/work/main,this:${here}`).split(',').map((s) => {
  const [name, rest] = s.split(/:(.*)/s);
  const [root, extra] = rest.split('+');
  return { name, root, extra };
});
const ROUNDS = Number(process.env.PGLB_ROUNDS ?? 7);
const GROUPS = Number(process.env.PGLB_GROUPS ?? 40);
const W = Number(process.env.PGLB_W ?? 32);
/** Other merchants (two books each) beside the one the bench posts to. */
const BOOKS = Number(process.env.PGLB_BOOKS ?? 5000);

/** utime + stime of a process, in µs. */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 1e6 / 100;
}

// One round of groups, server-side: no client round trip in what is measured.
const ROUND = (groups: number) => `
DO $$
DECLARE acc text; avail text; fl text; out text; g int; j int;
BEGIN
  acc := 'acc_1';
  SELECT id INTO avail FROM ledger_books WHERE account_id = acc AND kind = 'available';
  SELECT id INTO fl FROM ledger_books WHERE account_id = acc AND kind = 'withdrawals_in_flight';
  SELECT id INTO out FROM ledger_books WHERE account_id IS NULL AND kind = 'pix_out';
  FOR g IN 1..${groups} LOOP
    FOR j IN 1..${W} LOOP
      BEGIN
        IF g % 2 = 1 THEN
          PERFORM ledger_post('le_' || gen_random_uuid(), acc, 'withdrawal_requested', 'wd_' || j, 'Pix withdrawal requested', clock_timestamp(),
            jsonb_build_array(jsonb_build_object('book', avail, 'amount', -1000), jsonb_build_object('book', fl, 'amount', 1000)));
        ELSE
          PERFORM ledger_post('le_' || gen_random_uuid(), acc, 'withdrawal_paid', 'wdb_' || j, 'Pix batch paid', clock_timestamp(),
            jsonb_build_array(jsonb_build_object('book', fl, 'amount', -1000), jsonb_build_object('book', out, 'amount', 1000)));
        END IF;
      EXCEPTION WHEN others THEN RAISE;
      END;
    END LOOP;
    COMMIT;
  END LOOP;
END $$`;

async function main() {
  const pg = await startThrowawayPostgres();
  const dbs: { name: string; sql: postgres.Sql; pid: number; cpu: number[] }[] = [];
  for (const s of specs) {
    const url = await pg.createDatabase(`lb_${s.name}`);
    const { migratePostgres } = await import(`${s.root}/db/pg/migrate.ts`) as typeof import('../db/pg/migrate');
    await migratePostgres(url);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    if (s.extra) await sql.unsafe(readFileSync(s.extra, 'utf8').replaceAll('--> statement-breakpoint', ''));
    await sql`INSERT INTO accounts (id, name, code, token_hash, api_key, postback_secret_enc, created_at, updated_at) VALUES ('acc_1', 'M', 'acc_1', 'acc_1', 'acc_1', 'x', now(), now())`;
    for (const kind of ['available', 'withdrawals_in_flight']) await sql`INSERT INTO ledger_books (id, account_id, kind, updated_at) VALUES (${`lb_${kind}`}, 'acc_1', ${kind}, now())`;
    for (const kind of ['sandbox_funding', 'pix_out']) await sql`INSERT INTO ledger_books (id, account_id, kind, shard, allow_negative, updated_at) VALUES (${`lb_${kind}`}, NULL, ${kind}, 0, 1, now())`;
    // other merchants' books, so that plans are those of a database with many books (index scans, not a scan of four rows)
    await sql`INSERT INTO accounts (id, name, code, token_hash, api_key, postback_secret_enc, created_at, updated_at)
      SELECT 'acc_x' || i, 'M', 'acc_x' || i, 'acc_x' || i, 'acc_x' || i, 'x', now(), now() FROM generate_series(1, ${BOOKS}) i`;
    await sql`INSERT INTO ledger_books (id, account_id, kind, updated_at)
      SELECT 'lb_x' || i || k, 'acc_x' || i, k, now() FROM generate_series(1, ${BOOKS}) i, unnest(ARRAY['available', 'withdrawals_in_flight']) k`;
    await sql`ANALYZE`;
    // and their entries and lines (the foreign keys' and the triggers' lookups then find real tables, not a page or two)
    await sql.begin(async (tx) => {
      await tx`SET LOCAL enable_seqscan = off`;
      await tx.unsafe(`DO $$ BEGIN FOR i IN 1..${BOOKS} LOOP
        PERFORM ledger_post('le_x' || i, 'acc_x' || i, 'sandbox_topup', NULL, NULL, now(),
          jsonb_build_array(jsonb_build_object('book', 'lb_sandbox_funding', 'amount', -100), jsonb_build_object('book', 'lb_x' || i || 'available', 'amount', 100)));
      END LOOP; END $$`);
    });
    await sql`ANALYZE`;
    await sql`SELECT ledger_post('le_topup', 'acc_1', 'sandbox_topup', NULL, NULL, now(), '[{"book":"lb_sandbox_funding","amount":-1000000000},{"book":"lb_available","amount":1000000000}]'::jsonb)`;
    await sql`SET synchronous_commit = off`;
    const [{ pid }] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    await sql.unsafe(ROUND(4)); // warm: plans cached
    dbs.push({ name: s.name, sql, pid, cpu: [] });
  }
  if (process.env.PGLB_COPY) {
    // the set-up cluster's data, copied to PGLB_COPY for a single-user backend under callgrind (bench/pg-ledger-ir.sh)
    for (const d of dbs) await d.sql.end();
    await pg.halt();
    const { cpSync } = await import('node:fs');
    cpSync(`${pg.dir}/data`, process.env.PGLB_COPY, { recursive: true });
    await pg.stop();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${process.env.PGLB_COPY}.warm.sql`, `${ROUND(2)};\n\n`);
    writeFileSync(`${process.env.PGLB_COPY}.run.sql`, `${ROUND(2)};\n\n${ROUND(GROUPS)};\n\n`);
    console.log(`copied to ${process.env.PGLB_COPY}`);
    return;
  }
  if (process.env.PGLB_PERF) {
    // perf record of each database's backend over one round: PGLB_PERF=<directory for <name>.data>
    const { spawn } = await import('node:child_process');
    for (const d of dbs) {
      const perf = spawn('perf', ['record', '-g', '-p', String(d.pid), '-o', `${process.env.PGLB_PERF}/${d.name}.data`], { stdio: 'inherit' });
      await new Promise((r) => setTimeout(r, 500));
      await d.sql.unsafe(ROUND(GROUPS));
      perf.kill('SIGINT');
      await new Promise((r) => perf.on('exit', r));
    }
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < dbs.length; k++) {
      const d = dbs[(r + k) % dbs.length];
      const c0 = cpuOf(d.pid);
      await d.sql.unsafe(ROUND(GROUPS));
      d.cpu.push((cpuOf(d.pid) - c0) / (GROUPS * W));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`backend CPU µs per ledger entry (2 lines), ${ROUNDS} rounds of ${GROUPS} groups of ${W}: median, lowest`);
  for (const d of dbs) console.log(`  ${d.name.padEnd(12)} ${median(d.cpu).toFixed(0).padStart(5)} ${Math.min(...d.cpu).toFixed(0).padStart(5)}   (rounds: ${d.cpu.map((x) => x.toFixed(0)).join(' ')})`);
  for (const d of dbs) {
    await d.sql`SELECT pg_stat_reset()`;
    await d.sql`SET track_functions = 'all'`;
    await d.sql.unsafe(ROUND(GROUPS));
    await d.sql`SET track_functions = 'none'`;
    // a backend sends its counters when it goes idle, at most once a second
    await new Promise((r) => setTimeout(r, 1100));
    await d.sql`SELECT 1`;
    await new Promise((r) => setTimeout(r, 200));
    await d.sql`SELECT pg_stat_clear_snapshot()`;
    const fns = await d.sql.unsafe(`SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions WHERE calls > 0 ORDER BY total_time DESC`);
    const n = GROUPS * W;
    console.log(`${d.name}: functions and triggers (track_functions, wall), µs per entry:`);
    for (const f of fns) console.log(`     ${String(f.funcname).padEnd(36)} ${(Number(f.calls) / n).toFixed(1).padStart(5)} calls  total ${(Number(f.total_time) * 1000 / n).toFixed(0).padStart(5)}  self ${(Number(f.self_time) * 1000 / n).toFixed(0).padStart(5)}`);
  }
  for (const d of dbs) await d.sql.end();
  await pg.stop();
}
void main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
