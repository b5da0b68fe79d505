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
  // an IPC channel beside the terminal: the stops this script forwards arrive as messages (below)
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  env: { NODE_ENV: 'production', ...process.env },
});
// Forwarded, as a message, for a signal sent to this process alone. When the whole group is signalled
// (systemd's KillMode=control-group, Ctrl-C) the server also gets the signal itself: a message and a signal
// it counts as one stop (server/main.ts), and two signals, or two messages, as a person insisting.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (child.connected) child.send({ stop: sig }, (err) => { if (err) child.kill(sig); });
    else child.kill(sig);
  });
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
