// @engines postgres: the fault campaign runs 3 instances on a PostgreSQL of its own, which it restarts
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * `npm run chaos -- --rounds 2` (scripts/chaos.ts), as the PostgreSQL run's share of the campaign: the
 * first two faults of its turn (SIGKILL of an instance while one of its writes is open, then PostgreSQL's
 * fast restart) under withdrawals, charges, pays and refunds through HAProxy, and every check of each round
 * (acknowledged writes stored once, nothing half-applied, replays, the audit, the rail) must pass. The
 * campaign waits by condition (writes acknowledged, instances ready, batches settled) within a cap per
 * round; it never reads this run's DATABASE_URL (it starts and restarts a PostgreSQL of its own).
 */
const ROOT = new URL('../..', import.meta.url).pathname;

function runChaos(args: string[]): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/chaos.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c) => { out += c.toString(); });
    child.stderr!.on('data', (c) => { out += c.toString(); });
    child.once('exit', (code) => resolve({ code, out }));
  });
}

describe('npm run chaos: faults under load, then the books', () => {
  it('2 rounds (SIGKILL mid-write, PostgreSQL restart -m fast): every acknowledged write stored once, every check ok', async () => {
    const { code, out } = await runChaos(['--rounds', '2']);
    expect(code, out).toBe(0);
    const rows = out.split('\n').filter((l) => /^\|\s+\d+ \|/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
    expect(rows, out).toHaveLength(2);
    const [kill, restart] = rows;
    expect(kill[2], out).toMatch(/^SIGKILL i\d/);
    expect(restart[2], out).toBe('pg_ctl restart -m fast');
    for (const r of rows) {
      expect(Number(r[4]), out).toBeGreaterThanOrEqual(16); // acknowledged writes: before and after the fault
      expect(r[7], out).toBe('ok (answered, replay, stored once, whole, audit, rail once)');
    }
    expect(out).toMatch(/every check passed/);
  }, 900_000);
});
