// The payload JSON a payer's bank fetches from a dynamic QR code's location (API Pix 2.9.0, schemas
// CobPayload for `GET /{pixUrlAccessToken}` and CobVPayload for `GET /cobv/{pixUrlAccessToken}`), built
// from a charge's data. Pure: the caller supplies the charge as stored, the moment it is presented and,
// for a cobv, the amounts due on the payment date asked for (DPP), computed by the due-date rules.
// Field names, nesting and formats are the yaml's; amounts are integer cents here and "123.45" there.

export class PixPayloadError extends Error {
  override name = 'PixPayloadError';
}

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** A person or company as the yaml names one (PessoaFisica / PessoaJuridica): exactly one of cpf, cnpj. */
export type PayloadPerson = { cpf: string; cnpj?: undefined; nome: string } | { cnpj: string; cpf?: undefined; nome: string };

/** DadosComplementaresPessoa: required of the recebedor of a cobv. */
export interface PayloadAddress {
  logradouro: string;
  cidade: string;
  uf: string;
  cep: string;
}

export interface InfoAdicional {
  nome: string;
  valor: string;
}

/** What both payloads take from the charge. */
interface ChargeCommon {
  txid: string;
  revisao: number;
  status: CobStatus;
  /** When the charge was created (`calendario.criacao`). */
  criacao: Date;
  /** When this payload is presented, i.e. now (`calendario.apresentacao`). */
  apresentacao: Date;
  chave: string;
  solicitacaoPagador?: string | null;
  infoAdicionais?: InfoAdicional[] | null;
}

export interface CobCharge extends ChargeCommon {
  /** Seconds from `criacao` the charge lives (`calendario.expiracao`). */
  expiracao: number;
  devedor?: PayloadPerson | null;
  originalCents: number;
  /** 1: the payer may change the amount. Shown only when the charge set it. */
  modalidadeAlteracao?: 0 | 1 | null;
}

/** The amounts of a cobv on one payment date, integer cents: final = original + multa + juros − abatimento − desconto. */
export interface CobVAmountsDue {
  originalCents: number;
  multaCents: number;
  jurosCents: number;
  abatimentoCents: number;
  descontoCents: number;
  finalCents: number;
}

export interface CobVCharge extends ChargeCommon {
  /** São Paulo date, YYYY-MM-DD. */
  dataDeVencimento: string;
  /** Calendar days after the due date the charge can still be paid. */
  validadeAposVencimento: number;
  /** The address fields a charge may hold for its devedor are left out: the payload URL is open to anyone who has it. */
  devedor: PayloadPerson;
  recebedor: PayloadPerson & PayloadAddress & { nomeFantasia?: string | null };
  amounts: CobVAmountsDue;
}

/** Schema CobPayload. */
export interface CobPayload {
  calendario: { criacao: string; apresentacao: string; expiracao: number };
  txid: string;
  revisao: number;
  status: CobStatus;
  devedor?: { cpf: string; nome: string } | { cnpj: string; nome: string };
  valor: { original: string; modalidadeAlteracao?: 0 | 1 };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
}

/** Schema CobVPayload. */
export interface CobVPayload {
  calendario: { criacao: string; apresentacao: string; dataDeVencimento: string; validadeAposVencimento: number };
  devedor: { cpf: string; nome: string } | { cnpj: string; nome: string };
  recebedor: ({ cpf: string; nome: string } | { cnpj: string; nome: string; nomeFantasia?: string }) & PayloadAddress;
  txid: string;
  revisao: number;
  status: CobStatus;
  valor: { original: string; multa?: string; juros?: string; abatimento?: string; desconto?: string; final: string };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
}

/** Integer cents → the yaml's amount string "123.45" (pattern \d{1,10}\.\d{2}), by string arithmetic. */
export function formatValor(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new PixPayloadError(`payload: an amount must be a non-negative integer number of cents (got ${cents})`);
  const digits = String(cents).padStart(3, '0');
  if (digits.length > 12) throw new PixPayloadError(`payload: ${cents} cents is more than the 10 integer digits the yaml allows`);
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

function timestamp(label: string, d: Date): string {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new PixPayloadError(`payload: ${label} is not a valid date`);
  return d.toISOString();
}

function person(label: string, p: PayloadPerson): { cpf: string; nome: string } | { cnpj: string; nome: string } {
  // the yaml's PessoaFisica / PessoaJuridica: one document, never both (a oneOf)
  if (p.cpf !== undefined && p.cnpj === undefined && /^\d{11}$/.test(p.cpf)) return { cpf: p.cpf, nome: p.nome };
  if (p.cnpj !== undefined && p.cpf === undefined && /^[0-9A-Z]{14}$/.test(p.cnpj)) return { cnpj: p.cnpj, nome: p.nome };
  throw new PixPayloadError(`payload: ${label} needs exactly one of a cpf (11 digits) or a cnpj (14 of 0-9A-Z)`);
}

function common(c: ChargeCommon) {
  if (!TXID.test(c.txid)) throw new PixPayloadError(`payload: txid "${c.txid}" is not 26 to 35 letters or digits`);
  if (!Number.isSafeInteger(c.revisao) || c.revisao < 0) throw new PixPayloadError(`payload: revisao must be a non-negative integer (got ${c.revisao})`);
  return {
    txid: c.txid,
    revisao: c.revisao,
    status: c.status,
    chave: c.chave,
    // optional fields appear only when the charge has them: the yaml's examples never send nulls
    ...(c.solicitacaoPagador ? { solicitacaoPagador: c.solicitacaoPagador } : {}),
    ...(c.infoAdicionais?.length ? { infoAdicionais: c.infoAdicionais.map(({ nome, valor }) => ({ nome, valor })) } : {}),
  };
}

/** The payload of an immediate charge (cob), in the yaml's order of its example cobPayload1. */
export function buildCobPayload(c: CobCharge): CobPayload {
  if (!Number.isSafeInteger(c.expiracao) || c.expiracao <= 0) throw new PixPayloadError(`payload: expiracao must be a positive number of seconds (got ${c.expiracao})`);
  if (c.originalCents <= 0) throw new PixPayloadError('payload: valor.original must be above zero');
  const { txid, revisao, status, ...rest } = common(c);
  return {
    calendario: { criacao: timestamp('criacao', c.criacao), apresentacao: timestamp('apresentacao', c.apresentacao), expiracao: c.expiracao },
    txid,
    revisao,
    status,
    ...(c.devedor ? { devedor: person('devedor', c.devedor) } : {}),
    valor: {
      original: formatValor(c.originalCents),
      ...(c.modalidadeAlteracao === 0 || c.modalidadeAlteracao === 1 ? { modalidadeAlteracao: c.modalidadeAlteracao } : {}),
    },
    ...rest,
  };
}

/**
 * The payload of a charge with a due date (cobv) on one payment date, in the yaml's order of its
 * example cobPayload2. `valor` shows the original, each component that applies that day (multa,
 * juros, abatimento, desconto: only those above zero, as the example shows) and the final amount.
 */
export function buildCobVPayload(c: CobVCharge): CobVPayload {
  if (!isCalendarDate(c.dataDeVencimento)) throw new PixPayloadError(`payload: dataDeVencimento "${c.dataDeVencimento}" is not a YYYY-MM-DD date`);
  if (!Number.isSafeInteger(c.validadeAposVencimento) || c.validadeAposVencimento < 0) {
    throw new PixPayloadError(`payload: validadeAposVencimento must be a non-negative integer (got ${c.validadeAposVencimento})`);
  }
  const a = c.amounts;
  if (a.originalCents <= 0) throw new PixPayloadError('payload: valor.original must be above zero');
  const computed = a.originalCents + a.multaCents + a.jurosCents - a.abatimentoCents - a.descontoCents;
  if (computed !== a.finalCents) {
    throw new PixPayloadError(`payload: valor.final ${a.finalCents} is not original + multa + juros − abatimento − desconto = ${computed}`);
  }
  const component = (name: 'multa' | 'juros' | 'abatimento' | 'desconto', cents: number) => {
    const text = formatValor(cents); // refuses a negative or fractional component even when it is left out
    return cents > 0 ? { [name]: text } : {};
  };
  const r = c.recebedor;
  const recebedorPerson = person('recebedor', r);
  const { txid, revisao, status, ...rest } = common(c);
  return {
    calendario: {
      criacao: timestamp('criacao', c.criacao),
      apresentacao: timestamp('apresentacao', c.apresentacao),
      dataDeVencimento: c.dataDeVencimento,
      validadeAposVencimento: c.validadeAposVencimento,
    },
    devedor: person('devedor', c.devedor),
    recebedor: {
      logradouro: r.logradouro,
      cidade: r.cidade,
      uf: r.uf,
      cep: r.cep,
      ...recebedorPerson,
      ...('cnpj' in recebedorPerson && r.nomeFantasia ? { nomeFantasia: r.nomeFantasia } : {}),
    },
    txid,
    revisao,
    status,
    valor: {
      original: formatValor(a.originalCents),
      ...component('multa', a.multaCents),
      ...component('juros', a.jurosCents),
      ...component('abatimento', a.abatimentoCents),
      ...component('desconto', a.descontoCents),
      final: formatValor(a.finalCents),
    },
    ...rest,
  };
}
