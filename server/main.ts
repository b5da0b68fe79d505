import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createDemoAccountIfEmpty } from './bootstrap';
import { backfillReceivingKeys } from './domain/pix-api/keys';
import { loadConfig } from './config';
import { createApiHandler } from './http/api';
import { capConnections, connectionsCheckingInterval } from './http/connections';
import { refuseTarget, requestTargetProblem, setSecurityHeaders } from './http/edge';
import { startJobs, stopJobs } from './jobs';
import { configureLogging } from './log';
import { createOpsEndpoints, observeRequests, PAGES_ROUTE, serveLocalMetrics, UNMATCHED_ROUTE } from './observability/http';
import { createMetrics } from './observability/metrics';
import { createReadiness } from './observability/readiness';
import { createLedgerAudit } from './observability/ledger-audit';
import { appRouter } from './routers';
import { createContextInner } from './context';
import { providePagesCaller } from './pages-caller';
import { PAGE_REQUEST_HEADER } from '../contract/session';
import { lendToPages, pageRequestRecord, requestRecordOf } from './observability/request-context';
import { createCallerFactory } from './trpc';
import { createServices } from './services';
import { closeWebhookAgents } from './domain/webhooks/sender';
import { engineAtStartOrExit } from '../db/engine';

/**
 * The one process: REST paths to the REST adapter, /api/trpc to tRPC's adapter, /healthz /readyz /metrics to the operations endpoints, every other path to Next's
 * request handler. Background jobs run here too.
 */
async function main() {
  // DATABASE_URL decides the engine; one that cannot be used stops the process here with one line
  await engineAtStartOrExit();
  // files this process creates (database, WAL, key file, logs) are its owner's only
  process.umask(0o077);
  const argv = process.argv.slice(2);
  const dev = argv.includes('--dev');
  const log = configureLogging({ pretty: dev });
  const config = loadConfig({ dev });
  const servePages = process.env.DASHBOARD !== 'false';
  const services = createServices({ config });
  // accounts made before receiving keys were stored get theirs (the EVP their charges carry) before any request
  const backfilled = await backfillReceivingKeys(services);
  if (backfilled > 0) log.info({ accounts: backfilled }, 'stored the receiving Pix key of accounts created before keys were stored');
  // The one-time credentials banner is for the person who just started the service: plain text on
  // stdout, deliberately not a log line (a log would have to redact exactly what it exists to show).
  await createDemoAccountIfEmpty(services, (l) => console.log(l));

  const api = createApiHandler(services, appRouter);
  let pages: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | null = null;
  let nextApp: { close?: () => Promise<void> } | null = null as { close?: () => Promise<void> } | null;
  if (servePages) {
    const createCaller = createCallerFactory(appRouter);
    providePagesCaller((headers) => createCaller(createContextInner({ services, headers, transport: 'caller', request: pageRequestRecord(headers[PAGE_REQUEST_HEADER]) })));
    const { default: next } = await import('next');
    const app = next({ dev, dir: fileURLToPath(new URL('..', import.meta.url)), hostname: config.host, port: config.port });
    await app.prepare();
    const handle = app.getRequestHandler();
    pages = (req, res) => handle(req, res);
    nextApp = app as never;
  }

  const jobs = startJobs(services, { dispatcher: config.runDispatcher });
  const metrics = createMetrics({ db: services.db, clock: services.clock });
  // the ledger audit runs on its own schedule, off the event loop's thread; /readyz reads its last result
  const audit = createLedgerAudit(services);
  audit.start();
  const readiness = createReadiness(services, { jobs: () => jobs, audit });
  services.metrics = metrics;
  services.readiness = readiness;
  const ops = createOpsEndpoints({ readiness, metrics, metricsToken: config.metricsToken, now: () => services.clock.now() });

  let inFlight = 0;
  let shuttingDown = false;
  const server = createServer({
    // Node 20 looks for requests past their timeouts on this interval (30 s by default): see connections.ts
    connectionsCheckingInterval: connectionsCheckingInterval(config.headersTimeoutMs, config.requestTimeoutMs),
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
  }, observeRequests({
    metrics,
    fallbackRoute: (req) => (api.owns((req.url ?? '/').split('?')[0]) || !pages ? UNMATCHED_ROUTE : PAGES_ROUTE),
  }, (req, res) => {
    inFlight += 1;
    res.on('close', () => { inFlight -= 1; });
    if (shuttingDown) res.setHeader('connection', 'close');
    const problem = requestTargetProblem(req.url);
    if (problem) {
      setSecurityHeaders(res, 'api', dev);
      refuseTarget(res, problem, services.clock.now());
      req.resume();
      return;
    }
    const pathname = (req.url ?? '/').split('?')[0];
    if (ops.owns(pathname)) {
      setSecurityHeaders(res, 'api', dev);
      ops.handle(req, res, pathname).catch((err) => {
        log.error({ err, route: pathname }, 'operations endpoint failed');
        if (!res.headersSent) { res.statusCode = 500; res.end(); }
      });
    } else if (api.owns(pathname) || !pages) {
      setSecurityHeaders(res, 'api', dev);
      void api.handle(req, res);
    } else {
      setSecurityHeaders(res, 'page', dev);
      lendToPages(req, res, requestRecordOf(req));
      pages(req, res).catch((err) => {
        log.error({ err }, 'page request failed');
        if (!res.headersSent) { res.statusCode = 500; res.end('Internal error'); }
      });
    }
  }));
  server.keepAliveTimeout = 5_000;
  capConnections(server, {
    total: config.maxConnections, perAddress: config.maxConnectionsPerAddress, trusted: config.trustedProxies, now: () => services.clock.now(),
  });

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;

  const metricsServer = await serveLocalMetrics(services);
  log.info(`listening on http://${config.host}:${port} (${servePages ? (dev ? 'pages in dev mode' : 'pages built') : 'API only'}, database ${config.databasePath})`);

  let drainCut: (() => void) | null = null;
  // How many stops arrived by each way: a signal to this process, or scripts/start.mjs's message
  const stops = { signal: 0, forwarded: 0 };
  const shutdown = async (signal: string, way: 'signal' | 'forwarded' = 'signal') => {
    stops[way] += 1;
    if (shuttingDown) {
      // One stop often arrives twice: systemd (KillMode=control-group) or a terminal signals every process
      // of the group, and scripts/start.mjs forwards its own copy. The first copy by the other way is that
      // echo and must not close the listener mid-drain; a stop sent again by the same way (a person
      // insisting) ends the drain now.
      if (stops[way] === 1) {
        log.info({ signal, way }, 'stop asked again at once (the process group and the start script): still draining');
        return;
      }
      drainCut?.();
      return;
    }
    shuttingDown = true;
    // Not ready first, while still accepting: the balancer sees /readyz fail and stops sending.
    readiness.markShuttingDown();
    log.info({ signal, drain_ms: config.shutdownDrainMs }, 'stopping: /readyz now answers 503');
    if (config.shutdownDrainMs > 0) {
      await new Promise<void>((resolve) => {
        drainCut = resolve;
        setTimeout(resolve, config.shutdownDrainMs).unref();
      });
    }
    const force = setTimeout(() => { server.closeAllConnections(); }, 10_000);
    force.unref();
    // stop accepting; idle keep-alive sockets close now, busy ones after their response
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    await closed;
    await stopJobs(jobs);
    // (an audit thread reading the file would keep the WAL from being checkpointed away at close)
    await audit.stop();
    await nextApp?.close?.().catch(() => {});
    closeWebhookAgents();
    await services.db.close();
    log.info({ in_flight: inFlight }, 'stopped cleanly');
    log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // scripts/start.mjs forwards the signals it gets as messages, so that its copy is told from a signal's
  process.on('message', (m: { stop?: string }) => { if (m?.stop === 'SIGTERM' || m?.stop === 'SIGINT') void shutdown(m.stop, 'forwarded'); });
  process.channel?.unref();
}

main().catch((err) => {
  // one readable line for a person at a terminal (bad configuration, a database in use by a restore)
  console.error('failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
