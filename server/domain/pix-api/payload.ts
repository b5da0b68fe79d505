// The payload JSON a payer's bank fetches from a dynamic QR code's location (API Pix 2.9.0, schemas
// CobPayload for `GET /{pixUrlAccessToken}` and CobVPayload for `GET /cobv/{pixUrlAccessToken}`), built
// from a charge's data. Pure: the caller supplies the charge as stored, the moment it is presented and,
// for a cobv, the amount due on the payment date asked for (DPP), as due-date.ts `amountDue` computes it.
// Field names, nesting and formats are the yaml's; amounts are integer cents here and "123.45" there.
// The payloads' types are the contract's (contract/bcb/payload.ts), so the zod schemas that describe the
// /v2 surface and this builder cannot drift apart.
import { MAX_AMOUNT_CENTS } from '../../../contract/bcb/common';
import type { CobPayload, CobVPayload } from '../../../contract/bcb/payload';
import { formatHundredths, type ComponentesValor } from './due-date';

export type { CobPayload, CobVPayload };

export class PixPayloadError extends Error {
  override name = 'PixPayloadError';
}

export type CobStatus = CobPayload['status'];

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

/**
 * The amount a cobv owes on one payment date, as due-date.ts `amountDue` answers for a payable day
 * (its result can be passed as it is): `valor` = original + multa + juros − abatimento − desconto, cents.
 */
export interface CobVAmountDue {
  valor: number;
  componentes: ComponentesValor;
}

export interface CobVCharge extends ChargeCommon {
  /** São Paulo date, YYYY-MM-DD. */
  dataDeVencimento: string;
  /** Calendar days after the due date the charge can still be paid. */
  validadeAposVencimento: number;
  /** The address fields a charge may hold for its devedor are left out: the payload URL is open to anyone who has it. */
  devedor: PayloadPerson;
  recebedor: PayloadPerson & PayloadAddress & { nomeFantasia?: string | null };
  /** On the payment date asked for (the DPP, today by default). */
  amountDue: CobVAmountDue;
}

/** Integer cents → the yaml's amount string "123.45", refusing what is above the ceiling (MAX_AMOUNT_CENTS). */
export function formatValor(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new PixPayloadError(`payload: an amount must be a non-negative integer number of cents (got ${cents})`);
  if (cents > MAX_AMOUNT_CENTS) throw new PixPayloadError(`payload: ${cents} cents is more than the ceiling of ${MAX_AMOUNT_CENTS} cents`);
  return formatHundredths(cents);
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
  const { valor, componentes: a } = c.amountDue;
  if (a.original <= 0) throw new PixPayloadError('payload: valor.original must be above zero');
  const computed = a.original + a.multa + a.juros - a.abatimento - a.desconto;
  if (computed !== valor) {
    throw new PixPayloadError(`payload: valor.final ${valor} is not original + multa + juros − abatimento − desconto = ${computed}`);
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
      original: formatValor(a.original),
      ...component('multa', a.multa),
      ...component('juros', a.juros),
      ...component('abatimento', a.abatimento),
      ...component('desconto', a.desconto),
      final: formatValor(valor),
    },
    ...rest,
  };
}
