import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as bcb from '../../contract/bcb';
import { zodIssues } from '../../server/zod-issues';
import { problemBody, PIX_API_PROBLEMS, PROBLEM_TYPE_BASE, type PixApiRoute } from '../../server/domain/pix-api/problem';
import {
  bcbExamples, BCB_CHARGE_PATHS, bcbYaml, checkBcbRequest, checkBcbResponse, checkBcbSchema, expectBcbResponse, READINGS,
  type BcbExample,
} from '../support/bcb-contract';

/**
 * The contract layer of /v2 against the Banco Central's yaml itself: the harness (ajv over the yaml),
 * the zod schemas (they accept the yaml's examples, and ajv accepts what they produce), and the
 * violacoes a bad request gets. No database, no server: pure contract.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const clone = <T>(v: T): T => structuredClone(v);

/**
 * The yaml's examples that break its own (consistent) schema, each with the one repair that makes it
 * valid. Tests assert each fails as shipped and passes repaired, so a repair never hides a second defect.
 */
const EXAMPLE_DEFECTS: Record<string, { why: string; repair(v: Json): void }> = {
  cobBody1: { why: 'modalidade written as strings ("2"); the schema says integer', repair: (v) => {
    for (const k of ['multa', 'juros', 'desconto']) v.valor[k].modalidade = Number(v.valor[k].modalidade);
  } },
  cobBody6: { why: 'no calendario, which CobSolicitada requires', repair: (v) => { v.calendario = { expiracao: 3600 }; } },
  cobBody8: { why: 'no calendario, which CobSolicitada requires', repair: (v) => { v.calendario = { expiracao: 3600 }; } },
  cobBody9: { why: 'no calendario, which CobSolicitada requires', repair: (v) => { v.calendario = { expiracao: 3600 }; } },
  cobResponse1: { why: 'loc without criacao', repair: (v) => { v.loc.criacao = v.calendario.criacao; } },
  cobResponse2: { why: 'loc without tipoCob and criacao', repair: (v) => { Object.assign(v.loc, { tipoCob: 'cob', criacao: v.calendario.criacao }); } },
  cobResponse3: { why: 'loc without criacao', repair: (v) => { v.loc.criacao = v.calendario.criacao; } },
  cobResponse4: { why: 'loc without criacao; no location, which CobVGerada requires', repair: (v) => {
    v.loc.criacao = v.calendario.criacao; v.location = v.loc.location;
  } },
  cobResponse5: { why: 'loc without criacao', repair: (v) => { v.loc.criacao = v.calendario.criacao; } },
  cobResponse6: { why: 'loc without criacao', repair: (v) => { v.loc.criacao = v.calendario.criacao; } },
  cobResponse7: { why: 'loc without criacao', repair: (v) => { v.loc.criacao = v.calendario.criacao; } },
  loteCobVResponse1: { why: 'no id, which LoteCobVConsultado requires', repair: (v) => { v.id = 1; } },
  loteCobVResponse2: { why: 'no id, which LoteCobVConsultado requires', repair: (v) => { v.id = 2; } },
  pixResponse2: { why: 'an endToEndId of 34 characters (32)', repair: (v) => { v.endToEndId = v.endToEndId.slice(0, 32); } },
  pixResponse3: {
    // (the second is invisible to ajv: componentesValor is an anyOf that PixValorOriginal alone satisfies)
    why: 'an endToEndId of 34 characters (32); saque.prestadorDeServicoDeSaque for the schema\'s prestadorDoServicoDeSaque',
    repair: (v) => {
      v.endToEndId = v.endToEndId.slice(0, 32);
      const s = v.componentesValor.saque;
      s.prestadorDoServicoDeSaque = s.prestadorDeServicoDeSaque;
      delete s.prestadorDeServicoDeSaque;
    },
  },
  getWebhook1: { why: 'its item is a Pix Automático webhook (recWebhookResponse1), without chave', repair: (v) => { v.webhooks[0].chave = '40a0932d-1918-4eee-845d-35a2da1690dc'; } },
};
const LIST_ITEMS: Record<string, { list: string; items: string[] }> = {
  getCobs1: { list: 'cobs', items: ['cobResponse1', 'cobResponse2', 'cobResponse5', 'cobResponse6', 'cobResponse7'] },
  getCobs2: { list: 'cobs', items: ['cobResponse1'] },
  getCobsV1: { list: 'cobs', items: ['cobResponse4'] },
  getPix1: { list: 'pix', items: ['pixResponse1', 'pixResponse2', 'pixResponse3'] },
  getLotesCobsV: { list: 'lotes', items: ['loteCobVResponse1', 'loteCobVResponse2'] },
};

/** An example as the yaml ships it, or repaired of its known defects (its own, or its list items'). */
function repaired(e: BcbExample): Json {
  const v = clone(e.value) as Json;
  EXAMPLE_DEFECTS[e.name]?.repair(v);
  const list = LIST_ITEMS[e.name];
  if (list) list.items.forEach((item, i) => EXAMPLE_DEFECTS[item]?.repair(v[list.list][i]));
  return v;
}
const defective = (e: BcbExample) => e.name in EXAMPLE_DEFECTS || (LIST_ITEMS[e.name]?.items.some((i) => i in EXAMPLE_DEFECTS) ?? false);
const check = (e: BcbExample, v: unknown) => (e.use === 'request' ? checkBcbRequest(e.method, e.path, v) : checkBcbResponse(e.method, e.path, e.use, v));

const examples = bcbExamples(BCB_CHARGE_PATHS);

/** The zod schema of each example's operation and use (request body, or answer). */
function zodFor(e: BcbExample): z.ZodType | null {
  const key = `${e.method} ${e.path} ${e.use}`;
  const map: Record<string, z.ZodType> = {
    'PUT /cob/{txid} request': bcb.CobSolicitada, 'POST /cob request': bcb.CobSolicitada, 'PATCH /cob/{txid} request': bcb.CobRevisada,
    'PUT /cob/{txid} 201': bcb.CobGerada, 'POST /cob 201': bcb.CobGerada, 'PATCH /cob/{txid} 200': bcb.CobGerada,
    'GET /cob/{txid} 200': bcb.CobCompleta, 'GET /cob 200': bcb.CobsConsultadas,
    'PUT /cobv/{txid} request': bcb.CobVSolicitada, 'PATCH /cobv/{txid} request': bcb.CobVRevisada,
    'PUT /cobv/{txid} 201': bcb.CobVGerada, 'PATCH /cobv/{txid} 200': bcb.CobVGerada, 'GET /cobv/{txid} 200': bcb.CobVCompleta,
    'GET /cobv 200': bcb.CobsVConsultadas,
    'PUT /lotecobv/{id} request': bcb.LoteCobVSolicitado, 'PATCH /lotecobv/{id} request': bcb.LoteCobVRevisado,
    'GET /lotecobv/{id} 200': bcb.LoteCobVConsultado, 'GET /lotecobv 200': bcb.LotesCobVConsultados,
    'POST /loc request': bcb.PayloadLocationSolicitada, 'POST /loc 201': bcb.PayloadLocationCompleta,
    'GET /loc/{id} 200': bcb.PayloadLocationCompleta, 'DELETE /loc/{id}/txid 200': bcb.PayloadLocationCompleta,
    'GET /loc 200': bcb.PayloadLocationConsultadas,
    'GET /pix/{e2eid} 200': bcb.Pix, 'GET /pix 200': bcb.PixConsultados,
    'PUT /pix/{e2eid}/devolucao/{id} request': bcb.DevolucaoSolicitada, 'PUT /pix/{e2eid}/devolucao/{id} 201': bcb.Devolucao,
    'GET /pix/{e2eid}/devolucao/{id} 200': bcb.Devolucao,
    'PUT /webhook/{chave} request': bcb.WebhookSolicitado, 'GET /webhook/{chave} 200': bcb.WebhookCompleto, 'GET /webhook 200': bcb.WebhooksConsultados,
    'GET /{pixUrlAccessToken} 200': bcb.CobPayload, 'GET /cobv/{pixUrlAccessToken} 200': bcb.CobVPayload,
  };
  if (typeof e.use === 'number' && e.use >= 400) return bcb.Problema;
  return map[key] ?? null;
}

describe('the harness (test/support/bcb-contract.ts)', () => {
  it('loads the yaml with every reading still applying to a defect that is there', () => {
    expect(bcbYaml().doc.info.version).toBe('2.9.0');
    expect(READINGS.length).toBeGreaterThan(0);
    // slash-literal patterns are read without the slashes: a CPF of 11 digits matches
    expect(checkBcbSchema('PessoaFisica', { cpf: '12345678909', nome: 'Ana' }).ok).toBe(true);
    expect(checkBcbSchema('PessoaFisica', { cpf: '1234567890', nome: 'Ana' }).ok).toBe(false);
  });

  it('accepts an answer the yaml allows and refuses one it does not, naming the property', () => {
    const pix = { endToEndId: 'E12345678202009091221abcdef12345', valor: '100.00', horario: '2020-09-10T13:03:33.902Z' };
    expect(() => expectBcbResponse('GET', '/v2/pix/{e2eid}', 200, pix)).not.toThrow();
    expect(() => expectBcbResponse('GET', '/pix/{e2eid}', 200, { ...pix, valor: '100' })).toThrow(/\/valor must match pattern/);
    expect(() => expectBcbResponse('GET', '/pix/{e2eid}', 200, { valor: '1.00', horario: pix.horario })).toThrow(/endToEndId/);
    expect(() => expectBcbResponse('GET', '/pix/{e2eid}', 200, { ...pix, horario: 'yesterday' })).toThrow(/date-time/);
  });

  it('refuses a status the operation does not document, and a body where the yaml gives none', () => {
    expect(() => expectBcbResponse('GET', '/pix/{e2eid}', 418, {})).toThrow(/does not allow 418/);
    expect(() => expectBcbResponse('PUT', '/lotecobv/{id}', 202, undefined)).not.toThrow();
    expect(() => expectBcbResponse('PUT', '/lotecobv/{id}', 202, { ok: true })).toThrow(/no body/);
    expect(() => expectBcbResponse('DELETE', '/webhook/{chave}', 204, '')).not.toThrow();
    expect(() => expectBcbResponse('GET', '/nope', 200, {})).toThrow(/no operation/);
  });

  it('checks problems against Problema (type, title and status required)', () => {
    expect(() => expectBcbResponse('PUT', '/cob/{txid}', 400, { type: `${PROBLEM_TYPE_BASE}CobOperacaoInvalida`, title: 'x', status: 400 })).not.toThrow();
    expect(() => expectBcbResponse('GET', '/cob/{txid}', 404, { title: 'x', status: 404 })).toThrow(/type/);
  });
});

describe("the yaml's own examples", () => {
  it('are all found: 100 or more on the charge side', () => {
    expect(examples.length).toBeGreaterThanOrEqual(100);
  });

  for (const e of examples) {
    it(`${e.method} ${e.path} ${e.use} ${e.name}: ajv accepts it${defective(e) ? ' repaired (and refuses it as shipped)' : ''}`, () => {
      if (defective(e)) expect(check(e, e.value).ok).toBe(false);
      const r = check(e, repaired(e));
      expect(r.errors).toBe('');
    });
  }

  for (const e of examples) {
    const schema = zodFor(e);
    if (!schema) continue;
    it(`${e.method} ${e.path} ${e.use} ${e.name}: zod accepts it and ajv accepts what zod gives`, () => {
      const parsed = schema.safeParse(repaired(e));
      expect(parsed.success ? [] : zodIssues(parsed.error)).toEqual([]);
      const round = check(e, JSON.parse(JSON.stringify(parsed.data)));
      expect(round.errors).toBe('');
    });
  }

  it('every operation with examples has its zod schema', () => {
    const missing = examples.filter((e) => !zodFor(e)).map((e) => `${e.method} ${e.path} ${e.use}`);
    expect([...new Set(missing)]).toEqual([]);
  });
});

/** A valid cobv body to break one field at a time. */
function cobv(): Json {
  return {
    calendario: { dataDeVencimento: '2030-12-31', validadeAposVencimento: 30 },
    devedor: { cpf: '12345678909', nome: 'Francisco da Silva', cidade: 'Recife', uf: 'PE' },
    valor: {
      original: '123.45',
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 2, valorPerc: '0.03' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2030-12-01', valorPerc: '10.00' }] },
    },
    chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
  };
}
function cob(): Json {
  return { calendario: { expiracao: 3600 }, valor: { original: '37.00' }, chave: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906' };
}

/** The violacoes a /v2 route would answer for `input` refused by `schema`. */
function violacoesOf(schema: z.ZodType, input: unknown, route: PixApiRoute) {
  const r = schema.safeParse(input);
  expect(r.success).toBe(false);
  const issues = zodIssues(r.error!);
  const body = problemBody({ code: 'VALIDATION', status: 400, detail: 'x', extra: { issues } }, route, { correlationId: 'req_1', input });
  expect(body.type).toBe(`${PROBLEM_TYPE_BASE}${route.invalid}`);
  expect(body.status).toBe(400);
  expect(body.correlationId).toBe('req_1');
  return body.violacoes!;
}
const COBV: PixApiRoute = { invalid: 'CobVOperacaoInvalida', resource: 'cobv' };
const COB: PixApiRoute = { invalid: 'CobOperacaoInvalida', resource: 'cob' };

describe('bad input (issue 26 "Bad input") gets violacoes naming the property and the value', () => {
  it('a valid cobv and a valid cob pass, and the yaml accepts what zod gives', () => {
    const v = bcb.CobVSolicitada.parse(cobv());
    expect(checkBcbRequest('PUT', '/cobv/{txid}', v).errors).toBe('');
    expect(checkBcbRequest('PUT', '/cob/{txid}', bcb.CobSolicitada.parse(cob())).errors).toBe('');
  });

  it('txid too short, or with "-"', () => {
    expect(bcb.TxId.safeParse('a'.repeat(26)).success).toBe(true);
    expect(bcb.TxId.safeParse('a'.repeat(35)).success).toBe(true);
    for (const bad of ['a'.repeat(25), `${'a'.repeat(26)}-x`, 'a'.repeat(36), '']) {
      const list = violacoesOf(bcb.TxId, bad, { invalid: 'CobOperacaoInvalida', resource: 'cob.txid' });
      expect(list).toEqual([{ razao: expect.stringContaining('26 a 35'), propriedade: 'cob.txid' }]);
    }
    // the yaml's unanchored pattern would have let the "-" through: ours does not
    expect(checkBcbSchema('TxId', `${'a'.repeat(26)}-x`).ok).toBe(true);
  });

  for (const amount of ['10', '10.5', '-10.00', '10.000', '1,00', '12345678901.00']) {
    it(`amount ${JSON.stringify(amount)} is refused by its pattern`, () => {
      const body = cob(); body.valor.original = amount;
      expect(violacoesOf(bcb.CobSolicitada, body, COB)).toEqual([{ razao: expect.stringContaining('\\d{1,10}\\.\\d{2}'), propriedade: 'cob.valor.original', valor: amount }]);
    });
  }

  it('amount "0.00" and an amount above the ceiling', () => {
    let body = cob(); body.valor.original = '0.00';
    expect(violacoesOf(bcb.CobSolicitada, body, COB)).toEqual([{ razao: 'o valor deve ser maior que zero', propriedade: 'cob.valor.original', valor: '0.00' }]);
    body = cobv(); body.valor.original = '0.00';
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'o valor deve ser maior que zero', propriedade: 'cobv.valor.original', valor: '0.00' }]);
    body = cobv(); body.valor.original = '1000000000.01';
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)[0]).toMatchObject({ propriedade: 'cobv.valor.original', valor: '1000000000.01' });
    // a payer-set amount may start at 0.00, as CobValor's text says
    body = cob(); body.valor = { original: '0.00', modalidadeAlteracao: 1 };
    expect(bcb.CobSolicitada.safeParse(body).success).toBe(true);
  });

  it('cob.calendario.expiracao zero or negative', () => {
    const body = cob(); body.calendario.expiracao = 0;
    expect(violacoesOf(bcb.CobSolicitada, body, COB)).toEqual([{ razao: expect.stringContaining('maior que zero'), propriedade: 'cob.calendario.expiracao', valor: '0' }]);
  });

  it('modalidade out of range, for each component', () => {
    const cases: [string, number][] = [['multa', 3], ['juros', 9], ['juros', 0], ['abatimento', 3], ['desconto', 7]];
    for (const [k, m] of cases) {
      const body = cobv();
      body.valor[k] = k === 'desconto' ? { modalidade: m, valorPerc: '1.00' } : { modalidade: m, valorPerc: '1.00' };
      const list = violacoesOf(bcb.CobVSolicitada, body, COBV);
      expect(list).toContainEqual({ razao: expect.stringContaining('modalidade'), propriedade: `cobv.valor.${k}.modalidade`, valor: String(m) });
    }
    const body = cobv(); body.valor.juros.modalidade = '2';
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: expect.stringContaining('inteiro'), propriedade: 'cobv.valor.juros.modalidade', valor: '2' }]);
  });

  it('valorPerc missing where the mode needs it, present where it must not be, and not a percentage', () => {
    let body = cobv(); body.valor.desconto = { modalidade: 3 };
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: expect.stringContaining('valorPerc é obrigatório'), propriedade: 'cobv.valor.desconto.valorPerc' }]);
    body = cobv(); body.valor.desconto = { modalidade: 1, valorPerc: '1.00', descontoDataFixa: [{ data: '2030-12-01', valorPerc: '1.00' }] };
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: expect.stringContaining('não em valorPerc'), propriedade: 'cobv.valor.desconto.valorPerc', valor: '1.00' }]);
    body = cobv(); body.valor.desconto = { modalidade: 2 };
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: expect.stringContaining('descontoDataFixa é obrigatório'), propriedade: 'cobv.valor.desconto.descontoDataFixa' }]);
    body = cobv(); delete body.valor.multa.valorPerc;
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'campo obrigatório ausente', propriedade: 'cobv.valor.multa.valorPerc' }]);
    body = cobv(); body.valor.multa = { modalidade: 2, valorPerc: '150.00' };
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'o percentual deve ser no máximo 100.00', propriedade: 'cobv.valor.multa.valorPerc', valor: '150.00' }]);
    body = cobv(); body.valor.abatimento = { modalidade: 2, valorPerc: '100.00' };
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'o percentual deve ser menor que 100.00', propriedade: 'cobv.valor.abatimento.valorPerc', valor: '100.00' }]);
    body = cobv(); body.valor.abatimento = { modalidade: 1, valorPerc: '123.45' };
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'o valor deve ser menor que o valor original', propriedade: 'cobv.valor.abatimento.valorPerc', valor: '123.45' }]);
    body = cobv(); body.valor.desconto.descontoDataFixa[0].data = '2031-01-01';
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'a data do desconto é posterior ao vencimento', propriedade: 'cobv.valor.desconto.descontoDataFixa.0.data', valor: '2031-01-01' }]);
  });

  it('validadeAposVencimento negative', () => {
    const body = cobv(); body.calendario.validadeAposVencimento = -1;
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'validadeAposVencimento não pode ser negativa', propriedade: 'cobv.calendario.validadeAposVencimento', valor: '-1' }]);
  });

  it('devedor with both or neither of CPF and CNPJ, or a CPF whose check digits fail', () => {
    let body = cobv(); body.devedor.cnpj = '12345678000195';
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'informe cpf ou cnpj, não ambos', propriedade: 'cobv.devedor.cnpj', valor: '12345678000195' }]);
    body = cobv(); delete body.devedor.cpf;
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'informe cpf ou cnpj', propriedade: 'cobv.devedor.cpf' }]);
    body = cob(); body.devedor = { cpf: '12345678900', nome: 'Ana' };
    expect(violacoesOf(bcb.CobSolicitada, body, COB)).toEqual([{ razao: expect.stringContaining('dígitos verificadores'), propriedade: 'cob.devedor.cpf', valor: '12345678900' }]);
    body = cobv(); delete body.devedor;
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([{ razao: 'campo obrigatório ausente', propriedade: 'cobv.devedor' }]);
  });

  it('unknown fields, at the top and nested', () => {
    const body = cobv(); body.desconto = 5; body.valor.multa.extra = 'x';
    expect(violacoesOf(bcb.CobVSolicitada, body, COBV)).toEqual([
      { razao: 'campo não previsto no schema', propriedade: 'cobv.valor.multa.extra', valor: 'x' },
      { razao: 'campo não previsto no schema', propriedade: 'cobv.desconto', valor: '5' },
    ].sort((a, b) => (a.propriedade < b.propriedade ? 1 : -1)));
  });

  it('a revision that removes the charge and changes it at once', () => {
    const list = violacoesOf(bcb.CobVRevisada, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', valor: { original: '1.00' } }, COBV);
    expect(list).toEqual([{ razao: expect.stringContaining('remoção'), propriedade: 'cobv.status', valor: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }]);
    expect(bcb.CobVRevisada.safeParse({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }).success).toBe(true);
  });

  it('list queries: fim before inicio, cpf and cnpj together, a page size above 1000, a boolean that is not one', () => {
    const route: PixApiRoute = { invalid: 'PixConsultaInvalida' };
    const q = { inicio: '2020-04-02T00:00:00Z', fim: '2020-04-01T00:00:00Z', cpf: '12345678909', cnpj: '12345678000195', 'paginacao.itensPorPagina': '1001', txIdPresente: '1' };
    expect(violacoesOf(bcb.PixConsulta, q, route).map((v) => v.propriedade).sort()).toEqual(['paginacao.itensPorPagina', 'txIdPresente']);
    expect(violacoesOf(bcb.PixConsulta, { ...q, 'paginacao.itensPorPagina': '10', txIdPresente: 'true' }, route).map((v) => v.propriedade).sort()).toEqual(['cnpj', 'fim']);
    expect(bcb.PixConsulta.parse({ inicio: q.fim, fim: q.inicio, txIdPresente: 'false' })).toMatchObject({ 'paginacao.paginaAtual': 0, 'paginacao.itensPorPagina': 100, txIdPresente: false });
  });

  it('devolução: natureza outside ORIGINAL and RETIRADA, a zero amount', () => {
    const route: PixApiRoute = { invalid: 'PixDevolucaoInvalida', resource: 'devolucao' };
    expect(violacoesOf(bcb.DevolucaoSolicitada, { valor: '0.00' }, route)).toEqual([{ razao: 'o valor deve ser maior que zero', propriedade: 'devolucao.valor', valor: '0.00' }]);
    expect(violacoesOf(bcb.DevolucaoSolicitada, { valor: '1.00', natureza: 'MED_FRAUDE' }, route)[0]).toMatchObject({ propriedade: 'devolucao.natureza', valor: 'MED_FRAUDE' });
  });
});

describe('problems (server/domain/pix-api/problem.ts)', () => {
  it('each type is one the yaml lists, with its status', () => {
    const text = bcbYaml().doc.info.description as string;
    for (const [name, p] of Object.entries(PIX_API_PROBLEMS)) {
      const section = new RegExp(`### \`${name}\`[\\s\\S]*?HTTP Status Code__: \\[(\\d{3})`).exec(text);
      expect(section, name).not.toBeNull();
      expect(p.status, name).toBe(Number(section![1]));
    }
  });

  it('maps the domain failures to the general types, a refused state to the route type, the rest to about:blank', () => {
    const at = (code: string, status: number, extra = {}) => problemBody({ code, status, detail: 'd', extra }, COBV, {});
    expect(at('INVALID_STATE', 422)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}CobVOperacaoInvalida`, status: 400, detail: 'd' });
    expect(at('NOT_FOUND', 404)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}NaoEncontrado`, status: 404 });
    expect(at('FORBIDDEN', 403)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}AcessoNegado`, status: 403, title: 'Acesso Negado' });
    expect(at('INTERNAL', 500)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}ErroInternoDoServidor`, status: 500, detail: PIX_API_PROBLEMS.ErroInternoDoServidor.detail });
    expect(at('DATABASE_UNAVAILABLE', 503)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}ServicoIndisponivel`, status: 503 });
    expect(at('UNAUTHORIZED', 401)).toMatchObject({ type: 'about:blank', status: 401, title: 'Unauthorized' });
    expect(at('CONFLICT', 409, { problem: 'PixDevolucaoInvalida' })).toMatchObject({ type: `${PROBLEM_TYPE_BASE}PixDevolucaoInvalida`, status: 400 });
    for (const body of [at('INVALID_STATE', 422), at('NOT_FOUND', 404), at('INTERNAL', 500)]) {
      expect(checkBcbSchema('Problema', body).errors).toBe('');
    }
  });
});
