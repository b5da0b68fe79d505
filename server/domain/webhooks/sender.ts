import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { classifyAddress, guardedLookup, parseHostLiteral } from './url-guard';

export interface SendWebhookInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The whole exchange: connect, send, headers and the excerpt read. */
  timeoutMs: number;
  /**
   * Shorter deadlines for the first steps (from the attempt's start, within timeoutMs): a receiver that
   * cannot be reached, or accepts and never answers, gives its slot back after these instead of timeoutMs.
   */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  allowPrivate: boolean;
}

export interface SendWebhookResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  /** First 1024 bytes of the answer body, decoded as UTF-8. */
  responseExcerpt: string;
  /** Short, fixed-vocabulary reason; never includes the URL (it may carry tokens) or headers. */
  error: string | null;
}

export const RESPONSE_EXCERPT_BYTES = 1024;

/*
 * Connection reuse: one keep-alive Agent per (scheme, allowPrivate). An Agent already pools
 * per origin (host:port), so this is effectively a keep-alive pool per origin. agent:false would
 * open a TCP (and TLS) connection per delivery and leave one TIME_WAIT port behind each: at
 * 1,000/s that is ~60k ports in a minute. Reused sockets were checked by guardedLookup when they
 * connected, and stay bound to that checked IP, so reuse does not weaken the SSRF guard; the
 * allowPrivate flag is part of the key so a socket opened under the permissive policy is never
 * lent to a strict one.
 *  - maxSockets 64 per origin: a backstop; the delivery engine's per-host cap
 *    (WEBHOOK_MAX_IN_FLIGHT_PER_HOST, fair-share.ts) keeps below it, so no request waits in the
 *    pool with its connect timer running.
 *  - timeout 4 s idle (free sockets only are destroyed on it): below Node's default server
 *    keepAliveTimeout (5 s), so we rarely write to a socket the peer is closing.
 *  - lifo: surplus sockets go idle and time out after a burst.
 */
const agents = new Map<string, http.Agent>();

function agentFor(protocol: 'http:' | 'https:', allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate ? 'private-ok' : 'public-only'}`;
  let agent = agents.get(key);
  if (!agent) {
    const opts: http.AgentOptions = {
      keepAlive: true,
      keepAliveMsecs: 1_000,
      maxSockets: 64,
      maxFreeSockets: 64,
      timeout: 4_000,
      scheduling: 'lifo',
    };
    agent = protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
    agents.set(key, agent);
  }
  return agent;
}

/** Closes pooled sockets (tests, graceful shutdown). */
export function closeWebhookAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

interface Attempt {
  status: number | null;
  excerpt: string;
  error: string | null;
  /** A pooled socket died before any answer: the peer closed it while idle, safe to retry once. */
  staleSocket: boolean;
}

function describeError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EPRIVATEADDRESS':
      return 'refused: host resolves to a private or reserved address';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DNS lookup failed (${err.code})`;
    case 'ECONNRESET':
      return 'connection reset';
    default:
      // Codes are short and secret-free; messages can embed hosts/paths, so avoid them.
      if (err.code) return `request failed (${err.code})`;
      return 'request failed';
  }
}

/**
 * At most `max` bytes of `buf` as UTF-8, cut on a character boundary: a character split at the limit
 * would decode to U+FFFD (3 bytes) and push the stored excerpt past 1 KiB.
 */
export function utf8Prefix(buf: Buffer, max: number): string {
  if (buf.length <= max) return buf.toString('utf8');
  let end = max;
  // buf[end] is the first byte left out; while it continues a character, that character straddles the limit
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

function attempt(url: URL, host: string, input: SendWebhookInput, remainingMs: number): Promise<Attempt> {
  return new Promise<Attempt>((resolve) => {
    const protocol = url.protocol as 'http:' | 'https:';
    const chunks: Buffer[] = [];
    let received = 0;
    let status: number | null = null;
    let gotResponse = false;
    let settled = false;
    let res: http.IncomingMessage | undefined;
    let timer: NodeJS.Timeout | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    let headersTimer: NodeJS.Timeout | undefined;

    const excerpt = () => utf8Prefix(Buffer.concat(chunks), RESPONSE_EXCERPT_BYTES);
    const settle = (error: string | null, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(connectTimer);
      clearTimeout(headersTimer);
      resolve({ status, excerpt: excerpt(), error, staleSocket });
    };

    const req = (protocol === 'https:' ? https : http).request({
      method: 'POST',
      protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body, 'utf8')) },
      agent: agentFor(protocol, input.allowPrivate),
      // Connect-time SSRF check for names (DNS rebinding); IP literals were checked by the caller.
      lookup: guardedLookup(input.allowPrivate),
    });

    const giveUp = (error: string) => () => {
      settle(error);
      res?.destroy();
      req.destroy();
    };
    // One deadline for the whole exchange: connect, send, headers and the excerpt read.
    timer = setTimeout(giveUp(`timeout after ${input.timeoutMs} ms`), Math.max(0, remainingMs));
    // Shorter ones for the steps a stalled receiver never gets past (only when shorter than what is left).
    const { connectTimeoutMs, headersTimeoutMs } = input;
    if (connectTimeoutMs !== undefined && connectTimeoutMs < remainingMs) {
      connectTimer = setTimeout(giveUp(`connect timeout after ${connectTimeoutMs} ms`), connectTimeoutMs);
      req.on('socket', (socket) => {
        // a pooled keep-alive socket is connected already
        if (req.reusedSocket) clearTimeout(connectTimer);
        else socket.once(protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
    }
    if (headersTimeoutMs !== undefined && headersTimeoutMs < remainingMs) {
      headersTimer = setTimeout(giveUp(`no response headers after ${headersTimeoutMs} ms`), headersTimeoutMs);
    }

    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && !gotResponse && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      settle(describeError(err), stale);
    });

    req.on('response', (r) => {
      clearTimeout(headersTimer);
      res = r;
      gotResponse = true;
      status = r.statusCode ?? null;
      r.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (received < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
        received += chunk.length;
        if (received > RESPONSE_EXCERPT_BYTES) {
          // Enough for the record; don't download an unbounded body. Destroying costs the
          // keep-alive socket, which is fine for this rare case (typical answers are tiny).
          settle(null);
          r.destroy();
        }
      });
      // A fully read answer hands its socket back to the pool for the next delivery.
      r.on('end', () => settle(null));
      r.on('error', () => settle('connection closed mid-response'));
      r.on('close', () => settle(r.complete ? null : 'connection closed mid-response'));
    });

    req.end(input.body);
  });
}

const fail = (error: string, started: number): SendWebhookResult => ({
  ok: false,
  status: null,
  durationMs: Math.round(performance.now() - started),
  responseExcerpt: '',
  error,
});

/**
 * POSTs one signed delivery. Never throws. Success = a 2xx within timeoutMs; redirects are not
 * followed (a 3xx is a failure carrying its status).
 */
export async function sendWebhook(input: SendWebhookInput): Promise<SendWebhookResult> {
  const started = performance.now();
  try {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      return fail('invalid URL', started);
    }
    // Re-checked here (not just at registration): scheme rules hold even with allowPrivate.
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('only http and https URLs are allowed', started);
    if (url.username !== '' || url.password !== '') return fail('credentials in the URL are not allowed', started);
    if (url.hostname === '') return fail('hostname required', started);

    // Node connects to IP literals without calling `lookup`, so check them before connecting.
    // new URL() has already turned decimal/hex/short IPv4 forms into dotted quads.
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (!input.allowPrivate) {
      const literal = parseHostLiteral(host);
      if (literal !== null && classifyAddress(literal) !== 'public') {
        return fail('refused: private or reserved address', started);
      }
    }

    const deadline = started + input.timeoutMs;
    let a = await attempt(url, host, input, deadline - performance.now());
    // Standard keep-alive race: the receiver closed an idle pooled socket just as we wrote.
    // Nothing was answered, so retry once on a fresh connection within the same deadline.
    if (a.staleSocket && deadline - performance.now() > 0) {
      a = await attempt(url, host, input, deadline - performance.now());
    }

    const status2xx = a.status !== null && a.status >= 200 && a.status < 300;
    let error = a.error;
    if (error === null && !status2xx) {
      error = a.status !== null && a.status >= 300 && a.status < 400
        ? `redirect not followed (HTTP ${a.status})`
        : `unexpected status HTTP ${a.status}`;
    }
    return {
      ok: error === null && status2xx,
      status: a.status,
      durationMs: Math.round(performance.now() - started),
      responseExcerpt: a.excerpt,
      error,
    };
  } catch {
    return fail('internal error while sending', started);
  }
}
