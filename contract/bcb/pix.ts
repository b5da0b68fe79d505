import { z } from 'zod';
import {
  Cnpj, consultaBase, consultaIssues, Cpf, DataHora, DevolucaoId, EndToEndId, parametrosBase, QueryBoolean, TxIdConsulta,
  Valor, ValorPositivo,
} from './common';

/** The Pix received and their devoluções: Pix (with componentesValor and devolucoes), Devolucao, the list. */

const componente = z.object({ valor: Valor });
const retiradaRecebida = {
  valor: Valor,
  modalidadeAgente: z.enum(['AGTEC', 'AGTOT', 'AGPSS']),
  prestadorDoServicoDeSaque: z.string().regex(/^[0-9A-Z]{8}$/),
};

/** componentesValor: how the Pix's `valor` is made (original + multa + juros − abatimento − desconto). */
export const ComponentesValor = z.object({
  original: componente.optional(),
  saque: z.object(retiradaRecebida).optional(),
  troco: z.object({ ...retiradaRecebida, modalidadeAgente: z.enum(['AGTEC', 'AGTOT']) }).optional(),
  juros: componente.optional(),
  multa: componente.optional(),
  abatimento: componente.optional(),
  desconto: componente.optional(),
});
export type ComponentesValor = z.infer<typeof ComponentesValor>;

export const DevolucaoStatus = z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO']);
export const DevolucaoNatureza = z.enum(['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO']);

/** Devolucao: PUT and GET /pix/{e2eid}/devolucao/{id}, and each of a Pix's `devolucoes`. */
export const Devolucao = z.object({
  id: DevolucaoId,
  rtrId: z.string().regex(/^[a-zA-Z0-9]{32}$/),
  valor: Valor,
  natureza: DevolucaoNatureza.optional(),
  descricao: z.string().max(140).optional(),
  horario: z.object({ solicitacao: DataHora.optional(), liquidacao: DataHora.optional() }),
  status: DevolucaoStatus,
  motivo: z.string().max(140).optional(),
});
export type Devolucao = z.infer<typeof Devolucao>;

/** DevolucaoSolicitada: the body of PUT /pix/{e2eid}/devolucao/{id}. */
export const DevolucaoSolicitada = z.strictObject({
  valor: ValorPositivo,
  natureza: z.enum(['ORIGINAL', 'RETIRADA'], { error: 'natureza é ORIGINAL ou RETIRADA' }).optional(),
  descricao: z.string().max(140, { error: 'descricao tem no máximo 140 caracteres' }).optional(),
});
export type DevolucaoSolicitada = z.infer<typeof DevolucaoSolicitada>;

/** Pix: a Pix received (GET /pix/{e2eid}, the lists, a charge's `pix`, the webhook's `{"pix":[…]}`). */
export const Pix = z.object({
  endToEndId: EndToEndId,
  txid: TxIdConsulta.optional(),
  valor: Valor,
  componentesValor: ComponentesValor.optional(),
  chave: z.string().max(77).optional(),
  horario: DataHora,
  infoPagador: z.string().max(140).optional(),
  devolucoes: z.array(Devolucao).optional(),
});
export type Pix = z.infer<typeof Pix>;

/** The query of GET /pix. */
export const PixConsulta = z.object({
  ...consultaBase,
  txid: TxIdConsulta.optional(),
  txIdPresente: QueryBoolean.optional(),
  devolucaoPresente: QueryBoolean.optional(),
  cpf: Cpf.optional(),
  cnpj: Cnpj.optional(),
}).superRefine(consultaIssues);
export type PixConsulta = z.infer<typeof PixConsulta>;

/** ParametrosConsultaPix and PixConsultados: GET /pix. */
export const ParametrosConsultaPix = z.object({
  ...parametrosBase,
  txid: TxIdConsulta.optional(),
  txIdPresente: z.boolean().optional(),
  devolucaoPresente: z.boolean().optional(),
  cpf: Cpf.optional(),
  cnpj: Cnpj.optional(),
});
export const PixConsultados = z.object({ parametros: ParametrosConsultaPix, pix: z.array(Pix) });
export type PixConsultados = z.infer<typeof PixConsultados>;

/** The body POSTed to `{webhookUrl}/pix` (WebhookPixBody). */
export const WebhookPixBody = z.object({ pix: z.array(Pix) });
export type WebhookPixBody = z.infer<typeof WebhookPixBody>;
