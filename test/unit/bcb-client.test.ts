import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../support/bcb-api';
import { BCB_YAML_PATH, bcbExamples, expectBcbResponse } from '../support/bcb-contract';

/**
 * The client generated from the Banco Central's yaml (test/support/bcb-api.d.ts, openapi-typescript;
 * driven with openapi-fetch), for the /v2 flow tests: the committed types are what the yaml generates
 * today, and the client sends what the yaml says over HTTP (here to a recorder on 127.0.0.1).
 */

describe('the generated API Pix client', () => {
  it('test/support/bcb-api.d.ts is what openapi-typescript generates from the yaml', async () => {
    const generated = astToString(await openapiTS(new URL(`file://${BCB_YAML_PATH}`)));
    const committed = readFileSync(new URL('../support/bcb-api.d.ts', import.meta.url), 'utf8');
    // the CLI adds a banner of comments: compare the declarations
    const strip = (s: string) => s.replace(/^\/\*\*[\s\S]*?\*\/\n+/, '').trim();
    expect(strip(committed)).toBe(strip(generated));
  }, 60_000);

  let server: Server;
  const seen: { method: string; url: string; body: string; auth: string | undefined }[] = [];
  const answer = bcbExamples(['/cobv/{txid}']).find((e) => e.method === 'PUT' && e.use === 201)!.value as Record<string, unknown>;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        // (test/support/openapi-check.ts asks every origin for /openapi.json first: not the client's)
        if (req.url !== '/openapi.json') seen.push({ method: req.method!, url: req.url!, body, auth: req.headers.authorization });
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends PUT /v2/cobv/{txid} with the body and token, and reads the typed answer', async () => {
    const { port } = server.address() as AddressInfo;
    const client = createClient<paths>({ baseUrl: `http://127.0.0.1:${port}/v2`, headers: { authorization: 'Bearer t' } });
    const txid = 'fb2761260e554ad593c7226beb5cb650';
    const { data, response } = await client.PUT('/cobv/{txid}', {
      params: { path: { txid } },
      body: {
        calendario: { dataDeVencimento: '2030-12-31', validadeAposVencimento: 30 },
        devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
        valor: { original: '123.45', multa: { modalidade: 2, valorPerc: '2.00' } },
        chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
      },
    });
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'PUT', url: `/v2/cobv/${txid}`, auth: 'Bearer t' });
    expect(JSON.parse(seen[0].body).valor.multa).toEqual({ modalidade: 2, valorPerc: '2.00' });
    expect(data?.txid).toBe(answer.txid);
    // the recorder answered the yaml's own example, which lacks location: the harness says so
    expect(() => expectBcbResponse('PUT', '/cobv/{txid}', 201, data)).toThrow(/location/);
  });
});
