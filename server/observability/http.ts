import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Services } from '../services';
import { log, requestLogger } from '../log';
import type { Metrics } from './metrics';
import type { Readiness } from './readiness';
import { acceptRequestId, noteRoute, openRequest, requestRecordOf, type RequestRecord } from './request-context';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Route labels for requests no adapter matched: fixed values, so a scan of random paths adds no series. */
export const UNMATCHED_ROUTE = '(unmatched)';
export const PAGES_ROUTE = '(pages)';

/**
 * Wraps the process's request handler: request id (the caller's `x-request-id` when sane, else a new
 * one; always echoed), one JSON log line and one metrics observation per request, labelled by the
 * route template an adapter noted (`noteRoute`) or by `fallbackRoute`.
 */
export function observeRequests(o: { metrics: Metrics; fallbackRoute: (req: IncomingMessage) => string }, inner: Handler): Handler {
  // returned from a factory, not assigned to a name: tsx (esbuild keepNames) would wrap a named
  // closure in a defineProperty call on every request
  const finisher = (req: IncomingMessage, res: ServerResponse, record: RequestRecord, started: bigint) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = record.route ?? o.fallbackRoute(req);
      const method = (req.method ?? 'GET').toUpperCase();
      // a response cut short (client gone, socket destroyed) is logged as it ended, with status 0 if none was sent
      const status = res.headersSent ? res.statusCode : 0;
      o.metrics.observeRequest({ route, method, status, seconds });
      const line = {
        req_id: record.id, method, route, status, duration_ms: Math.round(seconds * 1e6) / 1e3,
        ...(record.accountId ? { account_id: record.accountId } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      if (status >= 500 || status === 0) requestLogger().warn(line, 'request');
      else requestLogger().info(line, 'request');
    };
  };
  return (req, res) => {
    const started = process.hrtime.bigint();
    const record: RequestRecord = { id: acceptRequestId(req.headers['x-request-id']), route: null, accountId: null };
    res.setHeader('x-request-id', record.id);
    const finish = finisher(req, res, record, started);
    res.on('finish', finish);
    res.on('close', finish);
    openRequest(req, record);
    inner(req, res);
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** GET /healthz, GET /readyz, GET /metrics; answers true when the request was one of them. */
export function createOpsEndpoints(o: { readiness: Readiness; metrics: Metrics; metricsToken: string | null; now: () => Date }) {
  const metricsAnswer = async (res: ServerResponse) => {
    const text = await o.metrics.render();
    res.statusCode = 200;
    res.setHeader('content-type', o.metrics.contentType);
    res.setHeader('cache-control', 'no-store');
    res.end(text);
  };
  return {
    owns(pathname: string): boolean {
      return pathname === '/healthz' || pathname === '/readyz' || pathname === '/metrics';
    },
    async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
      noteRoute(requestRecordOf(req), pathname);
      const timestamp = o.now().toISOString();
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        sendJson(res, 405, { statusCode: 405, error: 'Method Not Allowed', message: `${req.method} is not allowed on ${pathname}`, timestamp });
        return;
      }
      if (pathname === '/healthz') {
        sendJson(res, 200, { status: 'ok', timestamp });
        return;
      }
      if (pathname === '/readyz') {
        const report = await o.readiness.check();
        sendJson(res, report.ready ? 200 : 503, { status: report.ready ? 'ready' : 'not_ready', ...report, timestamp });
        return;
      }
      const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (!o.metricsToken || !m || !sameSecret(m[1], o.metricsToken)) {
        res.setHeader('www-authenticate', 'Bearer realm="metrics"');
        sendJson(res, 401, {
          statusCode: 401, error: 'Unauthorized', timestamp,
          message: o.metricsToken ? 'send Authorization: Bearer <METRICS_TOKEN>' : 'metrics need METRICS_TOKEN (bearer) or METRICS_PORT (127.0.0.1) to be configured',
        });
        return;
      }
      await metricsAnswer(res);
    },
  };
}

/**
 * METRICS_PORT: /metrics without a token on 127.0.0.1 only (whoever reaches it is on this machine: an
 * agent, a sidecar). Null when METRICS_PORT is unset.
 */
export async function serveLocalMetrics(s: Services): Promise<Server | null> {
  const { metricsPort } = s.config;
  if (metricsPort === null || !s.metrics) return null;
  const metrics = s.metrics;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      sendJson(res, 404, { statusCode: 404, error: 'Not Found', message: 'only GET /metrics is served here', timestamp: s.clock.now().toISOString() });
      return;
    }
    metrics.render().then((text) => {
      res.setHeader('content-type', metrics.contentType);
      res.setHeader('cache-control', 'no-store');
      res.end(text);
    }, (err) => {
      log.error({ err }, 'metrics could not be rendered');
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(metricsPort, '127.0.0.1', resolve); });
  const addr = server.address();
  log.info({ metrics_url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : metricsPort}/metrics` }, 'metrics listening');
  return server;
}
