import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeOpenApiViolations } from '../support/openapi-check';

// The checker every test file runs under (vitest setupFiles) must really flag what the document does
// not allow; otherwise the suites' silence would prove nothing.
const doc = {
  openapi: '3.1.0',
  info: { title: 'Pix Payments API', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          404: { description: 'no', content: { 'application/json': { schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } } } },
        },
      },
    },
  },
  components: { schemas: { Thing: { type: 'object', required: ['id', 'amount'], properties: { id: { type: 'string' }, amount: { type: 'integer' } } } } },
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (req.url === '/openapi.json') return send(200, doc);
    if (req.url === '/things/good') return send(200, { id: 'good', amount: 1 });
    if (req.url === '/things/bad-body') return send(200, { id: 'bad', amount: '1.00' });
    if (req.url === '/things/teapot') return send(418, { message: 'no' });
    return send(404, { message: 'none' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the OpenAPI answer checker', () => {
  it('passes answers the document allows, and leaves undocumented paths alone', async () => {
    expect((await fetch(`${base}/things/good`)).status).toBe(200);
    expect((await fetch(`${base}/things/missing`)).status).toBe(404);
    expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
    expect(takeOpenApiViolations()).toEqual([]);
  });

  it('flags a body that does not match and a status the operation does not document', async () => {
    const res = await fetch(`${base}/things/bad-body`);
    // the caller still reads the body the checker read
    expect(await res.json()).toEqual({ id: 'bad', amount: '1.00' });
    await fetch(`${base}/things/teapot`);
    const found = takeOpenApiViolations();
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/GET \/things\/bad-body → 200: body does not match the document: data\/amount must be integer/);
    expect(found[1]).toMatch(/GET \/things\/teapot → 418: status not documented/);
  });
});
