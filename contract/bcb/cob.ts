import { z } from 'zod';
import {
  amountToCents, Chave, CobrancaStatus, consultaBase, consultaIssues, Cnpj, Cpf, DataHora, Devedor, DevedorCobSolicitado,
  InfoAdicionais, Int32, LocSolicitada, parametrosBase, PayloadLocation, QueryBoolean, Revisao, SolicitacaoPagador, TxId,
  MAX_AMOUNT_CENTS, Valor,
} from './common';
import { Pix } from './pix';

/** The immediate charge (`cob`) of the yaml: CobSolicitada, CobRevisada, CobGerada, CobCompleta, the list. */

const ISPB = z.string().regex(/^[0-9A-Z]{8}$/, { error: 'o ISPB tem 8 caracteres [0-9A-Z]' });
const modalidadeAlteracao = z.int().min(0, { error: 'modalidadeAlteracao é 0 ou 1' }).max(1, { error: 'modalidadeAlteracao é 0 ou 1' });
const Saque = z.strictObject({
  valor: Valor,
  modalidadeAlteracao: modalidadeAlteracao.optional(),
  modalidadeAgente: z.enum(['AGTEC', 'AGTOT', 'AGPSS']),
  prestadorDoServicoDeSaque: ISPB,
});
const Troco = z.strictObject({
  valor: Valor,
  modalidadeAlteracao: modalidadeAlteracao.optional(),
  modalidadeAgente: z.enum(['AGTEC', 'AGTOT']),
  prestadorDoServicoDeSaque: ISPB,
});
/** Pix Saque or Pix Troco: one of them, never both. */
export const Retirada = z.strictObject({ saque: Saque.optional(), troco: Troco.optional() }).superRefine((r, ctx) => {
  if ((r.saque === undefined) === (r.troco === undefined)) {
    ctx.addIssue({ code: 'custom', path: [], input: r, message: 'informe saque ou troco, um deles' });
  }
});

/**
 * The yaml's rules on a `cob`'s `valor` (CobValor's text and the CobOperacaoInvalida violations):
 * `original` above zero, except a Pix Saque (exactly 0.00) or a payer-set amount (modalidadeAlteracao
 * 1, 0.00 allowed); a Pix Troco needs `original` above zero; neither allows modalidadeAlteracao 1.
 */
export function cobValorIssues(v: { original?: string; modalidadeAlteracao?: number; retirada?: { saque?: unknown; troco?: unknown } }, ctx: z.RefinementCtx): void {
  if (v.original === undefined) return;
  const cents = amountToCents(v.original);
  if (v.retirada?.saque !== undefined) {
    if (cents !== 0) ctx.addIssue({ code: 'custom', path: ['original'], input: v.original, message: 'com saque, o valor original é 0.00' });
  } else if (cents === 0 && !(v.modalidadeAlteracao === 1 && v.retirada === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['original'], input: v.original, message: 'o valor deve ser maior que zero' });
  }
  if (v.retirada !== undefined && v.modalidadeAlteracao === 1) {
    ctx.addIssue({ code: 'custom', path: ['modalidadeAlteracao'], input: 1, message: 'com saque ou troco o valor original não pode ser alterado pelo pagador' });
  }
}

/** `valor.original` of a request: the pattern and the ceiling; zero is judged by cobValorIssues. */
const OriginalSolicitado = Valor.refine((s) => amountToCents(s) <= MAX_AMOUNT_CENTS, { error: `o valor excede o teto de ${MAX_AMOUNT_CENTS / 100}.00` });
const CobValorSolicitado = z.strictObject({
  original: OriginalSolicitado,
  modalidadeAlteracao: modalidadeAlteracao.optional(),
  retirada: Retirada.optional(),
}).superRefine(cobValorIssues);

const Expiracao = Int32.refine((n) => n > 0, { error: 'a expiração é um número de segundos maior que zero' });

/** CobSolicitada: the body of PUT /cob/{txid} and POST /cob. */
export const CobSolicitada = z.strictObject({
  calendario: z.strictObject({ expiracao: Expiracao.optional() }),
  devedor: DevedorCobSolicitado.optional(),
  loc: LocSolicitada.optional(),
  valor: CobValorSolicitado,
  chave: Chave,
  solicitacaoPagador: SolicitacaoPagador.optional(),
  infoAdicionais: InfoAdicionais.optional(),
});
export type CobSolicitada = z.infer<typeof CobSolicitada>;

/**
 * A revision may remove the charge, but not remove it and change it at once (CobOperacaoInvalida). The
 * path's `txid`, which the REST adapter merges into the body, is no change.
 */
export function removalAlone(v: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (v.status !== undefined && Object.keys(v).some((k) => k !== 'status' && k !== 'txid' && v[k] !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['status'], input: v.status, message: 'a remoção da cobrança não pode vir junto com outras alterações' });
  }
}

/** CobRevisada: the body of PATCH /cob/{txid}. */
export const CobRevisada = z.strictObject({
  calendario: z.strictObject({ expiracao: Expiracao.optional() }).optional(),
  devedor: DevedorCobSolicitado.optional(),
  loc: LocSolicitada.optional(),
  status: z.literal('REMOVIDA_PELO_USUARIO_RECEBEDOR', { error: 'o único status que se pode pedir é REMOVIDA_PELO_USUARIO_RECEBEDOR' }).optional(),
  valor: z.strictObject({
    original: OriginalSolicitado.optional(),
    modalidadeAlteracao: modalidadeAlteracao.optional(),
    retirada: Retirada.optional(),
  }).superRefine(cobValorIssues).optional(),
  chave: Chave.optional(),
  solicitacaoPagador: SolicitacaoPagador.optional(),
  infoAdicionais: InfoAdicionais.optional(),
}).superRefine(removalAlone);
export type CobRevisada = z.infer<typeof CobRevisada>;

const SaqueGerado = z.object({
  valor: Valor,
  modalidadeAlteracao: z.int().min(0).max(1).optional(),
  modalidadeAgente: z.enum(['AGTEC', 'AGTOT', 'AGPSS']),
  prestadorDoServicoDeSaque: z.string().regex(/^[0-9A-Z]{8}$/),
});
const TrocoGerado = SaqueGerado.extend({ modalidadeAgente: z.enum(['AGTEC', 'AGTOT']) });

/** The fields every answered charge has (CobBase, CobBaseCopiaCola, txid, revisao, status). */
export const cobGeradaBase = {
  txid: TxId,
  revisao: Revisao,
  loc: PayloadLocation.optional(),
  location: z.string().max(77).optional(),
  status: CobrancaStatus,
  devedor: Devedor.optional(),
  chave: z.string().max(77),
  solicitacaoPagador: z.string().max(140).optional(),
  infoAdicionais: z.array(z.object({ nome: z.string().max(50), valor: z.string().max(200) })).optional(),
  pixCopiaECola: z.string().max(512).optional(),
};

/** CobGerada: what PUT, POST and PATCH of a `cob` answer. */
export const CobGerada = z.object({
  ...cobGeradaBase,
  calendario: z.object({ criacao: DataHora, expiracao: Int32 }),
  valor: z.object({
    original: Valor,
    modalidadeAlteracao: z.int().min(0).max(1).optional(),
    retirada: z.object({ saque: SaqueGerado.optional(), troco: TrocoGerado.optional() }).optional(),
  }),
});
export type CobGerada = z.infer<typeof CobGerada>;

/** CobCompleta: GET /cob/{txid}, with the Pix received for it. */
export const CobCompleta = CobGerada.extend({ pix: z.array(Pix).optional() });
export type CobCompleta = z.infer<typeof CobCompleta>;

/** The query of GET /cob (and, with loteCobVId, of GET /cobv). */
export const cobConsultaCampos = {
  ...consultaBase,
  cpf: Cpf.optional(),
  cnpj: Cnpj.optional(),
  locationPresente: QueryBoolean.optional(),
  status: z.string().optional(),
};
export const CobConsulta = z.object(cobConsultaCampos).superRefine(consultaIssues);
export type CobConsulta = z.infer<typeof CobConsulta>;

/** ParametrosConsultaCob: the `parametros` of GET /cob and GET /cobv. */
export const ParametrosConsultaCob = z.object({
  ...parametrosBase,
  cpf: Cpf.optional(),
  cnpj: Cnpj.optional(),
  locationPresente: z.boolean().optional(),
  status: z.string().optional(),
});

/** CobsConsultadas: GET /cob. */
export const CobsConsultadas = z.object({ parametros: ParametrosConsultaCob, cobs: z.array(CobCompleta) });
export type CobsConsultadas = z.infer<typeof CobsConsultadas>;

/** GET /cob/{txid}?revisao=n. */
export const RevisaoConsulta = z.object({
  revisao: z.string().regex(/^\d{1,9}$/, { error: 'a revisão é um número inteiro não negativo' }).transform(Number).optional(),
});
