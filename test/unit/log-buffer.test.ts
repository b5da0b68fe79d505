// @engines none: a unit test with no database (runs once)
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait';

// A child process starts tsx first: on a loaded machine that alone can take many seconds, hence the longer waits.
// The product's stdout logger writes lines in batches (server/log.ts); none may be held forever or lost at exit.
const started: ChildProcess[] = [];
afterEach(() => { for (const c of started.splice(0)) c.kill('SIGKILL'); });

function run(mode: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/log-child.ts', mode], { env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { output: () => out, exited };
}

describe('buffered stdout log', () => {
  it('writes every buffered line before the process exits', async () => {
    const child = run('exit');
    expect(await child.exited).toBe(0);
    const lines = child.output().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('writes a lone line in a quiet moment without waiting for the buffer to fill', async () => {
    const child = run('quiet');
    await waitFor(() => child.output().includes('quiet line'), { what: 'the quiet line', timeoutMs: 60_000 });
  });

  it('writes a line queued while an earlier write is still in flight', async () => {
    const child = run('busy-pool');
    await waitFor(() => child.output().includes('after the warning'), { what: 'the line after the warning', timeoutMs: 60_000 });
  });

  it('sends a warning at once, with the lines queued before it', async () => {
    const child = run('urgent');
    // the child's event loop is blocked right after the warning, so its flush timer never runs
    await waitFor(() => child.output().includes('the warning'), { what: 'the warning', timeoutMs: 60_000 });
    expect(child.output().indexOf('before the warning')).toBeGreaterThanOrEqual(0);
    expect(child.output().indexOf('before the warning')).toBeLessThan(child.output().indexOf('the warning'));
  });
});
