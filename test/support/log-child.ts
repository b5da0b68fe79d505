// A process that logs through the product's stdout logger, for test/unit/log-buffer.test.ts.
// argv[2]: 'exit' logs 500 info lines and exits at once; 'quiet' logs one info line and idles;
// 'urgent' logs an info line and a warning, then blocks its event loop (no timer can fire);
// 'busy-pool' logs a warning and an info line while libuv's pool is busy.
import { scrypt } from 'node:crypto';
import { log } from '../../server/log';

const mode = process.argv[2];
if (mode === 'exit') {
  for (let i = 0; i < 500; i++) log.info({ i }, 'line');
  process.exit(0);
} else if (mode === 'quiet') {
  log.info('quiet line');
  setInterval(() => {}, 1000);
} else if (mode === 'busy-pool') {
  // libuv's pool is held by slow hashes, so the warning's write stays in flight across several flush
  // timer ticks; the info line queued meanwhile must still leave once that write is done
  for (let i = 0; i < 4; i++) scrypt('x', 'salt', 64, { N: 2 ** 15, r: 8, p: 8, maxmem: 2 ** 26 }, () => {});
  log.warn('the warning');
  log.info('after the warning');
  setInterval(() => {}, 1000);
} else if (mode === 'urgent') {
  log.info('before the warning');
  log.warn('the warning');
  // blocked until killed: only a write already handed to libuv's pool can reach stdout now
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
}
