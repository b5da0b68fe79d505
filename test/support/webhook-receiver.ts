import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Status this receiver answered. */
  status: number;
  /** Date.now() when the request was complete. */
  at: number;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as `answer` says. */
export async function startReceiver(answer: (r: Omit<Received, 'status' | 'at'>, n: number) => Answer = () => ({ status: 200 })) {
  const received: Received[] = [];
  const hung: http.ServerResponse[] = [];
  // requests held open unanswered right now, and the most at once (what a stalled receiver holds of the sender)
  let open = 0;
  let maxOpen = 0;
  let respond = answer;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      const r = { path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') };
      const a = respond(r, received.length);
      if (a === 'hang') {
        hung.push(res);
        open += 1;
        maxOpen = Math.max(maxOpen, open);
        res.on('close', () => { open -= 1; });
        received.push({ ...r, status: 0, at: Date.now() });
        return;
      }
      received.push({ ...r, status: a.status, at: Date.now() });
      res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) }).end(a.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    /** Requests carrying this webhook-id, in arrival order. */
    byId: (id: string) => received.filter((r) => r.headers['webhook-id'] === id),
    setAnswer(fn: typeof answer) { respond = fn; },
    /** Requests answered 'hang' whose connection is still open, and the most ever open at once. */
    hanging: () => ({ open, maxOpen }),
    async close() {
      for (const r of hung) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
