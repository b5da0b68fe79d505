import { z } from 'zod';
import { CobrancaStatus, Data, DataHora, Devedor, Int32, Recebedor, Revisao, TxId, Valor } from './common';

/** The payloads the payer's bank fetches at a location (signed as a JWS): CobPayload and CobVPayload. */

const payloadBase = {
  txid: TxId,
  revisao: Revisao,
  status: CobrancaStatus,
  chave: z.string().max(77),
  solicitacaoPagador: z.string().max(140).optional(),
  infoAdicionais: z.array(z.object({ nome: z.string().max(50), valor: z.string().max(200) })).optional(),
};

/** CobPayload: GET /{pixUrlAccessToken}. */
export const CobPayload = z.object({
  ...payloadBase,
  calendario: z.object({ criacao: DataHora, apresentacao: DataHora, expiracao: Int32 }),
  devedor: Devedor.optional(),
  valor: z.object({ original: Valor, modalidadeAlteracao: z.int().min(0).max(1).optional() }),
});
export type CobPayload = z.infer<typeof CobPayload>;

/** CobVPayload: GET /cobv/{pixUrlAccessToken}?DPP=…&codMun=…, with the amount due on the DPP. */
export const CobVPayload = z.object({
  ...payloadBase,
  calendario: z.object({ criacao: DataHora, apresentacao: DataHora, dataDeVencimento: Data, validadeAposVencimento: Int32 }),
  devedor: Devedor,
  recebedor: Recebedor,
  valor: z.object({
    original: Valor.optional(),
    multa: Valor.optional(),
    juros: Valor.optional(),
    abatimento: Valor.optional(),
    desconto: Valor.optional(),
    final: Valor,
  }),
});
export type CobVPayload = z.infer<typeof CobVPayload>;

/** The query of GET /cobv/{pixUrlAccessToken}: the intended payment date and the payer's municipality. */
export const CobVPayloadConsulta = z.object({
  DPP: Data.optional(),
  codMun: z.string().regex(/^\d{7}$/, { error: 'codMun tem 7 dígitos (tabela do IBGE)' }).optional(),
});
export type CobVPayloadConsulta = z.infer<typeof CobVPayloadConsulta>;
