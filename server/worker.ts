import { startDeliveryJobs } from './jobs/delivery';
import { stopJobs } from './jobs';
import { loadConfig } from './config';
import { closeWebhookAgents } from './domain/webhooks/sender';
import { createServices } from './services';

/**
 * `npm run worker`: the event dispatcher and webhook/postback sender on their own, over DATABASE_PATH.
 * Run the server with RUN_DISPATCHER=false next to it: one delivering process per database.
 */
async function main() {
  // files this process creates (database, WAL, key file, logs) are its owner's only
  process.umask(0o077);
  const services = createServices({ config: loadConfig() });
  const loops = startDeliveryJobs(services);
  for (const loop of loops) services.wake[loop.name] = loop.wake;
  console.log(`worker delivering events from ${services.config.databasePath}`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await stopJobs(loops);
    closeWebhookAgents();
    await services.db.close();
    console.log('stopped cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error('worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
