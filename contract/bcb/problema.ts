import { z } from 'zod';

/** Problema (RFC 7807) and Violacao as the yaml defines them; what /v2 answers on every failure. */
export const Violacao = z.object({ razao: z.string(), propriedade: z.string(), valor: z.string().optional() });
export type Violacao = z.infer<typeof Violacao>;

export const Problema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string().optional(),
  correlationId: z.string().optional(),
  violacoes: z.array(Violacao).optional(),
});
export type Problema = z.infer<typeof Problema>;
