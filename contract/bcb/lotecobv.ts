import { z } from 'zod';
import { cobVRevisadaCampos, cobVSolicitadaCampos, revisaoRules, valorRules } from './cobv';
import { consultaBase, consultaIssues, DataHora, parametrosBase, TxId } from './common';
import { Problema } from './problema';

/** Batches of charges with a due date (`lotecobv`). */

/** The body of PUT /lotecobv/{id}: every charge of the batch, each with its txid. */
export const LoteCobVSolicitado = z.strictObject({
  descricao: z.string().min(1, { error: 'a descrição é obrigatória' }),
  // each item is judged as a single charge is, with the same paths under it
  cobsv: z.array(z.strictObject({ txid: TxId, ...cobVSolicitadaCampos }).superRefine(valorRules)).min(1, { error: 'o lote tem ao menos uma cobrança' }),
});
export type LoteCobVSolicitado = z.infer<typeof LoteCobVSolicitado>;

/** The body of PATCH /lotecobv/{id}: some of the batch's charges, revised. */
export const LoteCobVRevisado = z.strictObject({
  descricao: z.string().min(1).optional(),
  cobsv: z.array(z.strictObject({ txid: TxId, ...cobVRevisadaCampos }).superRefine(revisaoRules)).min(1, { error: 'ao menos uma cobrança' }).optional(),
});
export type LoteCobVRevisado = z.infer<typeof LoteCobVRevisado>;

/** LoteCobVConsultado: GET /lotecobv/{id}; a refused charge carries its problem. */
export const LoteCobVConsultado = z.object({
  id: z.int(),
  descricao: z.string(),
  criacao: DataHora,
  cobsv: z.array(z.object({
    txid: TxId,
    status: z.enum(['EM_PROCESSAMENTO', 'CRIADA', 'NEGADA']),
    problema: Problema.optional(),
    criacao: DataHora.optional(),
  })),
});
export type LoteCobVConsultado = z.infer<typeof LoteCobVConsultado>;

export const LoteCobVConsulta = z.object(consultaBase).superRefine(consultaIssues);
export type LoteCobVConsulta = z.infer<typeof LoteCobVConsulta>;
export const LotesCobVConsultados = z.object({ parametros: z.object(parametrosBase), lotes: z.array(LoteCobVConsultado) });
export type LotesCobVConsultados = z.infer<typeof LotesCobVConsultados>;
