import { startDeliveryJobs } from './jobs/delivery';
import { listenForOtherInstances, stopJobs } from './jobs';
import { loadConfig } from './config';
import { closeWebhookAgents } from './domain/webhooks/sender';
import { createServices } from './services';
import { configureLogging } from './log';
import { createMetrics } from './observability/metrics';
import { serveLocalMetrics } from './observability/http';
import { engineAtStartOrExit } from '../db/engine';

/**
 * `npm run worker`: the event dispatcher and webhook/postback sender on their own, over DATABASE_PATH.
 * On SQLite run the server with RUN_DISPATCHER=false next to it: one delivering process per database. On
 * PostgreSQL any number of workers and servers may deliver (claims with leases, woken through NOTIFY).
 */
async function main() {
  await engineAtStartOrExit();
  // files this process creates (database, WAL, key file, logs) are its owner's only
  process.umask(0o077);
  const log = configureLogging();
  const services = createServices({ config: loadConfig() });
  services.metrics = createMetrics({ db: services.db, clock: services.clock });
  const metricsServer = await serveLocalMetrics(services);
  const loops = startDeliveryJobs(services);
  for (const loop of loops) services.wake[loop.name] = loop.wake;
  listenForOtherInstances(services, loops);
  log.info({ database: services.config.databasePath }, 'worker delivering events');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker stopping');
    metricsServer?.close();
    await stopJobs(loops);
    closeWebhookAgents();
    await services.db.close();
    log.info('worker stopped cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error('worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
