// The amount a stored cobv asks on a given day: one reading of its stored terms (pix_charges.body and
// due_date), shared by everything that quotes or takes that amount (the payload a payer's bank fetches,
// the sandbox payer, the dashboard), so no two of them can disagree on what is due.
import { centsToAmount } from '../../../contract/bcb';
import { DomainError } from '../../errors';
import type { Services } from '../../services';
import { localDay } from '../local-time';
import { chargeByTxid } from './charges';
import { calendarDaysBetween } from './calendar';
import { readChargeBody } from './charge-body';
import { amountDue, componentesValorJson, dueDates, type AmountDue, type DueDates } from './due-date';
import { parseCobvValor } from './due-date-input';

/** A stored cobv as far as its amount goes. */
export interface StoredCobv { txid: string; dueDate: string | null; body: string }

/** Thrown when a stored charge's terms cannot be read back: a defect, never the caller's input. */
function unreadable(txid: string, why: string): Error {
  return new Error(`cobv ${txid}: stored terms unreadable (${why})`);
}

/**
 * What a stored cobv asks on a day: due-date's answer, or, for a day before the charge's criação (São
 * Paulo), not payable (`antes-da-criacao`, with that day): a charge cannot be paid before it exists.
 */
export type CobvAmountDue = AmountDue | ({ payable: false; reason: 'antes-da-criacao'; criacao: string } & DueDates);

/** What the cobv asks on `day` (YYYY-MM-DD, São Paulo), or why it cannot be paid that day. */
export function cobvAmountDueOn(charge: StoredCobv, day: string): CobvAmountDue {
  const body = readChargeBody(charge);
  const dataDeVencimento = charge.dueDate ?? body.calendario?.dataDeVencimento;
  if (!dataDeVencimento) throw unreadable(charge.txid, 'no dataDeVencimento');
  const calendario = { dataDeVencimento, validadeAposVencimento: body.calendario?.validadeAposVencimento ?? 30 };
  const criacao = body.calendario?.criacao ? localDay(new Date(body.calendario.criacao)) : null;
  if (criacao !== null && calendarDaysBetween(criacao, day) < 0) return { payable: false, reason: 'antes-da-criacao', criacao, ...dueDates(calendario) };
  const parsed = parseCobvValor(body.valor, { dataDeVencimento });
  if (!parsed.ok) throw unreadable(charge.txid, parsed.issues.map((i) => i.reason).join('; '));
  return amountDue(parsed.value, calendario, day);
}

/** The dashboard's "amount due today" of a cobv: the day, and the amount with its parts, or why not. */
export interface AmountDueView {
  data: string;
  valor: string | null;
  componentesValor?: { original: { valor: string }; multa?: { valor: string }; juros?: { valor: string }; abatimento?: { valor: string }; desconto?: { valor: string } };
  /** Why it cannot be paid that day, in words, when `valor` is null. */
  motivo?: string;
}

/** The amount the account's cobv `txid` asks on `day` (today in São Paulo by default). */
export async function amountDueView(s: Pick<Services, 'db' | 'clock'>, accountId: string, txid: string, day?: string): Promise<AmountDueView> {
  const rec = await chargeByTxid(s.db.read, accountId, txid);
  if (!rec || rec.row.kind !== 'cobv') throw new DomainError('NOT_FOUND', 'Cobrança com vencimento não encontrada para o txid informado.', { problem: 'CobVNaoEncontrada' });
  const data = day ?? localDay(s.clock.now());
  const due = cobvAmountDueOn(rec.row, data);
  if (!due.payable) {
    return {
      data, valor: null,
      motivo: due.reason === 'apos-validade' ? `a cobrança podia ser paga até ${due.ultimoDia}`
        : due.reason === 'antes-da-criacao' ? `a cobrança foi criada em ${due.criacao}` : 'o valor devido passaria do teto',
    };
  }
  return { data, valor: centsToAmount(due.valor), componentesValor: componentesValorJson(due.componentes) as AmountDueView['componentesValor'] };
}
