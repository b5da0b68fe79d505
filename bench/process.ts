import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('..', import.meta.url).pathname;

/** Starts a server of the bench (ours or a bare baseline) under tsx; resolves with its URL once it says it listens. */
export function startProcess(args: string[], env: Record<string, string>, cwd = ROOT): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  child.stderr!.on('data', (c) => { out += c; });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`did not start: ${out}`)), 90_000);
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) { clearTimeout(t); resolve({ child, url: m[1], out: () => out }); }
    });
    child.on('exit', (c) => { clearTimeout(t); reject(new Error(`exited ${c}: ${out}`)); });
  });
}
