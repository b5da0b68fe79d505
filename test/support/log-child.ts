// A process that logs through the product's stdout logger, for test/unit/log-buffer.test.ts.
// argv[2]: 'exit' logs 500 info lines and exits at once; 'quiet' logs one info line and idles;
// 'urgent' logs an info line and a warning, then blocks its event loop (no timer can fire).
import { log } from '../../server/log';

const mode = process.argv[2];
if (mode === 'exit') {
  for (let i = 0; i < 500; i++) log.info({ i }, 'line');
  process.exit(0);
} else if (mode === 'quiet') {
  log.info('quiet line');
  setInterval(() => {}, 1000);
} else if (mode === 'urgent') {
  log.info('before the warning');
  log.warn('the warning');
  // blocked until killed: only a write already handed to libuv's pool can reach stdout now
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
}
