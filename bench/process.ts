import type autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';

const ROOT = new URL('..', import.meta.url).pathname;

/** Starts a server of the bench (ours or a bare baseline) under tsx; resolves with its URL once it says it listens. */
export function startProcess(args: string[], env: Record<string, string>, cwd = ROOT): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Only the start-up output is kept (the demo credentials, the listening line): the server logs a line
  // per request, and keeping them all, or scanning them all for the listening line on every chunk as this
  // once did, cost the bench process (autocannon's own process) more CPU with every round, so the
  // logging server's req/s fell round after round against the silent bare baselines.
  let out = '';
  const keep = (c: Buffer) => { if (out.length < 64 * 1024) out += c; };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`did not start: ${out}`)), 90_000);
    const started = () => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) { clearTimeout(t); child.stdout!.off('data', started); resolve({ child, url: m[1], out: () => out }); }
    };
    child.stdout!.on('data', started);
    child.on('exit', (c) => { clearTimeout(t); reject(new Error(`exited ${c}: ${out}`)); });
  });
}

/** autocannon's setupRequest: a unique Idempotency-Key on every request (a create with full work). */
export function withIdempotencyKey(req: autocannon.Request): autocannon.Request {
  return { ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } };
}
