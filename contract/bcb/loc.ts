import { z } from 'zod';
import { consultaBase, consultaIssues, DataHora, parametrosBase, PayloadLocation, PayloadLocationId, QueryBoolean, TipoCob, TxId } from './common';

/** Payload locations (`loc`): where the payer's bank fetches a charge's signed payload. */

/** PayloadLocationSolicitada: the body of POST /loc. */
export const PayloadLocationSolicitada = z.strictObject({ tipoCob: z.enum(['cob', 'cobv'], { error: 'tipoCob é cob ou cobv' }) });
export type PayloadLocationSolicitada = z.infer<typeof PayloadLocationSolicitada>;

/** PayloadLocationCompleta: GET /loc/{id}, with the txid of the charge it serves, if any. */
export const PayloadLocationCompleta = z.object({
  id: PayloadLocationId,
  txid: TxId.optional(),
  location: z.string().max(77),
  tipoCob: TipoCob,
  criacao: DataHora,
});
export type PayloadLocationCompleta = z.infer<typeof PayloadLocationCompleta>;

/** The query of GET /loc. */
export const PayloadLocationConsulta = z.object({
  ...consultaBase,
  txIdPresente: QueryBoolean.optional(),
  tipoCob: z.enum(['cob', 'cobv'], { error: 'tipoCob é cob ou cobv' }).optional(),
}).superRefine(consultaIssues);
export type PayloadLocationConsulta = z.infer<typeof PayloadLocationConsulta>;

/** PayloadLocationConsultadas: GET /loc. */
export const PayloadLocationConsultadas = z.object({
  parametros: z.object({ ...parametrosBase, txIdPresente: z.boolean().optional(), tipoCob: TipoCob.optional() }),
  loc: z.array(PayloadLocationCompleta),
});
export type PayloadLocationConsultadas = z.infer<typeof PayloadLocationConsultadas>;
