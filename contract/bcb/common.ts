import { z } from 'zod';
import { cnpjProblem, cpfProblem } from '../pix/documents';

/**
 * The building blocks of the Banco Central's API Pix (docs/bcb-pix-api-2.9.0.yaml, release 2.9.0) as
 * zod: names, formats and patterns as the yaml writes them, anchored (the yaml's patterns are not, so
 * as JSON Schema `"[a-zA-Z0-9]{26,35}"` also matched `abc-…`; its text means the whole value), with
 * the reasons (`razao`) in Portuguese as the standard's violations are. Request schemas refuse unknown
 * fields (a closed set: what the yaml declares); response schemas keep to the declared fields.
 */

/** Amounts on this surface: a string of 1 to 10 digits, a point and 2 decimals (`"123.45"`). */
export const AMOUNT_PATTERN = /^\d{1,10}\.\d{2}$/;
/** The ceiling of every amount we accept (DECISIONS "Money": 100,000,000,000 cents). */
export const MAX_AMOUNT_CENTS = 100_000_000_000;

/** A yaml amount as integer cents ("123.45" → 12345); the string must match AMOUNT_PATTERN. */
export function amountToCents(amount: string): number {
  const [units, cents] = amount.split('.');
  return Number(units) * 100 + Number(cents);
}

/** Integer cents as a yaml amount (12345 → "123.45"). */
export function centsToAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`not a non-negative integer of hundredths: ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** Any amount the yaml's pattern allows (responses, `valorPerc`, which may be a percentage). */
// abort: the checks after the pattern read the amount, which only means something once it matches
export const Valor = z.string().regex(AMOUNT_PATTERN, { error: 'valor fora do formato \\d{1,10}\\.\\d{2} (ex.: "123.45")', abort: true });

/** An amount a caller asks us to charge or return: the pattern, above zero and at most the ceiling. */
export const ValorPositivo = Valor
  .refine((s) => amountToCents(s) > 0, { error: 'o valor deve ser maior que zero' })
  .refine((s) => amountToCents(s) <= MAX_AMOUNT_CENTS, { error: `o valor excede o teto de ${centsToAmount(MAX_AMOUNT_CENTS)}` });

/** The txid a caller chooses (PUT /cob/{txid}, /cobv/{txid}): 26 to 35 letters and digits. */
export const TxId = z.string().regex(/^[a-zA-Z0-9]{26,35}$/, { error: 'o txid deve ter de 26 a 35 caracteres [a-zA-Z0-9]' });
/** A txid as the list filters and a Pix received take it: 1 to 35 letters and digits. */
export const TxIdConsulta = z.string().regex(/^[a-zA-Z0-9]{1,35}$/, { error: 'o txid deve ter de 1 a 35 caracteres [a-zA-Z0-9]' });
export const EndToEndId = z.string().regex(/^[a-zA-Z0-9]{32}$/, { error: 'o endToEndId tem 32 caracteres [a-zA-Z0-9]' });
export const DevolucaoId = z.string().regex(/^[a-zA-Z0-9]{1,35}$/, { error: 'o id da devolução tem de 1 a 35 caracteres [a-zA-Z0-9]' });
export const Revisao = z.int().min(0);
/** A JSON integer of the yaml's int32. */
export const Int32 = z.int().min(-(2 ** 31)).max(2 ** 31 - 1);
export const PayloadLocationId = z.int().positive();

export const DataHora = z.iso.datetime({ offset: true, error: 'data e hora no formato RFC 3339 (ex.: 2020-09-09T20:15:00.358Z)' });
export const Data = z.iso.date({ error: 'data no formato YYYY-MM-DD' });

/** `chave`: a DICT key (phone, e-mail, CPF/CNPJ or EVP), at most 77 characters. */
export const Chave = z.string().min(1, { error: 'a chave é obrigatória' }).max(77, { error: 'a chave tem no máximo 77 caracteres' });
export const SolicitacaoPagador = z.string().max(140, { error: 'solicitacaoPagador tem no máximo 140 caracteres' });
/** The yaml writes `maximum: 50` on this array; it means 50 items. */
export const InfoAdicionais = z.array(z.strictObject({
  nome: z.string().max(50, { error: 'nome tem no máximo 50 caracteres' }),
  valor: z.string().max(200, { error: 'valor tem no máximo 200 caracteres' }),
})).max(50, { error: 'no máximo 50 informações adicionais' });

export const CobrancaStatus = z.enum(['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP']);

const CPF_PATTERN = /^\d{11}$/;
const CNPJ_PATTERN = /^[0-9A-Z]{14}$/;
/** A CPF as the yaml writes it (11 digits); requests also check the digits (issue 26 item 3). */
export const Cpf = z.string().regex(CPF_PATTERN, { error: 'o CPF tem 11 dígitos, sem pontuação' });
export const Cnpj = z.string().regex(CNPJ_PATTERN, { error: 'o CNPJ tem 14 caracteres [0-9A-Z], sem pontuação' });
const CpfValido = Cpf.refine((s) => cpfProblem(s) === null, { error: 'CPF inválido: dígitos verificadores não conferem' });
const CnpjValido = Cnpj.refine((s) => cnpjProblem(s) === null, { error: 'CNPJ inválido: dígitos verificadores não conferem' });
const Nome = z.string().min(1, { error: 'o nome é obrigatório' }).max(200, { error: 'o nome tem no máximo 200 caracteres' });

/** The yaml's `oneOf` PessoaFisica | PessoaJuridica: exactly one of cpf and cnpj. */
function exactlyOneDocument(v: { cpf?: string; cnpj?: string }, ctx: z.RefinementCtx): void {
  if (v.cpf !== undefined && v.cnpj !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['cnpj'], input: v.cnpj, message: 'informe cpf ou cnpj, não ambos' });
  } else if (v.cpf === undefined && v.cnpj === undefined) {
    ctx.addIssue({ code: 'custom', path: ['cpf'], input: undefined, message: 'informe cpf ou cnpj' });
  }
}

const pessoaSolicitada = { cpf: CpfValido.optional(), cnpj: CnpjValido.optional(), nome: Nome };
const dadosComplementares = {
  email: z.string().optional(),
  logradouro: z.string().max(200, { error: 'logradouro tem no máximo 200 caracteres' }).optional(),
  cidade: z.string().max(200, { error: 'cidade tem no máximo 200 caracteres' }).optional(),
  uf: z.string().max(2, { error: 'uf tem no máximo 2 caracteres' }).optional(),
  cep: z.string().max(8, { error: 'cep tem no máximo 8 caracteres' }).optional(),
};

/** `devedor` of a `cob` request: PessoaFisica | PessoaJuridica. */
export const DevedorCobSolicitado = z.strictObject(pessoaSolicitada).superRefine(exactlyOneDocument);
/** `devedor` of a `cobv` request: DadosDevedor (a person or a company, with e-mail and address). */
export const DevedorCobVSolicitado = z.strictObject({ ...pessoaSolicitada, ...dadosComplementares }).superRefine(exactlyOneDocument);

/** `devedor` as answered (no check digits: we answer what was stored). */
export const Devedor = z.object({ cpf: Cpf.optional(), cnpj: Cnpj.optional(), nome: z.string().max(200), ...dadosComplementares });
/** `recebedor` of a `cobv` as answered (DadosRecebedor): a person or a company, with its address. */
export const Recebedor = z.object({
  cpf: Cpf.optional(),
  cnpj: Cnpj.optional(),
  nome: z.string().max(200),
  nomeFantasia: z.string().max(200).optional(),
  email: z.string().optional(),
  logradouro: z.string().max(200),
  cidade: z.string().max(200),
  uf: z.string().max(2),
  cep: z.string().max(8),
});

/** A request's `loc`: the id of a location created by POST /loc (`tipoCob`, required by the yaml, is accepted). */
export const LocSolicitada = z.strictObject({ id: PayloadLocationId, tipoCob: z.enum(['cob', 'cobv']).optional() });

export const TipoCob = z.enum(['cob', 'cobv']);
/** PayloadLocation: the location of a charge's payload; `location` has no scheme, as in the BR Code. */
export const PayloadLocation = z.object({
  id: PayloadLocationId,
  location: z.string().max(77),
  tipoCob: TipoCob,
  criacao: DataHora,
});
export type PayloadLocation = z.infer<typeof PayloadLocation>;

export const Paginacao = z.object({
  paginaAtual: z.int().min(0),
  itensPorPagina: z.int().min(1),
  quantidadeDePaginas: z.int().min(1),
  quantidadeTotalDeItens: z.int().min(0),
});

/**
 * A boolean query parameter: the query string carries text, so `true`/`false` are read here (and only
 * those: not `1`, not `yes`), never by a coercion that would also turn `"0"` into true.
 */
export const QueryBoolean = z.enum(['true', 'false'], { error: 'use true ou false' }).transform((s) => s === 'true');
/** An integer query parameter (`paginacao.paginaAtual=2`): digits only. */
const queryInt = (min: number, max: number, dflt: number) => z.string()
  .regex(/^\d{1,9}$/, { error: 'um número inteiro não negativo' })
  .transform(Number)
  .pipe(z.int().min(min, { error: `no mínimo ${min}` }).max(max, { error: `no máximo ${max}` }))
  .default(dflt);

/** inicio, fim and the paging of every list (`paginacao.paginaAtual`, `paginacao.itensPorPagina`). */
export const consultaBase = {
  inicio: DataHora,
  fim: DataHora,
  'paginacao.paginaAtual': queryInt(0, 2 ** 31 - 1, 0),
  'paginacao.itensPorPagina': queryInt(1, 1000, 100),
};

/** The list rules the yaml's *ConsultaInvalida violations name: fim not before inicio; not both cpf and cnpj. */
export function consultaIssues(q: { inicio?: string; fim?: string; cpf?: string; cnpj?: string }, ctx: z.RefinementCtx): void {
  if (q.inicio && q.fim && Date.parse(q.fim) < Date.parse(q.inicio)) {
    ctx.addIssue({ code: 'custom', path: ['fim'], input: q.fim, message: 'fim é anterior a inicio' });
  }
  if (q.cpf !== undefined && q.cnpj !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['cnpj'], input: q.cnpj, message: 'use cpf ou cnpj, não ambos' });
  }
}

/** The `parametros` a list answers with. */
export const parametrosBase = { inicio: DataHora, fim: DataHora, paginacao: Paginacao };
