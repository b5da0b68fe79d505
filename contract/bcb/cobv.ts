import { z } from 'zod';
import { cobConsultaCampos, cobGeradaBase, ParametrosConsultaCob, removalAlone } from './cob';
import {
  amountToCents, Chave, consultaIssues, Data, DataHora, Devedor, DevedorCobVSolicitado, InfoAdicionais, Int32, LocSolicitada,
  MAX_AMOUNT_CENTS, Recebedor, SolicitacaoPagador, Valor,
} from './common';
import { Pix } from './pix';

/** The charge with a due date (`cobv`): CobVSolicitada, CobVRevisada, CobVGerada, CobVCompleta, the list. */

const modalidade = (max: number, what: string) => z.int({ error: `a modalidade de ${what} é um inteiro de 1 a ${max}` })
  .min(1, { error: `a modalidade de ${what} vai de 1 a ${max}` })
  .max(max, { error: `a modalidade de ${what} vai de 1 a ${max}` });

const Multa = z.strictObject({ modalidade: modalidade(2, 'multa'), valorPerc: Valor });
const Juros = z.strictObject({ modalidade: modalidade(8, 'juros'), valorPerc: Valor });
const Abatimento = z.strictObject({ modalidade: modalidade(2, 'abatimento'), valorPerc: Valor });
const DescontoDataFixa = z.strictObject({ data: Data, valorPerc: Valor });
const Desconto = z.strictObject({
  modalidade: modalidade(6, 'desconto'),
  valorPerc: Valor.optional(),
  descontoDataFixa: z.array(DescontoDataFixa).min(1, { error: 'ao menos um desconto de data fixa' }).max(3, { error: 'no máximo 3 descontos de data fixa' }).optional(),
});

/** Which modes of each component are a percentage (the rest are a value in reais). */
export const PERCENT_MODES = {
  multa: [2],
  juros: [2, 3, 4, 6, 7, 8],
  abatimento: [2],
  desconto: [2, 5, 6],
} as const;

export interface CobVValorInput {
  original?: string;
  multa?: { modalidade: number; valorPerc: string };
  juros?: { modalidade: number; valorPerc: string };
  abatimento?: { modalidade: number; valorPerc: string };
  desconto?: { modalidade: number; valorPerc?: string; descontoDataFixa?: { data: string; valorPerc: string }[] };
}

type Issue = { path: (string | number)[]; input: unknown; message: string };

/**
 * The yaml's rules on a `cobv`'s `valor` (CobVOperacaoInvalida violations), as a list of problems with
 * their paths under `valor`: a component's amount above zero; a percentage at most 100.00; an
 * abatimento or desconto below the original (below 100%); desconto modes 1–2 take `descontoDataFixa`
 * and no `valorPerc`, modes 3–6 the reverse; fixed-date discounts on distinct dates no later than the
 * due date. Exported so a revision (PATCH) can be judged again once merged with the stored charge.
 */
export function cobvValorProblems(valor: CobVValorInput, dataDeVencimento?: string): Issue[] {
  const out: Issue[] = [];
  const original = valor.original === undefined ? undefined : amountToCents(valor.original);
  if (original !== undefined) {
    if (original === 0) out.push({ path: ['original'], input: valor.original, message: 'o valor deve ser maior que zero' });
    if (original > MAX_AMOUNT_CENTS) out.push({ path: ['original'], input: valor.original, message: `o valor excede o teto de ${MAX_AMOUNT_CENTS / 100}.00` });
  }
  const amount = (component: keyof typeof PERCENT_MODES, mode: number, value: string, path: (string | number)[], belowOriginal: boolean) => {
    const cents = amountToCents(value);
    const percent = (PERCENT_MODES[component] as readonly number[]).includes(mode);
    if (cents === 0) out.push({ path, input: value, message: 'o valor deve ser maior que zero' });
    else if (percent && belowOriginal && cents >= 100_00) out.push({ path, input: value, message: 'o percentual deve ser menor que 100.00' });
    else if (percent && cents > 100_00) out.push({ path, input: value, message: 'o percentual deve ser no máximo 100.00' });
    else if (!percent && belowOriginal && original !== undefined && original > 0 && cents >= original) out.push({ path, input: value, message: 'o valor deve ser menor que o valor original' });
  };
  if (valor.multa) amount('multa', valor.multa.modalidade, valor.multa.valorPerc, ['multa', 'valorPerc'], false);
  if (valor.juros) amount('juros', valor.juros.modalidade, valor.juros.valorPerc, ['juros', 'valorPerc'], false);
  if (valor.abatimento) amount('abatimento', valor.abatimento.modalidade, valor.abatimento.valorPerc, ['abatimento', 'valorPerc'], true);
  const d = valor.desconto;
  if (d) {
    if (d.modalidade === 1 || d.modalidade === 2) {
      if (d.valorPerc !== undefined) out.push({ path: ['desconto', 'valorPerc'], input: d.valorPerc, message: 'nas modalidades 1 e 2 o desconto vai em descontoDataFixa, não em valorPerc' });
      if (!d.descontoDataFixa?.length) out.push({ path: ['desconto', 'descontoDataFixa'], input: d.descontoDataFixa, message: 'nas modalidades 1 e 2 descontoDataFixa é obrigatório' });
      const seen = new Set<string>();
      d.descontoDataFixa?.forEach((item, i) => {
        amount('desconto', d.modalidade, item.valorPerc, ['desconto', 'descontoDataFixa', i, 'valorPerc'], true);
        if (seen.has(item.data)) out.push({ path: ['desconto', 'descontoDataFixa', i, 'data'], input: item.data, message: 'datas de desconto repetidas' });
        seen.add(item.data);
        if (dataDeVencimento && item.data > dataDeVencimento) {
          out.push({ path: ['desconto', 'descontoDataFixa', i, 'data'], input: item.data, message: 'a data do desconto é posterior ao vencimento' });
        }
      });
    } else {
      if (d.descontoDataFixa !== undefined) out.push({ path: ['desconto', 'descontoDataFixa'], input: d.descontoDataFixa, message: 'nas modalidades 3 a 6 não há descontoDataFixa' });
      if (d.valorPerc === undefined) out.push({ path: ['desconto', 'valorPerc'], input: undefined, message: 'nas modalidades 3 a 6 valorPerc é obrigatório' });
      else amount('desconto', d.modalidade, d.valorPerc, ['desconto', 'valorPerc'], true);
    }
  }
  return out;
}

const CobVValorSolicitado = z.strictObject({
  original: Valor,
  multa: Multa.optional(),
  juros: Juros.optional(),
  abatimento: Abatimento.optional(),
  desconto: Desconto.optional(),
});

const CalendarioSolicitado = z.strictObject({
  dataDeVencimento: Data,
  validadeAposVencimento: Int32.refine((n) => n >= 0, { error: 'validadeAposVencimento não pode ser negativa' }).optional(),
});

/** Adds cobvValorProblems to a body that has `valor` (and maybe `calendario.dataDeVencimento`). */
export function valorRules(v: { valor?: CobVValorInput; calendario?: { dataDeVencimento?: string } }, ctx: z.RefinementCtx): void {
  if (!v.valor) return;
  for (const p of cobvValorProblems(v.valor, v.calendario?.dataDeVencimento)) {
    ctx.addIssue({ code: 'custom', path: ['valor', ...p.path], input: p.input, message: p.message });
  }
}

/** CobVSolicitada: the body of PUT /cobv/{txid} (and each of a lote's `cobsv`, with its txid). */
export const cobVSolicitadaCampos = {
  calendario: CalendarioSolicitado,
  devedor: DevedorCobVSolicitado,
  loc: LocSolicitada.optional(),
  valor: CobVValorSolicitado,
  chave: Chave,
  solicitacaoPagador: SolicitacaoPagador.optional(),
  infoAdicionais: InfoAdicionais.optional(),
};
export const CobVSolicitada = z.strictObject(cobVSolicitadaCampos).superRefine(valorRules);
export type CobVSolicitada = z.infer<typeof CobVSolicitada>;

/** CobVRevisada: the body of PATCH /cobv/{txid}; the merged charge is judged again by cobvValorProblems. */
export const cobVRevisadaCampos = {
  calendario: z.strictObject({ dataDeVencimento: Data.optional(), validadeAposVencimento: CalendarioSolicitado.shape.validadeAposVencimento }).optional(),
  devedor: DevedorCobVSolicitado.optional(),
  loc: LocSolicitada.optional(),
  status: z.literal('REMOVIDA_PELO_USUARIO_RECEBEDOR', { error: 'o único status que se pode pedir é REMOVIDA_PELO_USUARIO_RECEBEDOR' }).optional(),
  valor: z.strictObject({
    original: Valor.optional(),
    multa: Multa.optional(),
    juros: Juros.optional(),
    abatimento: Abatimento.optional(),
    desconto: Desconto.optional(),
  }).optional(),
  chave: Chave.optional(),
  solicitacaoPagador: SolicitacaoPagador.optional(),
  infoAdicionais: InfoAdicionais.optional(),
};
export function revisaoRules(v: Record<string, unknown> & { valor?: CobVValorInput; calendario?: { dataDeVencimento?: string } }, ctx: z.RefinementCtx): void {
  removalAlone(v, ctx);
  valorRules(v, ctx);
}
export const CobVRevisada = z.strictObject(cobVRevisadaCampos).superRefine(revisaoRules);
export type CobVRevisada = z.infer<typeof CobVRevisada>;

const componenteGerado = (max: number) => z.object({ modalidade: z.int().min(1).max(max), valorPerc: Valor });

/** CobVValor as answered. */
export const CobVValor = z.object({
  original: Valor,
  multa: componenteGerado(2).optional(),
  juros: componenteGerado(8).optional(),
  abatimento: componenteGerado(2).optional(),
  desconto: z.object({
    modalidade: z.int().min(1).max(6),
    valorPerc: Valor.optional(),
    descontoDataFixa: z.array(z.object({ data: Data, valorPerc: Valor })).min(1).max(3).optional(),
  }).optional(),
});

/** CobVGerada: what PUT and PATCH of a `cobv` answer. */
export const CobVGerada = z.object({
  ...cobGeradaBase,
  location: z.string().max(77),
  calendario: z.object({ criacao: DataHora, dataDeVencimento: Data, validadeAposVencimento: Int32 }),
  devedor: Devedor,
  recebedor: Recebedor,
  valor: CobVValor,
});
export type CobVGerada = z.infer<typeof CobVGerada>;

/** CobVCompleta: GET /cobv/{txid}, with the Pix received for it. */
export const CobVCompleta = CobVGerada.extend({ pix: z.array(Pix).optional() });
export type CobVCompleta = z.infer<typeof CobVCompleta>;

/** The query of GET /cobv. */
export const CobVConsulta = z.object({
  ...cobConsultaCampos,
  loteCobVId: z.string().regex(/^\d{1,9}$/, { error: 'loteCobVId é um número inteiro' }).transform(Number).optional(),
}).superRefine(consultaIssues);
export type CobVConsulta = z.infer<typeof CobVConsulta>;

/** CobsVConsultadas: GET /cobv. */
export const CobsVConsultadas = z.object({ parametros: ParametrosConsultaCob, cobs: z.array(CobVCompleta) });
export type CobsVConsultadas = z.infer<typeof CobsVConsultadas>;
