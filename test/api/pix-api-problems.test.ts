import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cobVSolicitadaCampos, TxId, valorRules } from '../../contract/bcb';
import { DomainError } from '../../server/errors';
import { createRestAdapter } from '../../server/http/rest';
import { publicProcedure, router } from '../../server/trpc';
import { expectBcbResponse } from '../support/bcb-contract';
import { makeTestServices, type TestServices } from '../support/services';

/**
 * The /v2 branch of the one error path, through the real REST adapter: a route whose meta says
 * envelope 'pix-api' answers its failures as the yaml's RFC 7807 problems. The operations themselves
 * come later; this router holds one stand-in with the contract's schema, so only the edge is tested.
 */

let s: TestServices;
let rest: ReturnType<typeof createRestAdapter>;
beforeAll(async () => {
  s = await makeTestServices();
  const v2 = router({
    putCobv: publicProcedure
      .meta({ openapi: { method: 'PUT', path: '/v2/cobv/{txid}' }, envelope: 'pix-api', pixApi: { invalid: 'CobVOperacaoInvalida', resource: 'cobv' }, successStatus: 201 })
      // the body's fields and the path's txid, as the REST adapter merges them
      .input(z.strictObject({ ...cobVSolicitadaCampos, txid: TxId }).superRefine(valorRules))
      .output(z.unknown())
      .mutation(({ input }) => {
        if (input.valor.original === '99.99') throw new DomainError('INVALID_STATE', 'Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.');
        if (input.valor.original === '88.88') throw new DomainError('NOT_FOUND', 'no such charge');
        return { ok: true };
      }),
  });
  rest = createRestAdapter(s, v2);
});
afterAll(async () => { await s.cleanup(); });

const txid = 'fb2761260e554ad593c7226beb5cb650';
const body = (original: string, extra: Record<string, unknown> = {}) => JSON.stringify({
  calendario: { dataDeVencimento: '2030-12-31' },
  devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
  valor: { original, juros: { modalidade: 9, valorPerc: '1.00' } },
  chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
  ...extra,
});
const put = (path: string, b: string, type = 'application/json') =>
  rest.handle(new Request(`http://localhost${path}`, { method: 'PUT', headers: { 'content-type': type }, body: b }));

describe('/v2 failures are the yaml problems', () => {
  it('a schema violation: 400 CobVOperacaoInvalida, problem+json, violacoes with the property and the value', async () => {
    const res = await put(`/v2/cobv/${txid}`, body('10.5', { extra: 1 }));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = await res.json();
    expectBcbResponse('PUT', '/cobv/{txid}', 400, p);
    expect(p).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida', title: 'Cobrança inválida.', status: 400 });
    expect(p.violacoes).toEqual(expect.arrayContaining([
      { razao: expect.any(String), propriedade: 'cobv.valor.original', valor: '10.5' },
      { razao: expect.stringContaining('modalidade'), propriedade: 'cobv.valor.juros.modalidade', valor: '9' },
      { razao: 'campo não previsto no schema', propriedade: 'cobv.extra', valor: '1' },
    ]));
  });

  it('a state the domain refuses is the route type with 400 and the domain detail; not found is NaoEncontrado', async () => {
    const fine = (original: string) => body(original).replace('"modalidade":9', '"modalidade":2');
    let res = await put(`/v2/cobv/${txid}`, fine('99.99'));
    let p = await res.json();
    expect(res.status).toBe(400);
    expect(p).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida', detail: expect.stringContaining('ATIVA') });
    expectBcbResponse('PUT', '/cobv/{txid}', 400, p);
    res = await put(`/v2/cobv/${txid}`, fine('88.88'));
    p = await res.json();
    expect(res.status).toBe(404);
    expect(p).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado', status: 404 });
    expectBcbResponse('PUT', '/cobv/{txid}', 404, p);
    res = await put(`/v2/cobv/${txid}`, fine('10.00'));
    expect(res.status).toBe(201);
  });

  it('malformed JSON and an unknown /v2 path answer problems too; another method is 405 about:blank', async () => {
    let res = await put(`/v2/cobv/${txid}`, '{"valor":');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida', status: 400 });
    res = await rest.handle(new Request('http://localhost/v2/nope/1'));
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado', status: 404 });
    res = await rest.handle(new Request(`http://localhost/v2/cobv/${txid}`, { method: 'DELETE' }));
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ type: 'about:blank', status: 405, title: 'Method Not Allowed' });
  });
});
