import { z } from 'zod';
import { Data, TxId } from '../../../contract/bcb';
import type { AmountDueView } from '../../domain/pix-api/amount-due';

export const amountDueInput = z.object({ txid: TxId, data: Data.optional() });

const componente = z.object({ valor: z.string() });
export const amountDueOutput = z.object({
  data: z.string(),
  valor: z.string().nullable(),
  componentesValor: z.object({
    original: componente, multa: componente.optional(), juros: componente.optional(), abatimento: componente.optional(), desconto: componente.optional(),
  }).optional(),
  motivo: z.string().optional(),
}) satisfies z.ZodType<AmountDueView>;
