import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createDemoAccountIfEmpty } from './bootstrap';
import { loadConfig } from './config';
import { createApiHandler } from './http/api';
import { refuseTarget, requestTargetProblem, setSecurityHeaders } from './http/edge';
import { startJobs, stopJobs } from './jobs';
import { appRouter } from './routers';
import { createContextInner } from './context';
import { providePagesCaller } from './pages-caller';
import { createCallerFactory } from './trpc';
import { createServices } from './services';
import { closeWebhookAgents } from './domain/webhooks/sender';

/**
 * The one process: REST paths to the REST adapter, /api/trpc to tRPC's adapter, every other path to
 * Next's request handler. Background jobs run here too.
 */
async function main() {
  // files this process creates (database, WAL, key file, logs) are its owner's only
  process.umask(0o077);
  const argv = process.argv.slice(2);
  const dev = argv.includes('--dev');
  const config = loadConfig({ dev });
  const servePages = process.env.DASHBOARD !== 'false';
  const services = createServices({ config });
  await createDemoAccountIfEmpty(services, (l) => console.log(l));

  const api = createApiHandler(services, appRouter);
  let pages: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | null = null;
  let nextApp: { close?: () => Promise<void> } | null = null as { close?: () => Promise<void> } | null;
  if (servePages) {
    const createCaller = createCallerFactory(appRouter);
    providePagesCaller((headers) => createCaller(createContextInner({ services, headers, transport: 'caller' })));
    const { default: next } = await import('next');
    const app = next({ dev, dir: fileURLToPath(new URL('..', import.meta.url)), hostname: config.host, port: config.port });
    await app.prepare();
    const handle = app.getRequestHandler();
    pages = (req, res) => handle(req, res);
    nextApp = app as never;
  }

  const jobs = startJobs(services, { dispatcher: config.runDispatcher });
  let inFlight = 0;
  let shuttingDown = false;
  const server = createServer((req, res) => {
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
    if (api.owns(pathname) || !pages) {
      setSecurityHeaders(res, 'api', dev);
      void api.handle(req, res);
    } else {
      setSecurityHeaders(res, 'page', dev);
      pages(req, res).catch((err) => {
        console.error('[pages] error', err);
        if (!res.headersSent) { res.statusCode = 500; res.end('Internal error'); }
      });
    }
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  console.log(`listening on http://${config.host}:${port} (${servePages ? (dev ? 'pages in dev mode' : 'pages built') : 'API only'}, database ${config.databasePath})`);

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log(`${signal}: stopping`);
    const force = setTimeout(() => { server.closeAllConnections(); }, 10_000);
    force.unref();
    // stop accepting; idle keep-alive sockets close now, busy ones after their response
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await stopJobs(jobs);
    await nextApp?.close?.().catch(() => {});
    closeWebhookAgents();
    await services.db.close();
    console.log(`stopped cleanly (${inFlight} requests were in flight at the end)`);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error('failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
