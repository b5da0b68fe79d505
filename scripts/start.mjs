// `npm start`: builds the dashboard once if there is no production build yet, then runs the server
// binary directly (not through npx, which would leave next-server behind when killed).
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
// a payment service sends nothing home unasked: Next's telemetry is off for the build and the server
process.env.NEXT_TELEMETRY_DISABLED ??= '1';
// an API-only process (DASHBOARD=false) serves no page: nothing to build
if (process.env.DASHBOARD !== 'false' && !existsSync(`${root}.next/BUILD_ID`)) {
  console.log('No production build yet: running next build (once)…');
  const r = spawnSync(process.execPath, [`${root}node_modules/next/dist/bin/next`, 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { NODE_ENV: 'production', ...process.env },
});
// forwarded for a signal sent to this process alone; when the whole group is signalled the server gets it
// twice, and treats the echo as the same stop (server/main.ts)
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
